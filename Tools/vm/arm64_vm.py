"""The arm64 VM (Tools/vm/run-tests --arch aarch64): the board build's aarch64 agent on Debian 12's arm64 kernel
under `qemu-system-aarch64 -M virt` (software emulation), with the cases' logic on the host.

The guest cannot run the host's Python or Bumble, so the shape differs from the amd64 path:
  - the guest boots an initramfs of static busybox (Debian's busybox-static:arm64), the kernel modules it
    needs and h4_attach (Tools/vm/h4_attach.c, cross-compiled here); the agent with its loader and
    libraries (glibc from /usr/aarch64-linux-gnu, libcrypto and libz from the board build's sysroot) is
    on a read-only ext4 disk (virtio-blk) mounted at /board, its /lib bound over the guest's /lib. A
    board runs its agent from a disk: its text and libraries are clean page cache, which the kernel can
    drop and re-read; from the initramfs (shmem, never written back) they would count as private dirty;
  - the kernel's controller is hci_uart on a virtio console port (Debian's arm64 kernel has no hci_vhci):
    the port's host end is a Unix socket on which Bumble's C0 (bumble_vhci.py --h4-socket) is the
    controller, linked to the independent Bumble peer as on amd64;
  - a second virtio port carries a shell: the host starts and signals the agent, and runs `enbeacon ctl`
    and `enbeacon derive` inside the guest through it;
  - a work folder shared over virtio-9p holds the agent's logs and exit statuses, read on the host.
The case functions are guest_cases.py's, given a Guest whose processes live in the VM.
"""

import glob
import gzip
import os
import shlex
import shutil
import signal
import socket
import subprocess
import threading
import time
from typing import Callable

import guest_cases
import serial_typist
from guest_cases import CaseFailure, wait_until

KERNEL_PACKAGE = "linux-image-6.1.0-50-arm64"
KERNEL_VERSION = "6.1.176-1"
BUSYBOX_PACKAGE = "busybox-static"
# Loaded by the initramfs, dependencies first: the virtio transports and ports, the 9p work folder, and
# hci_uart (Bluetooth's H4 line discipline).
MODULES = ["virtio_pci", "virtio_console", "9pnet_virtio", "9p", "hci_uart", "virtio_blk", "crc32c_generic",
           "ext4"]
# The default selection; `all` adds systemd-unit (Tools/vm/arm64_systemd.py, a second boot).
CASES = ["advertise-scan", "user-channel-errors", "controller-return", "clean-stop", "serial-console", "idle-memory"]
# The amd64 cases that have no arm64 form yet, with the reason run-tests prints for them.
NOT_YET = {
    "gpio-indicators": "not ported to the arm64 guest yet (gpio-sim is not built for arm64)",
}
GUEST_WORK = "/work"
GUEST_BOARD = "/board"


def fetch_arm64(runner, package: str, version: str | None) -> str:
    """apt-get download PACKAGE:arm64[=VERSION] once, into .build/vm/debs; returns the .deb."""
    debs = os.path.join(runner.CACHE, "debs")
    os.makedirs(debs, exist_ok=True)
    pattern = os.path.join(debs, f"{package}_*{(version or '').split(':')[-1]}_arm64.deb")
    found = glob.glob(pattern)
    if not found:
        spec = f"{package}:arm64" + (f"={version}" if version else "")
        runner.say(f"vm: fetching {spec} (apt-get download)")
        result = runner.run(["apt-get", "download", spec], cwd=debs)
        if result.returncode != 0:
            # A host without the arm64 architecture has no arm64 package lists.
            runner.run(["dpkg", "--add-architecture", "arm64"])
            runner.run(["apt-get", "update", "-qq"])
            result = runner.run(["apt-get", "download", spec], cwd=debs)
        found = glob.glob(pattern)
        if result.returncode != 0 or not found:
            why = (result.stderr.strip().splitlines() or ["no package file"])[-1]
            raise runner.Skip(f"cannot fetch {spec}: {why}")
    return found[0]


