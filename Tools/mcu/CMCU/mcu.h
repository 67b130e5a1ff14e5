// The test image's board interface, implemented by ../startup.c for QEMU's mps2-an386 (a Cortex-M4).
#ifndef ENBEACON_MCU_H
#define ENBEACON_MCU_H
#include <stddef.h>
#include <stdint.h>

// Semihosting (Arm's semihosting specification, through `bkpt 0xab`), answered by the host's QEMU.
// The command line QEMU was given with -append, NUL-terminated into `buffer`; its length, or -1.
int mcu_command_line(char *buffer, int capacity);
// Opens a host file for reading (binary); its handle, or -1.
int mcu_open(const char *path);
// Reads up to `length` bytes; how many were read (0 at the end), or -1.
int mcu_read(int handle, void *buffer, int length);
void mcu_close(int handle);
// Ends the emulation with `status` as QEMU's exit status (SYS_EXIT_EXTENDED).
_Noreturn void mcu_exit(int status);

// The board's 32-bit APB timer 0, free-running from reset; ticks since reset.
uint32_t mcu_timer_ticks(void);
// Ticks counted while a loop of `instructions` known instructions ran: under `-icount` the ratio is the
// instructions per tick (the calibration of mcu_timer_ticks).
uint32_t mcu_timer_ticks_for_instructions(uint32_t instructions);

// The stack: painted at reset and painted again by mcu_stack_repaint (below the caller's frame); the deepest
// byte used since, as bytes from the top.
size_t mcu_stack_peak(void);
size_t mcu_stack_size(void);
void mcu_stack_repaint(void);
// The heap: the furthest _sbrk has grown it, and its limit.
size_t mcu_heap_peak(void);
size_t mcu_heap_size(void);
// The bytes malloc has handed out and not had back (newlib's mallinfo): what is live now, fragments aside.
size_t mcu_heap_in_use(void);
// .data + .bss.
size_t mcu_static_ram(void);

// The flash part the sighting store is kept in (../nor_flash.c, a model in PSRAM): MCU_FLASH_PAGES pages of
// MCU_FLASH_PAGE_BYTES, erased to 0xFF, programmed an aligned 32-bit word at a time (bits 1 to 0 only), each word
// at most MCU_FLASH_PROGRAMS_PER_WORD times between erases.
enum { MCU_FLASH_PAGE_BYTES = 4096, MCU_FLASH_PAGES = 16, MCU_FLASH_PROGRAMS_PER_WORD = 2 };
// Reads are memory-mapped, as on the part.
const uint8_t *mcu_flash_memory(void);
// 0, or -1: the power is off, the page is out of range.
int mcu_flash_erase(uint32_t page);
// ANDs `word` into the word at `address` (a byte offset in the part): 0, or -1: the power is off, the address is
// not aligned or out of range, the word was programmed too often since its page's erase.
int mcu_flash_program(uint32_t address, uint32_t word);
// A part as it leaves the factory: every page erased, no cut armed, powered.
void mcu_flash_new_part(void);
// Keeps a copy of the part's state (its bytes and its words' program counts), and puts it back (powered, no
// cut armed): the state before an operation, for cutting that operation at each of its steps in turn.
void mcu_flash_save(void);
void mcu_flash_restore(void);
// A power cut: the `operations`-th operation from now is interrupted halfway (a program: its word's low half
// programmed; an erase: its page's first half erased) and fails, and so does every later one until power_on.
void mcu_flash_cut_after(uint32_t operations);
void mcu_flash_power_on(void);
// Operations done since reset: pages erased, words programmed, operations refused (no power, a broken rule).
uint32_t mcu_flash_erases(void);
uint32_t mcu_flash_programs(void);
uint32_t mcu_flash_refusals(void);
#endif
