"""The emulated Raspberry Pi 3 of Tools/vm/raspi3: `qemu-system-aarch64 -M raspi3b` with Debian 12's arm64 kernel,
the test DTB, the BCM43430 stand-in on the PL011 and a shell on the mini-UART.

What differs from the arm64 VM (arm64_vm.py, `-M virt`), whose fetching, unpacking, library closure and guest
shell this reuses: the raspi3b machine has no virtio and no PCI, so
  - the Bluetooth controller is the kernel's own hci_uart Broadcom driver on the PL011 (`ttyAMA0`, serdev
    `serial0`, QEMU's first -serial), probed from the DTB's bluetooth node as on a real Pi 3; the host end is
    Tools/interop/bcm43430_controller.py on TCP;
  - the mini-UART (`ttyS1`, QEMU's second -serial, the Pi's GPIO serial port) is the kernel's console and then
    a busybox shell the host drives (arm64_vm.GuestShell over a Unix socket), the only way in;
  - files come back through that shell (`cat`), not a shared folder.
See docs/raspi3-emulation.md for what the emulation proves and what it leaves unproven.
"""

import gzip
import json
import os
import shutil
import socket
import sys
import subprocess
import threading
import time

import arm64_vm
import guest_cases
from guest_cases import CaseFailure, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
INTEROP = os.path.join(os.path.dirname(HERE), "interop")
DTB_NAME = "bcm2837-rpi-3-b.dtb"
BLUETOOTH_NODE = "/soc/serial@7e201000/bluetooth"
# Loaded by the initramfs, dependencies first: the Pi 3's Bluetooth driver (hci_uart with its Broadcom
# part, btbcm) — it probes serial0-0 as soon as it is loaded — and the SD host drivers (sdhost and the
# Arasan sdhci-iproc) with ext4 and vfat, for the card.
MODULES = ["hci_uart", "btbcm", "bcm2835", "sdhci_iproc", "ext4", "vfat", "nls_cp437", "nls_ascii"]
GUEST_WORK = arm64_vm.GUEST_WORK


# The SoC GPIO line the test DTB powers the Bluetooth chip with: 28, which has no name in the Pi 3 B's DTB (wired to
# nothing on that board) and which QEMU's bcm2835_gpio models.
SOC_GPIO_NODE = "/soc/gpio@7e200000"
BLUETOOTH_POWER_LINE = 28


def test_dtb(runner, kernel_root: str, release: str, work: str) -> str:
    """The kernel package's bcm2837-rpi-3-b.dtb with the bluetooth node's `shutdown-gpios` on a SoC GPIO line.

    On a Pi 3 that property names line 0 (BT_ON) of the GPIO expander behind the VideoCore firmware's mailbox
    (raspberrypi,firmware-gpio), which QEMU does not model: the line cannot be had, and hci_uart's Broadcom
    driver fails its probe (-5) before sending one byte. Deleting the property lets it probe, but then the
    driver has "No reset resource, using default baud rate" and skips the switch to the node's max-speed
    (0xFC18), which a Pi does. On a line of the SoC's own GPIO controller, which QEMU models, the driver powers
    the chip on and off and changes the baud rate exactly as on a Pi. Changed with fdtput (device-tree-compiler)."""
    source = os.path.join(kernel_root, "usr", "lib", f"linux-image-{release}", "broadcom", DTB_NAME)
    if not os.path.exists(source):
        raise runner.Skip(f"no {DTB_NAME} in the kernel package")
    if shutil.which("fdtput") is None:
        raise runner.Skip("missing fdtput (device-tree-compiler)")
    path = os.path.join(work, "bcm2837-rpi-3-b-test.dtb")
    shutil.copy(source, path)
    phandle = runner.run(["fdtget", "-t", "u", path, SOC_GPIO_NODE, "phandle"])
    if phandle.returncode != 0:
        raise runner.Skip(f"fdtget {SOC_GPIO_NODE} phandle: {phandle.stderr.strip()}")
    changed = runner.run(["fdtput", "-t", "u", path, BLUETOOTH_NODE, "shutdown-gpios", phandle.stdout.strip(),
                          str(BLUETOOTH_POWER_LINE), "0"])
    if changed.returncode != 0:
        raise runner.Skip(f"fdtput {BLUETOOTH_NODE} shutdown-gpios: {changed.stderr.strip()}")
    return path