def unpacked(runner, deb: str, name: str) -> str:
    root = os.path.join(runner.CACHE, name)
    if not os.path.exists(os.path.join(root, ".unpacked")):
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        if runner.run(["dpkg-deb", "-x", deb, root]).returncode != 0:
            raise runner.Skip(f"dpkg-deb -x {deb} failed")
        for release in os.listdir(os.path.join(root, "lib", "modules")) if "linux-image" in name else []:
            depmod = runner.run(["depmod", "-b", root, release])
            if depmod.returncode != 0:
                raise runner.Skip(f"depmod: {depmod.stderr.strip()}")
        open(os.path.join(root, ".unpacked"), "w").close()
    return root


def libraries(enbeacon: str, also: tuple[str, ...] = ()) -> dict[str, str]:
    """Guest path -> host file: the loader and every library the agent needs (readelf's NEEDED, closed
    over), from the cross glibc and the board build's arm64 sysroot; `also` names libraries to add with theirs
    (one the agent loads with dlopen, such as libcurl, which its NEEDED does not name)."""
    sysroot = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(enbeacon))), "sysroot-arm64")
    search = ["/usr/aarch64-linux-gnu/lib", f"{sysroot}/usr/lib/aarch64-linux-gnu", f"{sysroot}/lib/aarch64-linux-gnu"]
    found: dict[str, str] = {"/lib/ld-linux-aarch64.so.1": "/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1"}
    pending = [enbeacon]
    for name in also:
        path = next((os.path.join(d, name) for d in search if os.path.exists(os.path.join(d, name))), None)
        if path is None:
            raise guest_cases.CaseSkip(f"{name} is in none of {', '.join(search)}")
        found[f"/lib/{name}"] = os.path.realpath(path)
        pending.append(path)
    while pending:
        dynamic = subprocess.run(["readelf", "-d", pending.pop()], capture_output=True, text=True).stdout
        for line in dynamic.splitlines():
            if "(NEEDED)" not in line:
                continue
            name = line.split("[", 1)[1].rstrip("]")
            if f"/lib/{name}" in found:
                continue
            path = next((os.path.join(d, name) for d in search if os.path.exists(os.path.join(d, name))), None)
            if path is None:
                raise guest_cases.CaseSkip(f"{name} (needed by the agent) is in none of {', '.join(search)}")
            found[f"/lib/{name}"] = os.path.realpath(path)
            pending.append(path)
    return found


INIT = """#!/bin/busybox sh
# The arm64 guest (Tools/vm/arm64_vm.py): modules, the work folder, then a shell on the command port.
/bin/busybox --install -s /bin
export PATH=/bin LD_LIBRARY_PATH=/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o mode=1777 tmp /tmp
for m in {modules}; do insmod /modules/$m || echo "initramfs: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 work {work} || echo "initramfs: cannot mount the work folder"
mount -t ext4 -o ro /dev/vda {board} && mount -o bind {board}/lib /lib || echo "initramfs: cannot mount the board disk"
# virtio_console adds its ports as the host announces them, after the module has loaded: wait for both.
port() {{ for p in /sys/class/virtio-ports/*; do [ "$(cat $p/name 2>/dev/null)" = "$1" ] && basename $p; done; }}
n=0
until [ -n "$(port command)" ] && [ -n "$(port h4)" ] && [ -e /dev/hvc0 ]; do
    n=$((n + 1)); [ $n -gt 3000 ] && {{ echo "initramfs: no virtio ports"; poweroff -f; }}
    usleep 10000
done
exec 3<>/dev/$(port command)
echo "@@guest-ready $(uname -r) $(uname -m)"
exec sh <&3 >&3 2>&3
"""


