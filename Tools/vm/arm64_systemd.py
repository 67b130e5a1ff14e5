"""systemd-unit in the arm64 VM (Tools/vm/run-tests --arch aarch64 systemd-unit): systemd as PID 1 starts
Board/enbeacon.service with the board build's aarch64 agent; the checks are guest_cases.py's, run from the host.

The guest's root is an ext4 disk (written through a QEMU snapshot, so the image stays as built) made of
systemd:arm64 and the libraries it needs, unpacked with dpkg-deb -x (no maintainer scripts: systemd as PID 1
needs none of them), plus static busybox, h4_attach, the agent at /usr/local/bin/enbeacon with its board file
at /etc/enbeacon/board.conf, and these units in /etc/systemd/system:
  - enbeacon.service: Board/enbeacon.service as it is, with systemd_case.py's drop-in (the loop-stall test
    hook, WatchdogSec=6);
  - vm-shell.service: busybox sh on the command port, as in the busybox-only boot;
  - vm.target, the unit systemd boots into.
The initramfs loads the modules, mounts the disk and the work folder, and hands over to /lib/systemd/systemd.
"""

import glob
import os
import shutil
import time

import guest_cases
from guest_cases import CaseFailure, wait_until

# systemd:arm64's run-time closure in bookworm (apt-cache depends --recurse, without dpkg, debconf, tar and
# the installer's libraries), and zlib1g for the agent.
PACKAGES = ["systemd", "libsystemd-shared", "libsystemd0", "libc6", "libgcc-s1", "libacl1", "libapparmor1",
            "libargon2-1", "libaudit1", "libblkid1", "libcap-ng0", "libcap2", "libcrypt1", "libcryptsetup12",
            "libdevmapper1.02.1", "libfdisk1", "libgcrypt20", "libgpg-error0", "libip4tc2", "libjson-c5", "libkmod2",
            "liblz4-1", "liblzma5", "libmount1", "libp11-kit0", "libffi8", "libpam0g", "libpcre2-8-0", "libseccomp2",
            "libselinux1", "libssl3", "libzstd1", "libuuid1", "libudev1", "zlib1g"]

BOARD = """# The arm64 VM: the host's Bumble controller on the guest's UART (hci_uart) is hci0; the VM's clock is the
# host's, taken as trusted.
name = vm-arm64
transport = user:hci0
clock = trusted
"""

DROP_IN = """[Service]
Environment=ENBEACON_TEST_STALL_ON_SIGUSR1=1
WatchdogSec=6
"""

SHELL_UNIT = """[Unit]
Description=busybox sh on the command port (Tools/vm/arm64_systemd.py)
DefaultDependencies=no
[Service]
ExecStart=/bin/busybox sh /etc/vm-shell.sh
StandardInput=null
StandardOutput=journal+console
"""

SHELL_SCRIPT = """export PATH=/bbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
/bin/busybox mkdir -p /bbin && /bin/busybox --install -s /bbin
port=
for p in /sys/class/virtio-ports/*; do [ "$(cat $p/name)" = command ] && port=$(basename $p); done
exec 3<>/dev/$port
echo "@@guest-ready systemd $(cat /proc/uptime)" > /dev/console
exec sh <&3 >&3 2>&3
"""

TARGET = """[Unit]
Description=enbeacon arm64 VM test
Wants=vm-shell.service enbeacon.service
"""

INIT = """#!/bin/busybox sh
# The arm64 guest with systemd (Tools/vm/arm64_systemd.py): modules, the root disk, the work folder, systemd.
b=/bin/busybox
$b mount -t proc proc /proc
$b mount -t sysfs sys /sys
$b mount -t devtmpfs dev /dev
for m in {modules}; do $b insmod /modules/$m || echo "initramfs: insmod $m failed"; done
$b mkdir -p /newroot
$b mount -t ext4 /dev/vda /newroot || echo "initramfs: cannot mount the root disk"
$b mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 work /newroot{work} || echo "initramfs: no work folder"
$b umount /proc /sys /dev
exec $b switch_root /newroot /lib/systemd/systemd --unit=vm.target --show-status=0
"""