def synthetic_patch() -> bytes:
    """A brcm/BCM43430A1.hcd for the initramfs, so that the driver takes the path a Pi with Debian's Broadcom
    Bluetooth firmware takes: Download Minidriver, the file's commands, Launch RAM, the set-up again, the baud
    rate. The .hcd format is HCI commands back to back (opcode, length, parameters, no packet type); this one
    writes 16 bytes twice (0xFC4C Write RAM: address, data) and launches (0xFC4E Launch RAM: 0xFFFFFFFF). Its
    content means nothing to the stand-in, which only answers; the real file is Broadcom's, not ours to ship."""
    def command(opcode: int, parameters: bytes) -> bytes:
        return opcode.to_bytes(2, "little") + bytes([len(parameters)]) + parameters
    return (command(0xFC4C, (0x00085D00).to_bytes(4, "little") + bytes(range(16)))
            + command(0xFC4C, (0x00085D10).to_bytes(4, "little") + bytes(range(16, 32)))
            + command(0xFC4E, (0xFFFFFFFF).to_bytes(4, "little")))


INIT = """#!/bin/busybox sh
# The emulated Pi 3's initramfs (Tools/vm/raspi3_machine.py): modules, then a shell on the mini-UART.
/bin/busybox --install -s /bin
export PATH=/bin LD_LIBRARY_PATH=/lib
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o mode=1777 tmp /tmp
mkdir -p {work} && mount -t tmpfs work {work}
for m in {modules}; do insmod /modules/$m || echo "initramfs: insmod $m failed"; done
# The shell shares the console: from here only the kernel's emergencies interleave with it. No echo, and
# its output a pipe, so that busybox sh is not interactive (no prompt, no line editing): the host reads
# exactly what the commands print.
dmesg -n 1
stty -F /dev/ttyS1 -echo -onlcr
echo "@@guest-ready $(uname -r) $(tr -d '\\0' </proc/device-tree/model)" >/dev/ttyS1
sh </dev/ttyS1 2>>{work}/shell-stderr.log | cat >/dev/ttyS1
poweroff -f
"""


def build_initramfs(runner, path: str, kernel_root: str, release: str, busybox: str, enbeacon: str | None) -> None:
    """busybox, the modules, a patch file for the Bluetooth chip (synthetic_patch) and (when given) the agent
    with its loader and libraries under /board and /lib."""
    archive = runner.Cpio()
    for directory in ["bin", "dev", "proc", "sys", "tmp", "lib", "lib/firmware", "lib/firmware/brcm", "modules",
                      "board", GUEST_WORK.strip("/")]:
        archive.directory(directory)
    archive.file("lib/firmware/brcm/BCM43430A1.hcd", synthetic_patch(), 0o644)
    archive.character_device("dev/console", 5, 1)
    with open(busybox, "rb") as f:
        archive.file("bin/busybox", f.read())
    if enbeacon is not None:
        with open(enbeacon, "rb") as f:
            archive.file("board/enbeacon", f.read())
        for guest_path, source in arm64_vm.libraries(enbeacon).items():
            with open(source, "rb") as f:
                archive.file(guest_path.lstrip("/"), f.read())
    names = []
    for module in runner.module_dependencies(kernel_root, release, MODULES):
        names.append(os.path.basename(module))
        with open(module, "rb") as f:
            archive.file(f"modules/{names[-1]}", f.read(), 0o644)
    archive.file("init", INIT.format(modules=" ".join(names), work=GUEST_WORK).encode())
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(archive.finish())


class Controllers:
    """Tools/interop/bcm43430_controller.py: the BCM43430 stand-in (port 0, for the PL011) and a second
    controller on its virtual radio (port 1, for the peer)."""

    def __init__(self, python: str, log_path: str) -> None:
        self.log_path = log_path
        self.process = subprocess.Popen(
            [python, os.path.join(INTEROP, "bcm43430_controller.py"), "--count", "2"],
            stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True)
        line = self.process.stdout.readline()
        if not line:
            raise CaseFailure("bcm43430_controller.py exited: " + guest_cases.tail(log_path))
        self.ports = json.loads(line)["ports"]

    def vendor_commands(self) -> list[str]:
        """The vendor opcodes the kernel sent, in order (the stand-in logs each one)."""
        with open(self.log_path, errors="replace") as f:
            return [line.split()[1] for line in f if line.startswith("bcm43430: ")]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class Peer:
    """Tools/interop/bumble_peer.py on the second controller: advertises its own RPI and reports what it
    hears; guest_cases.Rig's `reports`/`peer_rpi` shape, so that the shared cases can use it."""

    def __init__(self, python: str, port: int, log_path: str, seconds: float) -> None:
        self.peer_rpi = os.urandom(16)
        self.log_path = log_path
        self.process = subprocess.Popen(
            [python, os.path.join(INTEROP, "bumble_peer.py"), "--transport", f"tcp-client:127.0.0.1:{port}",
             "--rpi", self.peer_rpi.hex(), "--aem", "40080000", "--seconds", str(seconds)],
            stdout=subprocess.PIPE, stderr=open(log_path, "w"), text=True, bufsize=1)
        self.events: list[dict] = []
        self.lock = threading.Lock()
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self.ready.wait(90):
            raise CaseFailure("the Bumble peer did not start: " + guest_cases.tail(log_path))

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                report = json.loads(line)
            except ValueError:
                continue
            if report.get("ready"):
                self.address = report["address"]
                self.ready.set()
            elif guest_cases.gaen_fields(report["data"]) is not None:
                # Reports carry the peer's Unix time; the cases compare with time.monotonic().
                event = {"event": "report", "address": report["address"], "data": report["data"],
                         "t": time.monotonic() - (time.time() - report["time"])}
                with self.lock:
                    self.events.append(event)
        self.ready.set()

    def reports(self, since: float = 0.0) -> list[dict]:
        with self.lock:
            return [e for e in self.events if e["t"] >= since]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


