// newlib's errno and strerror for SystemIO's files on the microcontroller image, with the same two shims as
// Sources/CLinux/shim.h: errno is a macro Swift does not see.
#include <errno.h>
#include <string.h>

static inline int enb_errno(void) { return errno; }
static inline void enb_set_errno(int value) { errno = value; }
