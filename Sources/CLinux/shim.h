// The C side of SystemIO, the one module that calls libc and the kernel: the headers it uses, and small
// shims for what Swift cannot call or see directly. Both builds import this map and nothing else of libc
// (Embedded Swift has no Glibc overlay), so the standard build and the board build compile the same Swift.
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

// errno is a macro over a thread-local location: Swift sees neither without the Glibc overlay.
static inline int enb_errno(void) { return errno; }
static inline void enb_set_errno(int value) { errno = value; }

// open, fcntl and ioctl are variadic, which Swift cannot call: one fixed signature each for the forms used.
static inline int enb_open(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }
static inline int enb_fcntl(int fd, int command, int argument) { return fcntl(fd, command, argument); }
static inline int enb_ioctl_value(int fd, unsigned long request, int value) { return ioctl(fd, request, value); }
static inline int enb_ioctl_pointer(int fd, unsigned long request, void *argument) {
    return ioctl(fd, request, argument);
}

// The process's environment, for a spawned child: unistd.h declares `environ` only under _GNU_SOURCE.
static inline char **enb_environment(void) { extern char **environ; return environ; }

// SO_SNDTIMEO and SO_RCVTIMEO choose, by sizeof(time_t), between the old option and the one with 64-bit
// times on 32-bit ARM: an expression Swift does not import. Nonzero `sending` sets the send timeout.
static inline int enb_set_socket_timeout(int fd, int sending, long long seconds, long microseconds) {
    struct timeval value = { .tv_sec = seconds, .tv_usec = microseconds };
    return setsockopt(fd, SOL_SOCKET, sending ? SO_SNDTIMEO : SO_RCVTIMEO, &value, sizeof value);
}

// SIG_IGN is a cast of 1 to a function pointer, which Swift does not import from a macro.
static inline void enb_ignore_signal(int signal_number) { signal(signal_number, SIG_IGN); }

// Linux kernel interfaces that Swift's Glibc module leaves out.
#include <sys/timex.h>
#include <sys/signalfd.h>
#include <malloc.h>

// glibc's malloc arenas: one for the whole process (mallopt's M_ARENA_MAX is a macro Swift cannot import).
static inline int enb_malloc_single_arena(void) { return mallopt(M_ARENA_MAX, 1); }

// The kernel's verdict on the wall clock: adjtimex's return value (TIME_ERROR = 5 when the clock is
// not synchronised) and whether STA_UNSYNC is set. Read-only: modes = 0 changes nothing.
static inline int enb_clock_sync_state(int *unsynchronised) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    *unsynchronised = (tx.status & STA_UNSYNC) != 0;
    return state;
}

// The GPIO character device, uAPI v2 (<linux/gpio.h>). Its ioctl numbers are macros Swift cannot import, and
// its request and info structs hold fixed arrays Swift sees only as tuples: these wrappers fill and pass the
// kernel's own structs, so no layout is computed by hand. Each returns what ioctl returns (-1 and errno on
// failure) unless it says otherwise.
#include <linux/gpio.h>
#include <string.h>
#include <sys/ioctl.h>

/// The chip's name (gpiochipN), label (its driver's name for it) and number of lines.
static inline int enb_gpio_chip_info(int chip_fd, struct gpiochip_info *info) {
    memset(info, 0, sizeof *info);
    return ioctl(chip_fd, GPIO_GET_CHIPINFO_IOCTL, info);
}

/// One line's name, consumer (who holds it, if anyone) and flags.
static inline int enb_gpio_line_info(int chip_fd, unsigned int offset, struct gpio_v2_line_info *info) {
    memset(info, 0, sizeof *info);
    info->offset = offset;
    return ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, info);
}

/// Requests one line of the chip for `consumer` with `flags` (GPIO_V2_LINE_FLAG_*): an output starts at
/// `initial_value` (0 inactive, 1 active). Returns the line's descriptor, or -1 and errno (EBUSY: someone
/// else holds the line).
static inline int enb_gpio_request_line(int chip_fd, unsigned int offset, unsigned long long flags,
                                        int initial_value, const char *consumer) {
    struct gpio_v2_line_request request;
    memset(&request, 0, sizeof request);
    request.offsets[0] = offset;
    request.num_lines = 1;
    strncpy(request.consumer, consumer, sizeof request.consumer - 1);
    request.config.flags = flags;
    if (flags & GPIO_V2_LINE_FLAG_OUTPUT) {
        request.config.num_attrs = 1;
        request.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
        request.config.attrs[0].attr.values = initial_value ? 1 : 0;
        request.config.attrs[0].mask = 1;
    }
    if (ioctl(chip_fd, GPIO_V2_GET_LINE_IOCTL, &request) < 0) return -1;
    return request.fd;
}

/// Sets a requested output line: 1 active, 0 inactive (active-low is the kernel's business).
static inline int enb_gpio_set_value(int line_fd, int active) {
    struct gpio_v2_line_values values = { .bits = active ? 1 : 0, .mask = 1 };
    return ioctl(line_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &values);
}

/// A requested line's value: 1 active, 0 inactive, -1 and errno on failure.
static inline int enb_gpio_get_value(int line_fd) {
    struct gpio_v2_line_values values = { .bits = 0, .mask = 1 };
    if (ioctl(line_fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &values) < 0) return -1;
    return (int)(values.bits & 1);
}