def build_board_disk(runner, path: str, enbeacon: str) -> None:
    """A read-only ext4 image: enbeacon and lib/ (its loader and libraries), made without mounting (mke2fs -d)."""
    tree = path + ".tree"
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.join(tree, "lib"))
    shutil.copy(enbeacon, os.path.join(tree, "enbeacon"))
    for guest_path, source in libraries(enbeacon).items():
        shutil.copy(source, os.path.join(tree, guest_path.lstrip("/")))
    if os.path.exists(path):
        os.unlink(path)
    made = runner.run(["mkfs.ext4", "-q", "-F", "-L", "board", "-d", tree, path, "32M"])
    shutil.rmtree(tree, ignore_errors=True)
    if made.returncode != 0:
        raise runner.Skip(f"mkfs.ext4 -d: {made.stderr.strip()[:300]}")


def build_initramfs(runner, path: str, kernel_root: str, release: str, busybox: str, tools: dict[str, str],
                    init: str = INIT) -> None:
    archive = runner.Cpio()
    for directory in ["bin", "dev", "proc", "sys", "tmp", "lib", "modules", GUEST_WORK.strip("/"),
                      GUEST_BOARD.strip("/")]:
        archive.directory(directory)
    archive.character_device("dev/console", 5, 1)
    with open(busybox, "rb") as f:
        archive.file("bin/busybox", f.read())
    for name, source in tools.items():
        with open(source, "rb") as f:
            archive.file(f"bin/{name}", f.read())
    names = []
    for module in runner.module_dependencies(kernel_root, release, MODULES):
        names.append(os.path.basename(module))
        with open(module, "rb") as f:
            archive.file(f"modules/{names[-1]}", f.read(), 0o644)
    archive.file("init", init.format(modules=" ".join(names), work=GUEST_WORK, board=GUEST_BOARD).encode())
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(archive.finish())


# --- the running VM ----------------------------------------------------------------------------------

class Vm:
    """qemu-system-aarch64 with its console streamed to a log, and the shell on the command port."""

    def __init__(self, kernel: str, initrd: str, disk: str, work: str, log_path: str, timeout: float,
                 writable_disk: bool = False) -> None:
        self.sockets = {name: os.path.join(work, f"{name}.sock") for name in ("command", "h4", "ttyS0")}
        for path in self.sockets.values():
            if os.path.exists(path):
                os.unlink(path)
        command = [
            "nice", "-n", "10", "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-accel", "tcg",
            "-smp", "1", "-m", "512M", "-nographic", "-no-reboot", "-nic", "none", "-monitor", "none",
            "-kernel", kernel, "-initrd", initrd, "-append", "console=ttyAMA0 panic=-1 loglevel=4",
            "-virtfs", f"local,path={work},mount_tag=work,security_model=none",
            # A root disk is written through a snapshot: the image on the host stays as it was built.
            "-drive", f"file={disk},if=none,format=raw,id=board," + ("snapshot=on" if writable_disk else "readonly=on"),
            "-device", "virtio-blk-pci,drive=board",
            "-device", "virtio-serial-pci",
            # hvc0: the UART the guest's hci_uart speaks H4 on, Bumble's C0 at the host end.
            "-chardev", f"socket,id=h4,path={self.sockets['h4']},server=on,wait=off",
            "-device", "virtconsole,chardev=h4,name=h4",
            "-chardev", f"socket,id=command,path={self.sockets['command']},server=on,wait=off",
            "-device", "virtserialport,chardev=command,name=command",
            # ttyS0: a 16550 on PCI (8250_pci), the serial console under test, typed at from the host.
            "-chardev", f"socket,id=ttytest,path={self.sockets['ttyS0']},server=on,wait=off",
            "-device", "pci-serial,chardev=ttytest",
            "-serial", "stdio",
        ]
        self.log = open(log_path, "w")
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT)
        self.timer = threading.Timer(timeout, self.process.kill)
        self.timer.start()
        self.ready = threading.Event()
        self.lines: list[str] = []
        threading.Thread(target=self._console, daemon=True).start()
        self.shell: GuestShell | None = None
        # Module name -> itself and what it needs, in load order (set by main from modules.dep).
        self.module_order: dict[str, list[str]] = {}

    def _console(self) -> None:
        for raw in self.process.stdout:
            line = raw.decode(errors="replace").rstrip("\r\n")
            self.log.write(line + "\n")
            self.log.flush()
            self.lines.append(line)
            if line.startswith("@@guest-ready"):
                self.ready.set()
            elif line.startswith("initramfs:"):
                guest_cases.say(f"vm: {line}")
        self.ready.set()

    def wait_ready(self, timeout: float) -> str:
        if not self.ready.wait(timeout) or self.process.poll() is not None:
            raise CaseFailure(f"the guest did not come up within {timeout:.0f} s (console: {self.log.name})")
        line = next(line for line in self.lines if line.startswith("@@guest-ready"))
        self.shell = GuestShell(self.sockets["command"])
        return line.split(" ", 1)[1]

    def stop(self) -> float:
        if self.process.poll() is None and self.shell is not None:
            try:
                self.shell.send("poweroff -f")
            except OSError:
                pass
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.timer.cancel()
        self.log.close()
        return time.monotonic() - self.started


