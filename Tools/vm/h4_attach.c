/* The arm64 VM's Bluetooth controller cable (Tools/vm/run-tests --arch aarch64): attaches the kernel's
 * H4 UART driver (hci_uart, line discipline N_HCI) to a tty whose other end is the host's Bumble controller.
 *
 *     h4_attach /dev/hvc0
 *
 * Debian's arm64 kernel has no hci_vhci (CONFIG_BT_HCIVHCI is not set), so the amd64 path's /dev/vhci is
 * not there; hci_uart is (a module, with H4 built in). The tty is a virtio console port, backed on the host
 * by a Unix socket that Bumble's controller reads and writes as a UART: no relay, the kernel frames H4.
 *
 * Prints `hciN` (the adapter the kernel registered) on stdout once it exists, then holds the line
 * discipline until SIGTERM or SIGINT; it then gives the tty back to N_TTY, which unregisters the adapter
 * (as unplugging a UART controller does), and exits 0. What btattach does, without BlueZ's libraries.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#ifndef N_HCI
#define N_HCI 15
#endif
/* include/net/bluetooth/hci_uart.h (drivers/bluetooth/hci_uart.h) */
#define HCIUARTSETPROTO _IOW('U', 200, int)
#define HCIUARTGETDEVICE _IOR('U', 202, int)
#define HCI_UART_H4 0

static volatile sig_atomic_t stop;

static void on_signal(int number) {
    (void)number;
    stop = 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: h4_attach TTY\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_NOCTTY);
    if (fd < 0) {
        fprintf(stderr, "h4_attach: open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct termios settings;
    if (tcgetattr(fd, &settings) == 0) {
        cfmakeraw(&settings);
        tcsetattr(fd, TCSANOW, &settings);
    }
    /* What the host sent before the line discipline was there (N_TTY's buffer) is not H4 for this adapter. */
    tcflush(fd, TCIOFLUSH);
    int discipline = N_HCI;
    if (ioctl(fd, TIOCSETD, &discipline) < 0) {
        fprintf(stderr, "h4_attach: TIOCSETD N_HCI: %s (is hci_uart loaded?)\n", strerror(errno));
        return 1;
    }
    if (ioctl(fd, HCIUARTSETPROTO, HCI_UART_H4) < 0) {
        fprintf(stderr, "h4_attach: HCIUARTSETPROTO H4: %s\n", strerror(errno));
        return 1;
    }
    int index = ioctl(fd, HCIUARTGETDEVICE, 0);
    if (index < 0) {
        fprintf(stderr, "h4_attach: HCIUARTGETDEVICE: %s\n", strerror(errno));
        return 1;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    printf("hci%d\n", index);
    fflush(stdout);
    while (!stop)
        pause();
    discipline = N_TTY;
    if (ioctl(fd, TIOCSETD, &discipline) < 0) {
        fprintf(stderr, "h4_attach: TIOCSETD N_TTY: %s\n", strerror(errno));
        return 1;
    }
    close(fd);
    return 0;
}
