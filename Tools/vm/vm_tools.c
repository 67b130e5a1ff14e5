/* What the arm64 VM's user-channel-errors case needs from programs the busybox guest lacks (Tools/vm/arm64_vm.py):
 *
 *     vm_tools power-on INDEX        BlueZ's management interface powers hciINDEX on (what `btmgmt power on`
 *                                    and bluetoothd do); prints "hciINDEX powered" or the mgmt status
 *     vm_tools drop-to UID PROG ...  PROG as user and group UID with no supplementary groups and no capability
 *                                    (what `setpriv --reuid --regid --clear-groups` does on amd64)
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BTPROTO_HCI 1
#define HCI_DEV_NONE 0xffff
#define HCI_CHANNEL_CONTROL 3
#define MGMT_OP_SET_POWERED 0x0005
#define MGMT_EV_CMD_COMPLETE 0x0001
#define MGMT_EV_CMD_STATUS 0x0002

struct sockaddr_hci {
    sa_family_t hci_family;
    unsigned short hci_dev;
    unsigned short hci_channel;
};

static int power_on(int index) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) {
        fprintf(stderr, "vm_tools: socket(AF_BLUETOOTH): %s\n", strerror(errno));
        return 1;
    }
    struct sockaddr_hci address = {AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_CONTROL};
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        fprintf(stderr, "vm_tools: bind(HCI_CHANNEL_CONTROL): %s\n", strerror(errno));
        return 1;
    }
    /* mgmt header (opcode, index, length, all little-endian), then the parameter: powered = 1 */
    uint8_t command[7] = {MGMT_OP_SET_POWERED, 0, (uint8_t)index, (uint8_t)(index >> 8), 1, 0, 1};
    if (write(fd, command, sizeof command) != sizeof command) {
        fprintf(stderr, "vm_tools: write(mgmt Set Powered): %s\n", strerror(errno));
        return 1;
    }
    /* Other events (New Settings, ...) may come first: wait for this command's completion, 20 s at most. */
    for (;;) {
        struct pollfd readable = {fd, POLLIN, 0};
        if (poll(&readable, 1, 20000) <= 0) {
            fprintf(stderr, "vm_tools: no answer to mgmt Set Powered within 20 s\n");
            return 1;
        }
        uint8_t event[512];
        ssize_t length = read(fd, event, sizeof event);
        if (length < 9)
            continue;
        int code = event[0] | event[1] << 8;
        int opcode = event[6] | event[7] << 8;
        if ((code == MGMT_EV_CMD_COMPLETE || code == MGMT_EV_CMD_STATUS) && opcode == MGMT_OP_SET_POWERED) {
            if (event[8] == 0) {
                printf("hci%d powered\n", index);
                return 0;
            }
            printf("hci%d: Set Powered failed: mgmt status 0x%02x\n", index, event[8]);
            return 1;
        }
    }
}

static int drop_to(int uid, char **argv) {
    /* From root to another user without keeping capabilities: setuid() clears them all. */
    if (setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0) {
        fprintf(stderr, "vm_tools: cannot become %d: %s\n", uid, strerror(errno));
        return 1;
    }
    execv(argv[0], argv);
    fprintf(stderr, "vm_tools: exec %s: %s\n", argv[0], strerror(errno));
    return 127;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "power-on") == 0)
        return power_on(atoi(argv[2]));
    if (argc >= 4 && strcmp(argv[1], "drop-to") == 0)
        return drop_to(atoi(argv[2]), argv + 3);
    fprintf(stderr, "usage: vm_tools power-on INDEX | vm_tools drop-to UID PROG [ARG ...]\n");
    return 2;
}
