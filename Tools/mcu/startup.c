// Start-up and board support of the microcontroller test image (Tools/build-mcu) on QEMU's mps2-an386 (a
// Cortex-M4): the vector table, the reset handler (.data copied from flash, .bss zeroed, the stack painted,
// newlib's constructors run), semihosting, the heap newlib's malloc grows through _sbrk, and the few system calls
// newlib's stdio and malloc reach. Built without a stack protector: it runs before the guard is set.
#include "CMCU/mcu.h"
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern uint8_t __heap_start[], __heap_end[], __stack_bottom[], __stack_top[];
extern void __libc_init_array(void);
extern int main(int argc, char **argv);

enum { stack_paint = 0xA5 };

// Semihosting operations (Arm's "Semihosting for AArch32 and AArch64", version 2).
enum { sys_open = 0x01, sys_close = 0x02, sys_write = 0x05, sys_read = 0x06, sys_flen = 0x0C,
       sys_get_cmdline = 0x15, sys_exit = 0x18, sys_exit_extended = 0x20 };

static int semihost(int operation, void *argument) {
    register int r0 __asm__("r0") = operation;
    register void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

int mcu_command_line(char *buffer, int capacity) {
    uint32_t block[2] = { (uint32_t)buffer, (uint32_t)capacity };
    if (semihost(sys_get_cmdline, block) != 0) return -1;
    return (int)block[1];
}

int mcu_open(const char *path) {
    uint32_t block[3] = { (uint32_t)path, 1 /* "rb" */, strlen(path) };
    return semihost(sys_open, block);
}

int mcu_read(int handle, void *buffer, int length) {
    uint32_t block[3] = { (uint32_t)handle, (uint32_t)buffer, (uint32_t)length };
    int left = semihost(sys_read, block);  // the bytes NOT read
    return left < 0 || left > length ? -1 : length - left;
}

void mcu_close(int handle) {
    uint32_t block[1] = { (uint32_t)handle };
    semihost(sys_close, block);
}

_Noreturn void mcu_exit(int status) {
    uint32_t block[2] = { 0x20026 /* ADP_Stopped_ApplicationExit */, (uint32_t)status };
    semihost(sys_exit_extended, block);
    for (;;) semihost(sys_exit, (void *)0x20026);
}

// The console: one semihosting write per line (or full buffer), so output costs few traps.
static int console = -1;
static char line[128];
static size_t line_length;

static void console_flush(void) {
    if (line_length == 0) return;
    if (console < 0) {
        uint32_t block[3] = { (uint32_t)":tt", 4 /* "w" */, 3 };
        console = semihost(sys_open, block);
    }
    uint32_t block[3] = { (uint32_t)console, (uint32_t)line, line_length };
    semihost(sys_write, block);
    line_length = 0;
}

// Embedded Swift's print writes through putchar.
int putchar(int c) {
    line[line_length++] = (char)c;
    if (c == '\n' || line_length == sizeof line) console_flush();
    return c;
}

// newlib's system calls: the console for stdout and stderr, the heap; nothing else exists here.
int _write(int fd, const char *buffer, int length) {
    if (fd != 1 && fd != 2) { errno = EBADF; return -1; }
    for (int i = 0; i < length; i++) putchar(buffer[i]);
    return length;
}
int _read(int fd, char *buffer, int length) { (void)fd, (void)buffer, (void)length; errno = EBADF; return -1; }
int _close(int fd) { (void)fd; errno = EBADF; return -1; }
int _lseek(int fd, int offset, int whence) { (void)fd, (void)offset, (void)whence; errno = ESPIPE; return -1; }
int _fstat(int fd, struct stat *st) { (void)fd; memset(st, 0, sizeof *st); st->st_mode = S_IFCHR; return 0; }
int _isatty(int fd) { return fd <= 2; }
int _getpid(void) { return 1; }
int _kill(int pid, int signal) { (void)pid, (void)signal; errno = EINVAL; return -1; }
_Noreturn void _exit(int status) { console_flush(); mcu_exit(status); }

static uint8_t *heap_break = __heap_start, *heap_high = __heap_start;
void *_sbrk(ptrdiff_t increment) {
    if (increment > __heap_end - heap_break || -increment > heap_break - __heap_start) {
        errno = ENOMEM;
        return (void *)-1;
    }
    uint8_t *previous = heap_break;
    heap_break += increment;
    if (heap_break > heap_high) heap_high = heap_break;
    return previous;
}
size_t mcu_heap_peak(void) { return (size_t)(heap_high - __heap_start); }
size_t mcu_heap_in_use(void) { return (size_t)mallinfo().uordblks; }
size_t mcu_heap_size(void) { return (size_t)(__heap_end - __heap_start); }
size_t mcu_static_ram(void) { return (size_t)((uint8_t *)__bss_end - (uint8_t *)__data_start); }

// Embedded Swift allocates through posix_memalign, which newlib 3.3 leaves out (it has memalign).
int posix_memalign(void **out, size_t alignment, size_t size) {
    void *p = memalign(alignment < sizeof(void *) ? sizeof(void *) : alignment, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

// newlib's arc4random (Swift's random numbers) draws its seed here. The emulated board has no random number
// generator, so the host's answers through semihosting; a wristband's chip has one (the nRF52's RNG peripheral).
int getentropy(void *buffer, size_t length) {
    static int source = -1;
    if (source < 0) source = mcu_open("/dev/urandom");
    if (length > 256 || source < 0 || mcu_read(source, buffer, (int)length) != (int)length) {
        errno = EIO;
        return -1;
    }
    return 0;
}

// The CMSDK APB timer 0 of the MPS2 boards: a 32-bit down-counter on the 25 MHz system clock.
typedef struct { volatile uint32_t control, value, reload, interrupt; } apb_timer;
#define TIMER0 ((apb_timer *)0x40000000)

static void timer_start(void) {
    TIMER0->reload = 0xFFFFFFFF;
    TIMER0->value = 0xFFFFFFFF;
    TIMER0->control = 1;
}
uint32_t mcu_timer_ticks(void) { return 0xFFFFFFFF - TIMER0->value; }

uint32_t mcu_timer_ticks_for_instructions(uint32_t instructions) {
    uint32_t loops = instructions / 2;  // two instructions a pass: subs, bne
    uint32_t start = mcu_timer_ticks();
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(loops) : : "cc");
    return mcu_timer_ticks() - start;
}

static uint8_t *stack_pointer(void) {
    uint8_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

// Paints the free stack below the caller's frame, leaving a margin for this function's own.
void mcu_stack_repaint(void) {
    uint8_t *below = stack_pointer() - 64;
    for (uint8_t *p = __stack_bottom; p < below; p++) *(volatile uint8_t *)p = stack_paint;
}

size_t mcu_stack_peak(void) {
    uint8_t *p = __stack_bottom;
    while (p < __stack_top && *p == stack_paint) p++;
    return (size_t)(__stack_top - p);
}
size_t mcu_stack_size(void) { return (size_t)(__stack_top - __stack_bottom); }

// newlib's __libc_init_array calls _init and _fini's counterpart; no crti here.
void _init(void) {}
void _fini(void) {}

_Noreturn void Reset_Handler(void) {
    for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;) *d++ = *s++;
    for (uint32_t *d = __bss_start; d < __bss_end;) *d++ = 0;
    mcu_stack_repaint();
    timer_start();
    __libc_init_array();
    static char *argv[] = { "image", NULL };
    int status = main(1, argv);
    console_flush();
    mcu_exit(status);
}

// A fault ends the run with a status of its own and the faulting address (look it up in the map, or with
// arm-none-eabi-addr2line), rather than QEMU spinning in a loop. A Swift trap (overflow, a failed precondition)
// arrives here as an undefined instruction.
static void print_hex(uint32_t value) {
    for (int shift = 28; shift >= 0; shift -= 4) putchar("0123456789abcdef"[(value >> shift) & 0xF]);
}

__attribute__((used)) static _Noreturn void fault_report(const uint32_t *frame) {
    static const char message[] = "fault: the image stopped in a fault handler at pc 0x";
    for (const char *c = message; *c; c++) putchar(*c);
    print_hex(frame[6]);
    putchar('\n');
    mcu_exit(3);
}

// The exception frame (r0-r3, r12, lr, pc, xpsr) is on the main stack: this image never uses the process stack.
__attribute__((naked)) static void Fault_Handler(void) {
    __asm__ volatile("mrs r0, msp\n b fault_report");
}

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
    (vector)__stack_top, Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    0, 0, 0, 0, Fault_Handler, Fault_Handler, 0, Fault_Handler, Fault_Handler,
};
