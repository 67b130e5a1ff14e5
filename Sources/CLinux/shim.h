// Linux kernel interfaces that Swift's Glibc module leaves out.
#include <sys/timex.h>
#include <sys/signalfd.h>

// The kernel's verdict on the wall clock: adjtimex's return value (TIME_ERROR = 5 when the clock is
// not synchronised) and whether STA_UNSYNC is set. Read-only: modes = 0 changes nothing.
static inline int enb_clock_sync_state(int *unsynchronised) {
    struct timex tx = {0};
    int state = adjtimex(&tx);
    *unsynchronised = (tx.status & STA_UNSYNC) != 0;
    return state;
}
