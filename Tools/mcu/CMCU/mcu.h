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
#endif