# Where the guest finds the host's key server on the user network (guestfwd).
KEY_SERVER_ADDRESS = "10.0.2.100:8000"


class Machine:
    """One boot of qemu-system-aarch64 -M raspi3b; the mini-UART's shell once the guest is up."""

    def __init__(self, kernel: str, dtb: str, bluetooth_port: int, work: str, log_path: str, timeout: float,
                 initrd: str | None = None, sd_image: str | None = None, append: str = "", shell: bool = True,
                 key_server_port: int | None = None) -> None:
        """`shell`: the initramfs's busybox shell answers on the mini-UART (else the caller connects to
        `mini_uart` itself: the image's agent REPL). `key_server_port`: a USB Ethernet adapter on the dwc2 port
        (-M raspi3b models no LAN9514), on QEMU's user network with nothing reachable but the host's key server
        on that port, as http://KEY_SERVER_ADDRESS/ for the guest."""
        # One socket a machine: cases may run side by side (Tools/vm/raspi3 --jobs).
        self.mini_uart = os.path.join(work, os.path.splitext(os.path.basename(log_path))[0] + ".sock")
        if os.path.exists(self.mini_uart):
            os.unlink(self.mini_uart)
        command = [
            "nice", "-n", "10", "qemu-system-aarch64", "-M", "raspi3b", "-m", "1G", "-accel", "tcg",
            "-display", "none", "-no-reboot", "-monitor", "none",
            "-kernel", kernel, "-dtb", dtb,
            # The PL011, ttyAMA0: the Bluetooth chip's UART, the BCM43430 stand-in at the other end.
            "-serial", f"tcp:127.0.0.1:{bluetooth_port}",
            # The mini-UART, ttyS1: the GPIO header's serial port. QEMU waits for the host to connect, so that
            # not a byte of the boot is lost.
            "-chardev", f"socket,id=mini,path={self.mini_uart},server=on,wait=on",
            "-serial", "chardev:mini",
        ]
        if initrd is not None:
            # A kernel and initramfs given directly; U-Boot (an image's) takes its command line from boot.scr.
            command += ["-initrd", initrd, "-append", f"console=ttyS1,115200 panic=-1 loglevel=6 {append}".strip()]
        if sd_image is not None:
            command += ["-drive", f"if=sd,format=raw,file={sd_image}"]
        self.qmp = None
        if key_server_port is not None:
            # restrict=on: no way out of the user network; guestfwd: the one address that leads to the host. The
            # adapter itself is plugged in once the kernel runs (plug_ethernet): present at power-on, U-Boot's
            # `usb start` takes it, and Linux's dwc2 then found the port "Not connected" at every try.
            self.qmp = os.path.join(work, os.path.splitext(os.path.basename(log_path))[0] + ".qmp")
            # The `cmd:` form: one bridge per connection (stdio_to_tcp.py says why not `tcp:`).
            bridge = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stdio_to_tcp.py")
            command += ["-netdev", f"user,id=wired,restrict=on,guestfwd=tcp:{KEY_SERVER_ADDRESS}-"
                                   f"cmd:{sys.executable} {bridge} {key_server_port}",
                        "-qmp", f"unix:{self.qmp},server=on,wait=off"]
        self.log = open(log_path, "w")
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        self.timer = threading.Timer(timeout, self.process.kill)
        self.timer.start()
        self.shell: arm64_vm.GuestShell | None = None
        wait_until(lambda: os.path.exists(self.mini_uart) or self.process.poll() is not None, 30,
                   "QEMU's mini-UART socket")
        if self.process.poll() is not None:
            raise CaseFailure(f"qemu-system-aarch64 exited {self.process.returncode}: {guest_cases.tail(log_path)}")
        if shell:
            self.shell = arm64_vm.GuestShell(self.mini_uart)

    def plug_ethernet(self) -> None:
        """A USB Ethernet adapter (QEMU's usb-net on the user network) plugged into the Pi's USB port now."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(self.qmp)
        reader = sock.makefile("r")
        reader.readline()  # the greeting

        def execute(command: str, **arguments) -> dict:
            sock.sendall(json.dumps({"execute": command, "arguments": arguments}).encode() + b"\n")
            while True:
                answer = json.loads(reader.readline())
                if "return" in answer or "error" in answer:
                    return answer
        execute("qmp_capabilities")
        answer = execute("device_add", driver="usb-net", netdev="wired", id="ethernet")
        sock.close()
        if "error" in answer:
            raise CaseFailure(f"QEMU could not plug in the USB Ethernet adapter: {answer['error']}")

    def wait_ready(self, timeout: float) -> str:
        """Logs the console until the initramfs says `@@guest-ready`; returns the rest of that line."""
        self.shell.socket.settimeout(timeout)
        try:
            for line in self.shell.reader:
                self.log.write(line)
                self.log.flush()
                if line.startswith("@@guest-ready"):
                    return line.split(" ", 1)[1].strip()
        except socket.timeout:
            pass
        raise CaseFailure(f"the guest did not come up within {timeout:.0f} s (console: {self.log.name})")

    def stop(self) -> float:
        """Ends QEMU: the raspi3b machine cannot power itself off (its DTB has no PSCI; the kernel's poweroff
        only halts the CPUs), so this is the power cut. Whatever must survive is written before."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.timer.cancel()
        self.log.close()
        return time.monotonic() - self.started