def build_root_disk(runner, path: str, enbeacon: str, busybox: str, h4_attach: str, libraries: dict[str, str],
                    work_mount: str) -> None:
    """The ext4 root disk, built without mounting (mke2fs -d); the unpacked packages are cached."""
    debs = os.path.join(runner.CACHE, "debs", "systemd-arm64")
    os.makedirs(debs, exist_ok=True)
    missing = [p for p in PACKAGES if not glob.glob(os.path.join(debs, f"{p}_*_arm64.deb"))]
    if missing:
        runner.say(f"vm: fetching systemd:arm64 and {len(missing) - 1} libraries (apt-get download)")
        fetched = runner.run(["apt-get", "download"] + [f"{p}:arm64" for p in missing], cwd=debs)
        if fetched.returncode != 0:
            raise runner.Skip(f"apt-get download systemd:arm64 ...: {fetched.stderr.strip()[-300:]}")
    tree = path + ".tree"
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    for deb in sorted(glob.glob(os.path.join(debs, "*_arm64.deb"))):
        if runner.run(["dpkg-deb", "-x", deb, tree]).returncode != 0:
            raise runner.Skip(f"dpkg-deb -x {deb} failed")
    for directory in ["proc", "sys", "dev", "run", "tmp", "var/lib", "var/log", "etc/enbeacon", "usr/local/bin",
                      "etc/systemd/system/enbeacon.service.d", work_mount.strip("/")]:
        os.makedirs(os.path.join(tree, directory), exist_ok=True)
    os.chmod(os.path.join(tree, "tmp"), 0o1777)
    # The agent's libraries as the other cases run it (libcrypto and libz from the board build's sysroot).
    for guest_path, source in libraries.items():
        target = os.path.join(tree, "lib", "aarch64-linux-gnu", os.path.basename(guest_path))
        if not os.path.exists(os.path.join(tree, guest_path.lstrip("/"))) and not os.path.exists(target):
            shutil.copy(source, target)
    shutil.copy(enbeacon, os.path.join(tree, "usr", "local", "bin", "enbeacon"))
    os.makedirs(os.path.join(tree, "bin"), exist_ok=True)
    shutil.copy(busybox, os.path.join(tree, "bin", "busybox"))
    shutil.copy(h4_attach, os.path.join(tree, "bin", "h4_attach"))
    files = {
        "etc/passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        "etc/group": "root:x:0:\ndialout:x:20:\nnogroup:x:65534:\n",
        "etc/machine-id": "",
        "etc/os-release": 'NAME="enbeacon arm64 VM"\nID=debian\n',
        "etc/enbeacon/board.conf": BOARD,
        "etc/systemd/system/enbeacon.service.d/vm.conf": DROP_IN,
        "etc/systemd/system/vm-shell.service": SHELL_UNIT,
        "etc/systemd/system/vm.target": TARGET,
        "etc/vm-shell.sh": SHELL_SCRIPT,
    }
    for name, text in files.items():
        with open(os.path.join(tree, name), "w") as f:
            f.write(text)
    shutil.copy(os.path.join(runner.REPO, "Board", "enbeacon.service"),
                os.path.join(tree, "etc", "systemd", "system", "enbeacon.service"))
    if os.path.exists(path):
        os.unlink(path)
    made = runner.run(["mkfs.ext4", "-q", "-F", "-L", "root", "-d", tree, path, "256M"])
    shutil.rmtree(tree, ignore_errors=True)
    if made.returncode != 0:
        raise runner.Skip(f"mkfs.ext4 -d: {made.stderr.strip()[:300]}")


def unit_properties(g, *names: str) -> dict:
    output = g.shell.run(f"systemctl show enbeacon.service -p {','.join(names)}")[1]
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)


def journal_tail(g, lines: int = 8) -> str:
    output = g.shell.run(f"journalctl -u enbeacon.service -n {lines} --no-pager -o cat")[1]
    return " | ".join(output.strip().splitlines())


