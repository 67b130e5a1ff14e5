"""The systemd-unit case: systemd as PID 1 in the VM starts Board/enbeacon.service.

`prepare` writes, into the work folder, the shell script the initramfs runs before it hands over
to systemd (/lib/systemd/systemd of the host's root, read-only over 9p). The script puts units into
/run/systemd/system (a tmpfs; the host's /etc is untouched):
  - enbeacon.service: Board/enbeacon.service as it is, plus a drop-in that changes only what the VM
    needs: ExecStart names the binary under test and a board for user:hci0 with a trusted clock (the
    VM's clock is not NTP-synchronised); the loop-stall test hook; WatchdogSec=6 instead of 30, so
    the watchdog's kill fits a short run;
  - bumble-vhci.service: Tools/vm/bumble_vhci.py, the Bumble controller (hci0) and peer;
  - vm-check.service: runs the case's checks (guest_cases.py systemd-unit) and powers the VM off;
  - vm.target, the unit the kernel command line boots into.
"""

import os

# On systemd's command line, not the kernel's: the host's root has /.dockerenv, so systemd believes it runs
# in a container and ignores /proc/cmdline.
SYSTEMD_ARGUMENTS = "--unit=vm.target --show-status=0"

PREPARE = """set -e
b=/bin/busybox
u=/host/run/systemd/system
$b mkdir -p $u/enbeacon.service.d /host/run/enbeacon-vm
# ProtectHome= hides /root and /home from the unit: the binary under test and its board go to /run.
$b cp /host{enbeacon} /host/run/enbeacon-vm/enbeacon
$b cp /host{repo}/Board/enbeacon.service $u/enbeacon.service
$b cat > /host/run/enbeacon-vm/board.conf <<'END'
# The VM: a Bumble controller on /dev/vhci is hci0; the VM's clock is the host's, taken as trusted.
name = vm
transport = user:hci0
clock = trusted
END
$b cat > $u/enbeacon.service.d/vm.conf <<'END'
[Service]
ExecStart=
ExecStart=/run/enbeacon-vm/enbeacon run --board /run/enbeacon-vm/board.conf
Environment=ENBEACON_TEST_STALL_ON_SIGUSR1=1
WatchdogSec=6
END
$b cat > $u/bumble-vhci.service <<'END'
[Unit]
Description=Bumble controller on /dev/vhci (hci0) and a GAEN peer
[Service]
ExecStartPre=/sbin/modprobe -d {modules_root} hci_vhci
ExecStart={python} {here}/bumble_vhci.py
Environment=PYTHONDONTWRITEBYTECODE=1
StandardOutput=file:/run/enbeacon-vm/rig-events.jsonl
END
$b cat > $u/vm-check.service <<'END'
[Unit]
Description=enbeacon VM checks
After=enbeacon.service bumble-vhci.service
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
Environment=PYTHONDONTWRITEBYTECODE=1 HOME=/root
ExecStart={python} {here}/guest_cases.py --enbeacon /run/enbeacon-vm/enbeacon --work {work} --modules-root {modules_root} systemd-unit
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS1
END
$b cat > $u/vm.target <<'END'
[Unit]
Description=enbeacon VM test
Wants=bumble-vhci.service enbeacon.service vm-check.service
END
"""


def prepare(work: str, enbeacon: str, python: str, modules_root: str, repo: str, here: str) -> None:
    with open(os.path.join(work, "prepare-systemd.sh"), "w") as f:
        f.write(PREPARE.format(enbeacon=enbeacon, python=python, modules_root=modules_root, repo=repo, here=here,
                               work=work))