class ShellAgent(guest_cases.AgentProcess):
    """`enbeacon run` in the guest; its log copied to the host's work folder each time it is read."""

    def __init__(self, guest: "RaspiGuest", name: str, extra: list[str], data: str | None = None) -> None:
        self.guest = guest
        self.data = data or guest.fresh_directory(name)
        log_name = f"enbeacon-{guest.counter:02d}-{name}.log"
        self.guest_log = f"{GUEST_WORK}/{log_name}"
        self.log_path = os.path.join(guest.work, log_name)
        command = [guest.enbeacon, "run", "--data", self.data, "--log", "debug", "--console", "none"] + extra
        self.process = arm64_vm.GuestProcess(guest.shell, command, os.path.relpath(self.guest_log, GUEST_WORK),
                                             guest.read_work, step=0.2)

    def log(self) -> str:
        text = self.guest.shell.run(f"cat {self.guest_log}")[1]
        with open(self.log_path, "w") as f:
            f.write(text)
        return text


class RaspiGuest(arm64_vm.Arm64Guest):
    """guest_cases.Guest for the emulated Pi 3: the files, `enbeacon` and `enbeacon ctl` through the shell
    (Arm64Guest's), the agent as a ShellAgent, the rig the stand-in's peer."""

    def __init__(self, machine: Machine, work: str, enbeacon: str, peer: Peer) -> None:
        self.vm = machine
        self.shell = machine.shell
        self.enbeacon = enbeacon
        self.work = work
        self.processes = []
        self.counter = 0
        self.peer = peer

    def read_work(self, guest_path: str) -> str:
        """The raspi3b machine shares no folder: a file of the guest's work folder through its shell."""
        status, text = self.shell.run(f"cat {guest_path}")
        return text if status == 0 else ""

    def rig(self) -> "BcmRig":
        adapters = wait_until(lambda: self.shell.run("ls /sys/class/bluetooth")[1].split(), 60,
                              "hci0 from the kernel's Broadcom driver")
        return BcmRig(self.peer, int(adapters[0][3:]))

    def unplug(self) -> None:
        pass

    def agent(self, name: str, extra: list[str], **kwargs) -> ShellAgent:
        agent = ShellAgent(self, name, extra, data=kwargs.get("data"))
        self.processes.append(agent.process)
        return agent


class BcmRig:
    """What guest_cases' cases ask of a rig: the adapter's index, and the independent peer's RPI and reports."""

    def __init__(self, peer: Peer, index: int) -> None:
        self.index = index
        self.peer_rpi = peer.peer_rpi
        self.peer_address = peer.address
        self.reports = peer.reports
