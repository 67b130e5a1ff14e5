// The layouts of the C structs ENCore hands to libcrypto and zlib by value or by address, as the target's
// own compiler (the cross gcc that links the board build) lays them out. LayoutCheck compares them with what
// Swift's clang, reading the same headers for a `none` triple, believes: a difference means Swift passes
// zlib or libcrypto a struct of the wrong shape (z_stream's size even goes to inflateInit2_ as a check).
#include <stddef.h>
#include <sys/types.h>
#include <openssl/params.h>
#include <zlib.h>
// SystemIO's: the same map the Swift side reads (Sources/CLinux/shim.h), so both see one set of headers.
#include "../../Sources/CLinux/shim.h"

#include "c_layouts.h"

#define LAYOUT(type) {#type " size", sizeof(type)}, {#type " alignment", _Alignof(type)}
#define OFFSET(type, field) {#type "." #field, offsetof(type, field)}

static const struct {
    const char *name;
    unsigned long value;
} layouts[] = {
    LAYOUT(z_stream),
    OFFSET(z_stream, next_in), OFFSET(z_stream, avail_in), OFFSET(z_stream, total_in),
    OFFSET(z_stream, next_out), OFFSET(z_stream, avail_out), OFFSET(z_stream, total_out),
    OFFSET(z_stream, msg), OFFSET(z_stream, state), OFFSET(z_stream, zalloc), OFFSET(z_stream, zfree),
    OFFSET(z_stream, opaque), OFFSET(z_stream, data_type), OFFSET(z_stream, adler), OFFSET(z_stream, reserved),
    LAYOUT(OSSL_PARAM),
    OFFSET(OSSL_PARAM, key), OFFSET(OSSL_PARAM, data_type), OFFSET(OSSL_PARAM, data),
    OFFSET(OSSL_PARAM, data_size), OFFSET(OSSL_PARAM, return_size),
    LAYOUT(off_t),
    // What SystemIO hands the kernel and libc.
    LAYOUT(time_t), LAYOUT(struct timespec), OFFSET(struct timespec, tv_nsec),
    LAYOUT(struct stat), OFFSET(struct stat, st_mode), OFFSET(struct stat, st_size),
    LAYOUT(struct statvfs), OFFSET(struct statvfs, f_bsize), OFFSET(struct statvfs, f_bavail),
    LAYOUT(struct pollfd), LAYOUT(struct sockaddr_un), LAYOUT(struct sockaddr_in), LAYOUT(struct addrinfo),
    OFFSET(struct addrinfo, ai_addr), OFFSET(struct addrinfo, ai_next),
    LAYOUT(struct termios), OFFSET(struct termios, c_lflag), OFFSET(struct termios, c_cc),
    LAYOUT(struct winsize), LAYOUT(struct signalfd_siginfo), LAYOUT(sigset_t),
    OFFSET(struct dirent, d_name),
    LAYOUT(struct gpiochip_info), LAYOUT(struct gpio_v2_line_info), LAYOUT(struct gpio_v2_line_event),
    OFFSET(struct gpio_v2_line_event, timestamp_ns), OFFSET(struct gpio_v2_line_event, id),
};

int board_c_layout_count(void) { return (int)(sizeof layouts / sizeof layouts[0]); }
const char *board_c_layout_name(int i) { return layouts[i].name; }
unsigned long board_c_layout_value(int i) { return layouts[i].value; }
