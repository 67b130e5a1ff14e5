"""The SD-card image on the emulated Pi 3 (Tools/vm/raspi3 --image IMG): a copy of the card per case, U-Boot from its
FAT, and the agent's REPL on the mini-UART as the only way in.

The card is the image of Tools/build-image raspi-arm64 as a user flashes it: U-Boot (Debian's u-boot-rpi rpi_arm64,
read here from the image's own FAT with mtools) runs boot.scr, which picks the root slot (RAUC's bootchooser) and
boots its kernel with the DTB U-Boot was given — on a Pi the GPU firmware's, here QEMU's `-dtb`, the test DTB
(raspi3_machine.test_dtb). The host reads and writes the FAT with mtools between boots, as a PC would.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time

import arm64_vm
import guest_cases
import raspi3_machine
import serial_typist
from guest_cases import CaseFailure, wait_until

SECTOR = 512


class Card:
    """A sparse copy of the image, grown to the next power of two: QEMU's SD model takes only such sizes, as
    real cards come in them; the first boot grows the data partition to it."""

    def __init__(self, image: str, path: str) -> None:
        self.path = path
        if os.path.exists(path):
            os.unlink(path)
        subprocess.run(["cp", "--sparse=always", image, path], check=True)
        size = os.path.getsize(path)
        card = 1 << (size - 1).bit_length()
        os.truncate(path, card)
        with open(path, "rb") as f:
            table = f.read(SECTOR)
        if table[510:512] != b"\x55\xaa":
            raise CaseFailure(f"{image}: no MBR partition table")
        # Each partition's first byte: its first sector, little-endian at byte 8 of its entry.
        self.offsets = [int.from_bytes(table[446 + 16 * i + 8:446 + 16 * i + 12], "little") * SECTOR for i in range(4)]
        self.fat = f"{path}@@{self.offsets[0]}"

    def read(self, name: str) -> str | None:
        """A file of the FAT (e.g. enbeacon/badge.conf.error), or None where it is absent."""
        result = subprocess.run(["mtype", "-i", self.fat, f"::{name}"], capture_output=True, text=True)
        return result.stdout if result.returncode == 0 else None

    def write(self, name: str, text: str) -> None:
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write(text)
        try:
            result = subprocess.run(["mcopy", "-o", "-i", self.fat, f.name, f"::{name}"], capture_output=True,
                                    text=True)
        finally:
            os.unlink(f.name)
        if result.returncode != 0:
            raise CaseFailure(f"mcopy to the card's FAT ::{name}: {result.stderr.strip()}")

    def put(self, local: str, name: str) -> None:
        """Copies a host file (an update bundle) onto the FAT, making its folder, as a PC's file manager would."""
        folder = os.path.dirname(name)
        if folder:
            subprocess.run(["mmd", "-D", "s", "-i", self.fat, f"::{folder}"], capture_output=True)
        result = subprocess.run(["mcopy", "-o", "-i", self.fat, local, f"::{name}"], capture_output=True, text=True)
        if result.returncode != 0:
            raise CaseFailure(f"mcopy {local} to the card's FAT ::{name}: {result.stderr.strip()}")

    def extract(self, name: str, destination: str) -> str:
        result = subprocess.run(["mcopy", "-o", "-i", self.fat, f"::{name}", destination], capture_output=True,
                                text=True)
        if result.returncode != 0:
            raise CaseFailure(f"no {name} on the image's FAT: {result.stderr.strip()}")
        return destination


class Repl:
    """The agent's console on the mini-UART (serial_typist.Terminal): what a person with a USB-serial cable on
    the GPIO header types. Every byte is kept for the console log."""

    def __init__(self, path: str) -> None:
        self.terminal = serial_typist.Terminal(path)

    def wait_for(self, text: bytes, timeout: float, failure: bytes | None = None) -> None:
        """Reads the line until `text`; fails at once where `failure` comes first (U-Boot's own prompt: its
        script did not boot anything)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.terminal.read_until(text, 2)
                return
            except TimeoutError as error:
                if failure is not None and failure in self.terminal.received:
                    tail = self.terminal.visible(self.terminal.transcript[-600:])
                    raise CaseFailure(f"the mini-UART showed {failure!r} before {text!r}: {tail!r}")
                if time.monotonic() > deadline:
                    raise CaseFailure(f"the mini-UART: {str(error)[-300:]}")

    def wait_prompt(self, timeout: float) -> float:
        """Presses Enter every few seconds until the agent's prompt answers; returns when it did. Only call
        once the kernel runs: a key typed during U-Boot's countdown stops the boot."""
        deadline = time.monotonic() + timeout
        while True:
            self.terminal.type(b"\r")
            try:
                self.terminal.read_until(serial_typist.PROMPT, 5)
                return time.monotonic()
            except TimeoutError:
                if time.monotonic() > deadline:
                    tail = self.terminal.visible(self.terminal.transcript[-400:])
                    raise CaseFailure(f"no `enbeacon> ` prompt on the mini-UART within {timeout:.0f} s: {tail!r}")

    def command(self, line: str, timeout: float = 30) -> str:
        # The answer is read from after this line's own echo: a prompt still on its way from an Enter pressed
        # while waiting for the first one (wait_prompt) would otherwise end an empty answer (seen in CI).
        try:
            self.terminal.type(line.encode() + b"\r")
            self.terminal.read_until(line.encode(), timeout)
            self.terminal.read_until(b"\r\n", timeout)
            answer = self.terminal.read_until(serial_typist.PROMPT, timeout)
            return self.terminal.visible(answer[:-len(serial_typist.PROMPT)])
        except TimeoutError as error:
            raise CaseFailure(f"REPL {line!r}: {str(error)[-300:]}")

    def json(self, line: str, confirm: bool = False) -> dict:
        """The JSON answer to `line --json`; `confirm` answers the console's consent question (revealing keys
        asks a person at the console to type yes)."""
        if confirm:
            self.terminal.type(line.encode() + b" --json\r")
            self.wait_for(b"type yes to confirm: ", 30)
            answer = self.command("yes")
        else:
            answer = self.command(line + " --json")
        start = answer.find("{")
        try:
            return json.loads(answer[start:])
        except ValueError:
            raise CaseFailure(f"REPL {line!r} --json: not JSON: {answer.strip()[:300]!r}")

    def save(self, path: str) -> None:
        with open(path, "wb") as f:
            f.write(self.terminal.transcript)