class GuestShell:
    """busybox sh on the guest's command port: one command at a time, its stdout and exit status back."""

    def __init__(self, path: str) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.reader = self.socket.makefile("r", encoding="utf-8", errors="replace")
        self.lock = threading.Lock()
        self.counter = 0

    def send(self, line: str) -> None:
        self.socket.sendall(line.encode() + b"\n")

    def run(self, command: str, timeout: float = 30) -> tuple[int, str]:
        with self.lock:
            self.counter += 1
            marker = f"@@done-{self.counter}"
            # stdin from /dev/null: a command must not read the shell's own input; stderr into the work folder.
            self.send(f"{{ {command}\n}} </dev/null 2>>{GUEST_WORK}/shell-stderr.log; echo \"{marker} $?\"")
            self.socket.settimeout(timeout)
            output = []
            try:
                for line in self.reader:
                    if line.startswith(marker + " "):
                        return int(line.split()[1]), "".join(output)
                    output.append(line)
            except socket.timeout:
                raise CaseFailure(f"the guest's shell did not finish {command!r} within {timeout:.0f} s")
            raise CaseFailure("the guest's shell went away")

    def check(self, command: str, timeout: float = 30) -> str:
        status, output = self.run(command, timeout)
        if status != 0:
            raise CaseFailure(f"in the guest, {command!r} exited {status}: {output.strip()[:300]}")
        return output


