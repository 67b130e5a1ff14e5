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
        # Partition 1 (the FAT): its first sector, little-endian at byte 8 of the first entry.
        self.fat = f"{path}@@{int.from_bytes(table[446 + 8:446 + 12], 'little') * SECTOR}"

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
    sighting = wait_until(lambda: next((s for s in repl.json("sightings")["sightings"] if s["rpi"] == peer_rpi),
                                       None), 60, "a sighting of the peer's RPI", step=2)
    return (f"{len(reports)} adverts heard, {len(heard)} RPI(s) = derive of the revealed TEK; "
            f"peer's RPI stored ({sighting['reports']} reports)")