def case_systemd_unit(g) -> str:
    """guest_cases.case_systemd_unit's checks, through the guest's shell: systemd starts Board/enbeacon.service
    (DynamicUser, StateDirectory, capabilities, Type=notify): the agent reaches ready, `enbeacon ctl` finds it
    without flags, its watchdog restarts a stuck loop, and `systemctl stop` stops it cleanly."""
    uptime = float(g.shell.check("cat /proc/uptime").split()[0])
    guest_cases.say(f"  (systemd ran the command shell {uptime:.0f} s after the kernel started)")
    rig = g.rig()
    t0 = time.monotonic()

    def active():
        p = unit_properties(g, "ActiveState", "SubState", "StatusText", "NRestarts", "MainPID")
        if p.get("ActiveState") == "failed":
            raise CaseFailure(f"enbeacon.service failed: {p}; " + journal_tail(g))
        return p if p.get("ActiveState") == "active" and "broadcasting" in p.get("StatusText", "") else None

    started = time.monotonic()
    ready = wait_until(active, 120, "enbeacon.service active (READY=1) and broadcasting", step=0.5)
    guest_cases.say(f"  active {time.monotonic() - started:.1f} s after hci0 was attached: "
                    f"status \"{ready['StatusText']}\"")

    status, output = g.shell.run("enbeacon ctl status", 30)
    if status != 0 or "controller   ready" not in output:
        raise CaseFailure(f"enbeacon ctl status (no flags): exit {status}: {output.strip()[:300]}")
    state = "/var/lib/private/enbeacon"
    modes = g.shell.check(f"stat -c '%a %u' {state} {state}/keys").split()
    link = g.shell.run("readlink /var/lib/enbeacon")[1].strip()
    problems = []
    if modes[0] != "700" or modes[2] != "600":
        problems.append(f"modes: {state} {modes[0]}, keys {modes[2]}")
    if modes[1] == "0" or not link:
        problems.append(f"not a DynamicUser StateDirectory: uid {modes[1]}, /var/lib/enbeacon -> {link!r}")
    pid = ready["MainPID"]
    capabilities = next((line.split()[1] for line in g.shell.check(f"cat /proc/{pid}/status").splitlines()
                         if line.startswith("CapEff")), "0")
    # CAP_NET_ADMIN is bit 12, CAP_SYS_TIME bit 25: nothing else.
    if int(capabilities, 16) != (1 << 12) | (1 << 25):
        problems.append(f"effective capabilities {capabilities}, expected CAP_NET_ADMIN and CAP_SYS_TIME only")
    heard = wait_until(lambda: rig.reports(t0), 30, "the Bumble peer to hear the unit's agent")
    if problems:
        raise CaseFailure("; ".join(problems))

    # The watchdog: the loop blocked on purpose (test hook), systemd kills the agent and starts it again.
    blocked = time.monotonic()
    g.shell.check("systemctl kill -s SIGUSR1 enbeacon.service")
    wait_until(lambda: unit_properties(g, "NRestarts").get("NRestarts") == "1", 60, "a restart after the watchdog")
    restarted = time.monotonic() - blocked
    wait_until(active, 120, "enbeacon.service ready again after the restart", step=0.5)
    again = time.monotonic() - blocked
    if "Watchdog timeout" not in g.shell.run("journalctl -u enbeacon.service -n 200 --no-pager")[1]:
        raise CaseFailure("restarted, but the journal shows no watchdog timeout: " + journal_tail(g))
    guest_cases.say(f"  loop blocked: killed by the watchdog and restarted after {restarted:.1f} s, "
                    f"ready again after {again:.1f} s")

    stopping = time.monotonic()
    g.shell.check("systemctl stop enbeacon.service", 60)
    final = unit_properties(g, "ActiveState", "Result", "ExecMainStatus")
    if final.get("Result") != "success":
        raise CaseFailure(f"systemctl stop: {final}; " + journal_tail(g))
    return (f"ready, {len(heard)} adverts at the peer, ctl without flags, DynamicUser 0700/0600, "
            f"CAP_NET_ADMIN+CAP_SYS_TIME only, watchdog restart {restarted:.1f} s; "
            f"stopped cleanly in {time.monotonic() - stopping:.1f} s")