class GuestProcess:
    """A process in the guest with subprocess.Popen's poll/wait/send_signal/kill: its pid and exit status are
    written to files of the guest's work folder, read back with `read` (a guest path to its text, "" while it
    is absent): here the host reads the shared folder directly; a guest sharing no folder reads through its
    shell (raspi3)."""

    counter = 0

    def __init__(self, shell: "GuestShell", command: list[str], stderr_name: str,
                 read: Callable[[str], str], step: float = 0.05) -> None:
        GuestProcess.counter += 1
        self.shell = shell
        self.read = read
        self.step = step
        name = f"{GUEST_WORK}/process-{GuestProcess.counter:02d}"
        self.status_path = f"{name}.status"
        inner = f"echo $$ > {name}.pid; exec {' '.join(shlex.quote(word) for word in command)}"
        # The status goes in under its final name only once written: the host never reads half of it.
        shell.check(f"( sh -c {shlex.quote(inner)} >/dev/null 2>{GUEST_WORK}/{stderr_name}; "
                    f"echo $? > {self.status_path}.new; mv {self.status_path}.new {self.status_path} ) >/dev/null 2>&1 &")
        self.pid = int(wait_until(lambda: read(f"{name}.pid").strip(), 30, f"{command[0]} to start", step=step))
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            text = self.read(self.status_path).strip()
            if text:
                status = int(text)
                # The shell says 128+N for a process ended by signal N; Popen says -N.
                self.returncode = -(status - 128) if status > 128 else status
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"guest pid {self.pid}", timeout)
            time.sleep(self.step)
        return self.returncode

    def send_signal(self, number: int) -> None:
        if self.poll() is None:
            self.shell.run(f"kill -{int(number)} {self.pid}")

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def read_text(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


class GuestAgent(guest_cases.AgentProcess):
    """`enbeacon run` in the guest; its log in the work folder (read on the host, as on amd64)."""

    def __init__(self, guest: "Arm64Guest", name: str, extra: list[str], data: str | None = None,
                 user: int | None = None, console_from_board: bool = False) -> None:
        self.guest = guest
        self.data = data or guest.fresh_directory(name, owner=user)
        log_name = f"enbeacon-{guest.counter:02d}-{name}.log"
        self.log_path = os.path.join(guest.work, log_name)
        console = [] if console_from_board else ["--console", "none"]
        command = [guest.enbeacon, "run", "--data", self.data, "--log", "debug"] + console + extra
        if user is not None:
            # Another user, without any capability: what a badge started by hand as a normal user has.
            command = ["/bin/vm_tools", "drop-to", str(user)] + command
        self.process = GuestProcess(guest.shell, command, log_name, guest.read_work)


class Arm64Guest(guest_cases.Guest):
    """guest_cases.Guest for the arm64 VM: processes, files and `enbeacon` run in the guest; the rig on the host."""

    def __init__(self, vm: Vm, work: str, python: str) -> None:
        self.vm = vm
        self.shell = vm.shell
        self.enbeacon = f"{GUEST_BOARD}/enbeacon"
        self.work = work
        self.python = python
        self.processes = []
        self.counter = 0
        self.shared_rig = None

    def read_work(self, guest_path: str) -> str:
        """A file of the guest's work folder, read on the host through the shared folder; "" while absent."""
        return read_text(os.path.join(self.work, os.path.relpath(guest_path, GUEST_WORK)))

    def fresh_directory(self, name: str, owner: int | None = None) -> str:
        self.counter += 1
        path = f"/tmp/{self.counter:02d}-{name}"
        self.shell.check(f"mkdir -m 700 {path}" + (f" && chown {owner}:{owner} {path}" if owner is not None else ""))
        return path

    # kernel modules: insmod and rmmod of the initramfs's copies (busybox's modprobe has no modules.dep here);
    # what they depend on was loaded at boot and stays
    def modprobe(self, *names: str, remove: bool = False) -> None:
        for name in names:
            if remove and self.loaded(name):
                # What uses it goes first (bluetooth is held by hci_uart's vendor helpers, btqca, btrtl, ...).
                for holder in self.list_dir(f"/sys/module/{name}/holders"):
                    self.modprobe(holder, remove=True)
                self.shell.check(f"rmmod {name}")
            elif not remove:
                for module in self.vm.module_order[name]:
                    if not self.loaded(module):
                        self.shell.check(f"insmod /modules/{module}.ko")

    def loaded(self, name: str) -> bool:
        return self.shell.run(f"test -d /sys/module/{name}")[0] == 0

    def unload_bluetooth(self) -> None:
        self.unplug()
        self.modprobe("hci_uart", "bluetooth", remove=True)

    def list_dir(self, path: str) -> list[str]:
        return self.shell.check(f"ls {shlex.quote(path)}").split()

    def read_text(self, path: str) -> str:
        return self.shell.check(f"cat {shlex.quote(path)}")

    def write_text(self, path: str, text: str) -> None:
        self.shell.check(f"printf %s {shlex.quote(text)} > {shlex.quote(path)}")

    def serial_console_ready(self) -> None:
        threading.Thread(target=serial_typist.session, args=(self.vm.sockets["ttyS0"], self.work), daemon=True).start()

    def power_on_by_bluez(self, index: int) -> str:
        # No BlueZ in the guest: vm_tools sends the management interface's Set Powered, as btmgmt does.
        return self.shell.run(f"vm_tools power-on {index} 2>&1", 30)[1]

    def rig(self) -> "UartRig":
        self.modprobe("hci_uart")
        if self.shared_rig is None or self.shared_rig.process.poll() is not None:
            self.shared_rig = UartRig(self)
        elif not self.shared_rig.plugged:
            self.shared_rig.plug()
        return self.shared_rig

    def unplug(self) -> None:
        if self.shared_rig is not None and self.shared_rig.process.poll() is None and self.shared_rig.plugged:
            self.shared_rig.unplug()

    def agent(self, name: str, extra: list[str], **kwargs) -> GuestAgent:
        agent = GuestAgent(self, name, extra, data=kwargs.get("data"), user=kwargs.get("user"),
                           console_from_board=kwargs.get("console_from_board", False))
        self.processes.append(agent.process)
        return agent

    def enbeacon_output(self, *words: str) -> str:
        return self.shell.check(" ".join(shlex.quote(word) for word in [self.enbeacon, *words]), timeout=60)

    def ctl(self, data: str, *words: str, timeout: float = 20) -> str:
        command = " ".join(shlex.quote(word) for word in [self.enbeacon, "ctl", "--data", data, *words])
        status, output = self.shell.run(command, timeout)
        if status != 0:
            raise CaseFailure(f"enbeacon ctl {' '.join(words)}: exit {status}: {output.strip()[:300]}")
        return output


class UartRig(guest_cases.Rig):
    """bumble_vhci.py on the host with C0 on the guest's H4 UART; plugging in is h4_attach in the guest."""

    def __init__(self, guest: Arm64Guest) -> None:
        self.guest = guest
        self.peer_rpi = os.urandom(16)
        self.log_path = os.path.join(guest.work, "rig.log")
        self.process = subprocess.Popen(
            [guest.python, os.path.join(guest_cases.HERE, "bumble_vhci.py"), "--rpi", self.peer_rpi.hex(),
             "--h4-socket", guest.vm.sockets["h4"]],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.log_path, "w"), text=True, bufsize=1)
        self.events = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        started = time.monotonic()
        ready = self.wait_event(lambda e: e["event"] == "ready", 90, "the Bumble controller on the H4 socket")
        self.peer_address = ready["peer_address"]
        self.attach_process: GuestProcess | None = None
        self.index = self.attach()
        guest_cases.say(f"  (Bumble rig up in {time.monotonic() - started:.1f} s: hci{self.index} in the guest "
                        f"(hci_uart), peer {self.peer_address})")
        self.plugged = True

    def attach(self) -> int:
        """The guest's kernel takes the UART as hciN (h4_attach prints `hciN` once it is registered)."""
        self.attach_process = GuestProcess(self.guest.shell, ["/bin/h4_attach", "/dev/hvc0"], "h4_attach.log",
                                           self.guest.read_work)
        # h4_attach's stdout goes to /dev/null in GuestProcess: ask the guest's kernel which adapter it is.
        def registered():
            if self.attach_process.poll() is not None:
                raise CaseFailure(f"h4_attach exited {self.attach_process.returncode}: "
                                  + guest_cases.tail(os.path.join(self.guest.work, "h4_attach.log")))
            return self.guest.shell.run("ls /sys/class/bluetooth")[1].split()
        name = wait_until(registered, 20, "the guest's kernel to register the UART's adapter", step=0.1)
        return int(name[0][3:])

    def detach(self) -> None:
        if self.attach_process is None:
            return
        self.attach_process.send_signal(signal.SIGTERM)
        status = self.attach_process.wait(20)
        self.attach_process = None
        if status != 0:
            log = os.path.join(self.guest.work, "h4_attach.log")
            raise CaseFailure(f"h4_attach exited {status}: {guest_cases.tail(log)}")
        wait_until(lambda: not self.guest.shell.run("ls /sys/class/bluetooth")[1].split(), 20,
                   "the guest's kernel to remove the adapter", step=0.1)

    def unplug(self) -> dict:
        self.detach()
        since = time.monotonic()
        self.send("vanish")
        self.plugged = False
        return self.wait_event(lambda e: e["event"] == "vanished" and e["t"] >= since, 10, "C0 to leave the line")

    def plug(self) -> dict:
        since = time.monotonic()
        self.send("return")
        self.wait_event(lambda e: e["event"] == "returned" and e["t"] >= since, 20, "a fresh C0 on the line")
        # The adapter is back from the moment the guest starts attaching: the clock of "advertising again" runs
        # from here, attaching included.
        back = time.monotonic()
        self.index = self.attach()
        self.plugged = True
        return {"event": "returned", "index": self.index, "t": back}

    def stop(self) -> None:
        super().stop()