class ImageBoot:
    """One power-on of a card: the stand-in, the peer, U-Boot from the card's FAT, the REPL. `card` is a fresh
    copy of the image by default; the update cases power the same card on again, as a reboot or a person
    plugging the badge back in would."""

    def __init__(self, setup, name: str, prepare=None, card: "Card | None" = None, prompt: bool = True,
                 key_server_port: int | None = None) -> None:
        """`prompt`: wait for the agent's prompt (else only for the kernel: a slot whose agent cannot start)."""
        self.setup = setup
        self.name = name
        self.card = card or Card(setup.image, os.path.join(setup.work, f"card-{name}.img"))
        if prepare is not None:
            prepare(self.card)
        u_boot = self.card.extract("u-boot.bin", os.path.join(setup.work, f"u-boot-{name}.bin"))
        self.controllers = self.peer = self.machine = self.repl = None
        self.prompt = None
        try:
            self.controllers = raspi3_machine.Controllers(setup.python,
                                                          os.path.join(setup.work, f"controllers-{name}.log"))
            self.peer = raspi3_machine.Peer(setup.python, self.controllers.ports[1],
                                            os.path.join(setup.work, f"peer-{name}.log"), setup.timeout)
            self.machine = raspi3_machine.Machine(u_boot, setup.dtb, self.controllers.ports[0], setup.work,
                                                  os.path.join(setup.work, f"qemu-{name}.log"), setup.timeout,
                                                  sd_image=self.card.path, shell=False,
                                                  key_server_port=key_server_port)
            self.repl = Repl(self.machine.mini_uart)
            self.repl.wait_for(b"Starting kernel", 600, failure=b"U-Boot> ")
            self.kernel_started = time.monotonic()
            if key_server_port is not None:
                self.machine.plug_ethernet()
            # boot.scr says which slot it chose: "enbeacon: slot A (order A B, tries left A 2 B 0)".
            said = self.repl.terminal.visible(self.repl.terminal.transcript)
            self.slot_line = next((line.strip() for line in said.splitlines() if line.startswith("enbeacon: slot ")),
                                  "enbeacon: slot ?")
            if prompt:
                self.prompt = self.repl.wait_prompt(600)
        except BaseException:
            self.stop()
            raise
        guest_cases.say(f"  ({name}: U-Boot to kernel {self.kernel_started - self.machine.started:.0f} s"
                        + (f", kernel to the agent's prompt {self.prompt - self.kernel_started:.0f} s" if prompt else "")
                        + f"; U-Boot said: {self.slot_line[len('enbeacon: '):]})")

    def wait_restart(self, timeout: float) -> float:
        """Waits for the guest to reboot itself: with -no-reboot, QEMU exits when the guest resets the SoC
        (the kernel's bcm2835 watchdog restart). The kernel's last words, "reboot: Restarting system", are
        printed whatever the log level; a machine still there 30 s after them is ended here, as the reset
        would. Returns the seconds since power-on."""
        deadline = time.monotonic() + timeout
        said = None
        while self.machine.process.poll() is None:
            now = time.monotonic()
            if now > deadline:
                raise CaseFailure(f"{self.name}: the badge did not restart within {timeout:.0f} s")
            if said is None and b"Restarting system" in self.repl.terminal.transcript:
                said = now
            if said is not None and now - said > 30:
                self.machine.process.kill()
                break
            try:
                self.repl.terminal.read_until(b"\0", 2)  # keeps the console's bytes for the log
            except (TimeoutError, OSError):
                pass
        return time.monotonic() - self.machine.started

    def stop(self) -> float:
        """The power cut (raspi3_machine.Machine.stop), then the radio; the console's bytes to the work folder."""
        if self.repl is not None:
            self.repl.save(os.path.join(self.setup.work, f"console-{self.name}.log"))
        seconds = self.machine.stop() if self.machine is not None else 0.0
        self.setup.timings.append(f"{self.name} boot {seconds:.0f} s")
        for part in (self.peer, self.controllers):
            if part is not None:
                part.stop()
        return seconds


