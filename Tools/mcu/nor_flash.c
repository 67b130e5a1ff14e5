// The test image's flash part, modelled in the board's PSRAM (QEMU's mps2-an386 has no flash controller): the
// rules of a NOR flash such as an nRF52's, which the store's driver (FlashFileSystem.swift) must keep, checked
// here on every call, and power cuts at a chosen operation. Pages are erased to 0xFF; a program writes one
// aligned 32-bit word and can only clear bits (the new value is ANDed in); each word may be programmed at most
// MCU_FLASH_PROGRAMS_PER_WORD times between erases (nRF52840: n_WRITE is 2 per word).
#include "CMCU/mcu.h"
#include <string.h>

// In PSRAM (link.ld's .norflash), not in the 64 KB of RAM whose use the image measures.
static uint8_t memory[MCU_FLASH_PAGES * MCU_FLASH_PAGE_BYTES] __attribute__((section(".norflash"), aligned(4)));
static uint8_t programs[MCU_FLASH_PAGES * MCU_FLASH_PAGE_BYTES / 4] __attribute__((section(".norflash")));

// A copy of the part, for running many cuts from one state (the same as replaying the work before each).
static uint8_t saved_memory[sizeof memory] __attribute__((section(".norflash"), aligned(4)));
static uint8_t saved_programs[sizeof programs] __attribute__((section(".norflash")));

static uint32_t operations_left;  // before the cut; 0: no cut armed
static int powered = 1;
static uint32_t erase_count, program_count, refused_count;

const uint8_t *mcu_flash_memory(void) { return memory; }

// Counts one operation toward an armed cut: 1 when this operation is the one the power fails in.
static int cut_now(void) {
    if (operations_left == 0) return 0;
    if (--operations_left > 0) return 0;
    powered = 0;
    return 1;
}

int mcu_flash_erase(uint32_t page) {
    if (!powered || page >= MCU_FLASH_PAGES) { refused_count++; return -1; }
    uint8_t *start = memory + page * MCU_FLASH_PAGE_BYTES;
    if (cut_now()) {
        // Interrupted halfway: the first half erased, the rest as it was.
        memset(start, 0xFF, MCU_FLASH_PAGE_BYTES / 2);
        return -1;
    }
    memset(start, 0xFF, MCU_FLASH_PAGE_BYTES);
    memset(programs + page * MCU_FLASH_PAGE_BYTES / 4, 0, MCU_FLASH_PAGE_BYTES / 4);
    erase_count++;
    return 0;
}

int mcu_flash_program(uint32_t address, uint32_t word) {
    if (!powered || address % 4 != 0 || address >= sizeof memory ||
        programs[address / 4] >= MCU_FLASH_PROGRAMS_PER_WORD) { refused_count++; return -1; }
    uint32_t now;
    memcpy(&now, memory + address, 4);
    if (cut_now()) {
        // Interrupted halfway: the low half-word (the first two bytes, little-endian) programmed, the rest not.
        now &= word | 0xFFFF0000u;
        memcpy(memory + address, &now, 4);
        return -1;
    }
    now &= word;
    memcpy(memory + address, &now, 4);
    programs[address / 4]++;
    program_count++;
    return 0;
}

void mcu_flash_new_part(void) {
    memset(memory, 0xFF, sizeof memory);
    memset(programs, 0, sizeof programs);
    operations_left = 0;
    powered = 1;
}

void mcu_flash_save(void) {
    memcpy(saved_memory, memory, sizeof memory);
    memcpy(saved_programs, programs, sizeof programs);
}

void mcu_flash_restore(void) {
    memcpy(memory, saved_memory, sizeof memory);
    memcpy(programs, saved_programs, sizeof programs);
    operations_left = 0;
    powered = 1;
}

void mcu_flash_cut_after(uint32_t operations) { operations_left = operations; }

void mcu_flash_power_on(void) {
    operations_left = 0;
    powered = 1;
}

uint32_t mcu_flash_erases(void) { return erase_count; }
uint32_t mcu_flash_programs(void) { return program_count; }
uint32_t mcu_flash_refusals(void) { return refused_count; }