CASE_FUNCTIONS = {
    "advertise-scan": guest_cases.case_advertise_scan,
    "user-channel-errors": guest_cases.case_user_channel_errors,
    "controller-return": guest_cases.case_controller_return,
    "clean-stop": guest_cases.case_clean_stop,
    "serial-console": guest_cases.case_serial_console,
    "idle-memory": guest_cases.case_idle_memory,
}


def main(runner, args, cases: list[str]) -> int:
    """Runs `cases` in one arm64 boot; prints PASS/FAIL/SKIP lines and the summary; returns the exit status."""
    say = runner.say
    started = time.monotonic()
    try:
        if os.geteuid() != 0:
            raise runner.Skip("needs root (apt-get download, and QEMU's 9p export)")
        if shutil.which("qemu-system-aarch64") is None and not args.no_install and shutil.which("apt-get"):
            say("vm: installing qemu-system-arm (apt-get)")
            runner.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "qemu-system-arm"],
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        for tool, package in [("qemu-system-aarch64", "qemu-system-arm"), ("readelf", "binutils"),
                              ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"), ("depmod", "kmod"),
                              ("mkfs.ext4", "e2fsprogs")]:
            if shutil.which(tool) is None:
                raise runner.Skip(f"missing {tool} ({package})")
        if not args.enbeacon or not os.access(args.enbeacon, os.X_OK):
            raise runner.Skip("--arch aarch64 needs --enbeacon PATH: the board build's agent "
                              "(.build/board/aarch64/enbeacon.stripped, Tools/build-board aarch64)")
        enbeacon = os.path.abspath(args.enbeacon)
        kernel_root = unpacked(runner, fetch_arm64(runner, KERNEL_PACKAGE, KERNEL_VERSION),
                               f"{KERNEL_PACKAGE}_{KERNEL_VERSION}")
        busybox_root = unpacked(runner, fetch_arm64(runner, BUSYBOX_PACKAGE, None), "busybox-static-arm64")
        python = runner.python_with_bumble()
    except runner.Skip as skip:
        say(f"SKIP vm: {skip}")
        return runner.EXIT_SKIP_REQUIRED if os.environ.get("ENBEACON_VM_REQUIRED") == "1" else 0
    release = os.listdir(os.path.join(kernel_root, "lib", "modules"))[0]
    say(f"vm: kernel {KERNEL_PACKAGE}={KERNEL_VERSION} ({release}, qemu-system-aarch64 -M virt), enbeacon {enbeacon}")

    work = os.path.join(runner.CACHE, "run-aarch64")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tools = {}
    for name in ("h4_attach", "vm_tools"):
        tools[name] = os.path.join(work, name)
        built = runner.run(["aarch64-linux-gnu-gcc", "-O2", "-Wall", "-static", "-o", tools[name],
                            os.path.join(runner.HERE, f"{name}.c")])
        if built.returncode != 0:
            say(f"FAIL vm: cannot build {name}: {built.stderr.strip()[:300]}")
            return 1
    h4_attach = tools["h4_attach"]
    initrd = os.path.join(runner.CACHE, "initrd-aarch64.gz")
    build_initramfs(runner, initrd, kernel_root, release, os.path.join(busybox_root, "bin", "busybox"), tools)
    disk = os.path.join(work, "board.ext4")
    try:
        build_board_disk(runner, disk, enbeacon)
    except runner.Skip as skip:
        say(f"FAIL vm: {skip}")
        return 1

    results: list[str] = []
    selected = [case for case in cases if case in CASE_FUNCTIONS]
    for case in cases:
        if case not in CASE_FUNCTIONS and case != "systemd-unit":
            line = f"SKIP {case}: {NOT_YET.get(case, 'no arm64 form')}"
            say(line)
            results.append(line)
    boots = []
    if selected:
        boots.append(("busybox", selected, initrd, disk, False))
    if "systemd-unit" in cases:
        import arm64_systemd
        CASE_FUNCTIONS["systemd-unit"] = arm64_systemd.case_systemd_unit
        systemd_initrd = os.path.join(runner.CACHE, "initrd-aarch64-systemd.gz")
        build_initramfs(runner, systemd_initrd, kernel_root, release, os.path.join(busybox_root, "bin", "busybox"),
                        tools, init=arm64_systemd.INIT)
        root_disk = os.path.join(work, "root.ext4")
        try:
            arm64_systemd.build_root_disk(runner, root_disk, enbeacon, os.path.join(busybox_root, "bin", "busybox"),
                                          h4_attach, libraries(enbeacon), GUEST_WORK)
            boots.append(("systemd", ["systemd-unit"], systemd_initrd, root_disk, True))
        except runner.Skip as skip:
            line = f"SKIP systemd-unit: {skip}"
            say(line)
            results.append(line)
    timings = []
    for boot_name, selected, boot_initrd, boot_disk, writable in boots:
        vm = Vm(os.path.join(kernel_root, "boot", f"vmlinuz-{release}"), boot_initrd, boot_disk, work,
                os.path.join(work, f"console-{boot_name}.log"), args.timeout, writable_disk=writable)
        try:
            guest_line = vm.wait_ready(240)
            say(f"vm: {boot_name} guest up in {time.monotonic() - vm.started:.1f} s: {guest_line}")
            vm.module_order = {name: [os.path.basename(path)[:-len(".ko")]
                                      for path in runner.module_dependencies(kernel_root, release, [name])]
                               for name in ("bluetooth", "hci_uart")}
            guest = Arm64Guest(vm, work, python)
            for name in selected:
                case_started = time.monotonic()
                try:
                    detail = CASE_FUNCTIONS[name](guest)
                    line = f"PASS {name} ({time.monotonic() - case_started:.1f} s): {detail}"
                except guest_cases.CaseSkip as skip:
                    line = f"SKIP {name}: {skip}"
                except CaseFailure as failure:
                    line = f"FAIL {name} ({time.monotonic() - case_started:.1f} s): {failure}"
                except Exception as error:  # a bug in the case itself still fails only that case
                    line = f"FAIL {name} ({time.monotonic() - case_started:.1f} s): {type(error).__name__}: {error}"
                finally:
                    guest.cleanup()
                say(line)
                results.append(line)
            if guest.shared_rig is not None:
                guest.shared_rig.stop()
        except CaseFailure as failure:
            reported = {line.split()[1] for line in results}
            for name in selected:
                if name not in reported:
                    line = f"FAIL {name}: {failure}"
                    say(line)
                    results.append(line)
        finally:
            timings.append(f"{boot_name} boot {vm.stop():.0f} s")

    failed = sum(1 for line in results if line.startswith("FAIL"))
    passed = sum(1 for line in results if line.startswith("PASS"))
    skipped = sum(1 for line in results if line.startswith("SKIP"))
    say(f"vm: aarch64 {', '.join(timings)}; total {time.monotonic() - started:.0f} s; "
        f"logs in {os.path.relpath(work, runner.REPO)}")
    say(f"vm: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    if failed:
        return 1
    return runner.EXIT_SKIP_REQUIRED if skipped and os.environ.get("ENBEACON_VM_REQUIRED") == "1" else 0