def advertising(repl: Repl, timeout: float = 180) -> dict:
    """`status --json` once it says advertising: the agent opens hci0 and sets the controller up after its
    prompt is there. A Pi's board profile waits for NTP (clock = ntp) and the emulated Pi has no network and no
    RTC: where the clock is not trusted, the console sets it to the host's UTC time, as the person setting a
    badge up without Wi-Fi does (`time set`)."""
    status = repl.json("status")
    if not status.get("clock", {}).get("trusted"):
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        answer = repl.json(f"time set {now}")
        if not answer.get("trusted"):
            raise CaseFailure(f"time set {now}: the clock is still not trusted: {answer}")
        guest_cases.say(f"  (the badge's clock was {status.get('clock', {}).get('time')}, not trusted: set to {now})")
    last = {}

    def on_air():
        last.update(repl.json("status"))
        return last.get("advertising") and last
    try:
        return wait_until(on_air, timeout, "status to say advertising", step=3)
    except CaseFailure as failure:
        raise CaseFailure(f"{failure}; status said broadcasting {last.get('broadcasting')!r}, "
                          f"controller {last.get('controller')!r}")


def derive_on_host(enbeacon: str, work: str, tek: str, start: int, metadata: str) -> set[tuple[str, str]]:
    """`enbeacon derive` of the board build (the agent the image installs) under qemu-aarch64 on the host, with its
    loader and libraries (arm64_vm.libraries) in a root of their own."""
    root = os.path.join(work, "derive-root")
    if not os.path.isdir(root):
        for guest_path, source in arm64_vm.libraries(enbeacon).items():
            os.makedirs(os.path.dirname(root + guest_path), exist_ok=True)
            shutil.copy(source, root + guest_path)
    result = subprocess.run(["qemu-aarch64", "-L", root, enbeacon, "derive", "--tek", tek, "--interval", str(start),
                             "--count", "144", "--metadata", metadata, "--json"], capture_output=True, text=True)
    if result.returncode != 0:
        raise CaseFailure(f"enbeacon derive (qemu-aarch64): {result.stderr.strip()[:300]}")
    return {(row["rpi"], row["aem"]) for row in json.loads(result.stdout)["intervals"]}


def on_air(repl: Repl, peer, enbeacon: str, work: str, since: float) -> str:
    """The badge is on air as itself: the peer hears it, what it hears is `enbeacon derive` of the TEK the REPL
    reveals, and the peer's own RPI is among the badge's sightings."""
    reports = wait_until(lambda: len(peer.reports(since)) >= 5 and peer.reports(since), 120,
                         "5 GAEN adverts at the peer")
    heard = {guest_cases.gaen_fields(r["data"]) for r in reports}
    keys = repl.json("keys --reveal", confirm=True)["keys"]
    if not keys or "key" not in keys[-1]:
        raise CaseFailure(f"expected a revealed TEK, got {keys}")
    tx_power = repl.json("hci info").get("advertisingTxPower") or 0
    metadata = bytes([0x50, tx_power & 0xFF, 0, 0]).hex()
    expected = set()
    for key in keys:
        expected |= derive_on_host(enbeacon, work, key["key"], key["rollingStart"], metadata)
    strangers = heard - expected
    if strangers:
        raise CaseFailure(f"heard RPI/AEM not derived from the badge's TEKs: {sorted(strangers)}")
    peer_rpi = peer.peer_rpi.hex()
    def peer_sighting():
        return next((s for s in repl.json("sightings")["sightings"] if s["rpi"] == peer_rpi), None)
    reset = ""
    try:
        sighting = wait_until(peer_sighting, 60, "a sighting of the peer's RPI", step=2)
    except CaseFailure as failure:
        # What the driver counted says whether reports never came (0 advertising reports) and what it went through.
        counters = repl.json("hci info").get("counters") or {}
        if not counters.get("commandTimeouts") or counters.get("advertisingReports"):
            raise CaseFailure(f"{failure}; hci info counters {counters}")
        # Seen once on a loaded host: a command timed out, the agent re-initialised the stand-in and put its goal
        # back (advertising, heard by the peer; scanning), and the stand-in delivered no report after that. The
        # agent's recovery from a late answer is proven against the strict virtual controller
        # (ControllerDriverFaultTests); here the operator's remedy, `hci reset`, is tried once and said.
        repl.command("hci reset")
        try:
            sighting = wait_until(peer_sighting, 60, "a sighting of the peer's RPI after `hci reset`", step=2)
        except CaseFailure as again:
            raise CaseFailure(f"{again}; before it, hci info counters {counters}")
        reset = f"; after a command timeout and no report, once more after `hci reset` (counters then {counters})"
    return (f"{len(reports)} adverts heard, {len(heard)} RPI(s) = derive of the revealed TEK; "
            f"peer's RPI stored ({sighting['reports']} reports){reset}")
