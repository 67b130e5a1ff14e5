"""Updates on the emulated Pi 3 (Tools/vm/raspi3 --image IMG update rollback foreign-bundle cut-during-install).

A bundle reaches the badge as a care home would bring it: copied onto the card's FAT (enbeacon/update/) by a PC,
here with mtools between two boots. enbeacon-update.service installs it into the other slot once the running slot
has proven itself, writes enbeacon/update.result and reboots; QEMU runs with -no-reboot, so a reboot ends the
QEMU process and the harness powers the same card on again, as the Pi's own reset would.

The bundles are made here from the image's own root slot (.build/image/rootfs.ext4, next to IMG), changed
without mounting it (debugfs), and signed by Tools/build-image --bundle:
  - N+1: the image's version and build id changed: another build, which must prove itself;
  - bad: N+1 whose agent cannot start (its /usr/bin/enbeacon exits 70), so it never passes `health`;
  - foreign: N+1 signed by a CA the badge's keyring does not hold.
"""

import os
import shutil
import subprocess
import threading
import time
import zlib

import guest_cases
import raspi3_image
from guest_cases import CaseFailure, wait_until

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)

# What the bad bundle's agent does: what a build that crashes at start looks like to systemd and to `health`.
BROKEN_AGENT = "#!/bin/sh\necho 'enbeacon: this build cannot start (made broken for the rollback test)' >&2\nexit 70\n"


class Bundles:
    """The three bundles of the update cases, made once per run into the work folder."""

    def __init__(self, image: str, work: str) -> None:
        self.image_dir = os.path.dirname(image)
        self.work = work
        self.slot = os.path.join(self.image_dir, "rootfs.ext4")
        self.keys = os.path.join(self.image_dir, "keys")
        try:
            with open(os.path.join(self.image_dir, "version")) as f:
                self.version = f.read().strip()
        except OSError:
            self.version = "0.0.0"
        major, minor, patch = (self.version.split(".") + ["0", "0"])[:3]
        self.next_version = f"{major}.{minor}.{int(patch) + 1}"
        self._made: dict[str, str] = {}
        self._lock = threading.Lock()  # cases side by side (--jobs) share the bundles

    def prepare(self, cases: list[str]) -> None:
        """Makes the bundles `cases` will need, one after the other (in a thread of their own, beside the first
        boots); a case asking for one waits for it. A failure here is the case's own when it asks again."""
        needs = {"update": self.good, "cut-during-install": self.good, "rollback": self.bad,
                 "foreign-bundle": self.foreign}
        for make in dict.fromkeys(needs[case] for case in cases if case in needs):
            try:
                make()
            except CaseFailure:
                pass

    def good(self) -> str:
        return self._bundle("good", self.next_version, broken=False, keys=self.keys)

    def bad(self) -> str:
        return self._bundle("bad", self.next_version, broken=True, keys=self.keys)

    def foreign(self) -> str:
        keys = os.path.join(self.work, "foreign-keys")
        os.makedirs(keys, mode=0o700, exist_ok=True)
        return self._bundle("foreign", self.next_version, broken=False, keys=keys)

    def _bundle(self, kind: str, version: str, broken: bool, keys: str) -> str:
        with self._lock:
            if kind not in self._made:
                self._made[kind] = self._make(kind, version, broken, keys)
            return self._made[kind]

    def _make(self, kind: str, version: str, broken: bool, keys: str) -> str:
        for needed in (self.slot, os.path.join(self.keys, "ca.cert.pem"), os.path.join(self.image_dir, "version")):
            if not os.path.exists(needed):
                raise CaseFailure(f"no {needed}: the update cases need the image's build folder "
                                  "(Tools/build-image raspi-arm64 leaves it next to the .img)")
        started = time.monotonic()
        slot = os.path.join(self.work, f"slot-{kind}.ext4")
        subprocess.run(["cp", "--sparse=always", self.slot, slot], check=True)
        # The build id names the build whose health is remembered (enbeacon-health's proven-<slot>): another one.
        build = f"{kind}-{os.urandom(4).hex()}"
        files = {"/etc/enbeacon-image/version": version + "\n", "/etc/enbeacon-image/build-id": build + "\n"}
        if broken:
            files["/usr/bin/enbeacon"] = BROKEN_AGENT
        for path, text in files.items():
            local = os.path.join(self.work, f"{kind}-{os.path.basename(path)}")
            with open(local, "w") as f:
                f.write(text)
            mode = "0100755" if path.startswith("/usr/bin/") else "0100644"
            for request in (f"rm {path}", f"write {local} {path}", f"sif {path} mode {mode}"):
                result = subprocess.run(["debugfs", "-w", "-R", request, slot], capture_output=True, text=True)
                if result.returncode != 0 or "rror" in result.stderr.replace("debugfs ", ""):
                    raise CaseFailure(f"debugfs {request!r} on {slot}: {result.stderr.strip()[-300:]}")
        check = subprocess.run(["debugfs", "-R", "cat /etc/enbeacon-image/build-id", slot], capture_output=True,
                               text=True)
        if check.stdout.strip() != build:
            raise CaseFailure(f"the {kind} slot's build id reads {check.stdout.strip()!r}, not {build!r}")
        result = subprocess.run([os.path.join(TOOLS, "build-image"), "--bundle", "--keys", keys, "--slot", slot,
                                 "--version", version], capture_output=True, text=True)
        if result.returncode != 0:
            raise CaseFailure(f"Tools/build-image --bundle ({kind}): {result.stderr.strip()[-400:]}")
        made = result.stdout.strip().rsplit(": ", 1)[-1]
        bundle = os.path.join(self.work, f"enbeacon-{version}-{kind}.raucb")
        shutil.move(made, bundle)
        os.unlink(slot)
        guest_cases.say(f"  (bundle {kind}: version {version}, build {build}, "
                        f"{os.path.getsize(bundle) / 1e6:.0f} MB, made in {time.monotonic() - started:.0f} s)")
        return bundle


def uboot_environment(card) -> dict[str, str]:
    """U-Boot's environment as boot.scr and RAUC left it (uboot.env on the FAT: CRC-32, then NUL-separated
    name=value pairs); empty where U-Boot has not saved one yet."""
    # To standard output: cases side by side (--jobs) share no file.
    result = subprocess.run(["mcopy", "-i", card.fat, "::uboot.env", "-"], capture_output=True)
    if result.returncode != 0:
        return {}
    data = result.stdout
    if int.from_bytes(data[:4], "little") != zlib.crc32(data[4:]):
        raise CaseFailure("uboot.env on the card's FAT has a bad CRC")
    pairs = data[4:].split(b"\0\0", 1)[0].split(b"\0")
    return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)


def slot_state(card) -> str:
    env = uboot_environment(card)
    return (f"order {env.get('BOOT_ORDER', '?')}, tries left A {env.get('BOOT_A_LEFT', '?')} "
            f"B {env.get('BOOT_B_LEFT', '?')}")


def records(repl) -> dict:
    """The badge's TEK history and its sightings once they are all on the card: `storage` says none wait for
    the next write both before and after the list is read, with the same count."""
    def settled():
        first = repl.json("storage")
        if first.get("pendingSightings") != 0 or not first.get("storedSightings"):
            return None
        sightings = repl.json("sightings --limit 10000")["sightings"]
        second = repl.json("storage")
        if second.get("pendingSightings") != 0 or second.get("storedSightings") != first.get("storedSightings"):
            return None
        return sightings
    sightings = wait_until(settled, 180, "the sightings written to the card (storage: none waiting)", step=5)
    keys = repl.json("keys --reveal", confirm=True)["keys"]
    return {"keys": {(k["rollingStart"], k["key"]) for k in keys},
            "sightings": {(s["rpi"], s["aem"], s["time"]) for s in sightings}}


def compare_records(before: dict, after: dict) -> str:
    """Every key and every sighting of `before` is in `after`, with the same bytes (a key made since, after a
    midnight, and sightings made since are allowed: nothing may be lost or changed)."""
    lost_keys = before["keys"] - after["keys"]
    lost = before["sightings"] - after["sightings"]
    if lost_keys:
        raise CaseFailure(f"{len(lost_keys)} of {len(before['keys'])} TEK(s) lost or changed")
    if lost:
        raise CaseFailure(f"{len(lost)} of {len(before['sightings'])} sighting(s) lost or changed")
    new_keys = len(after["keys"]) - len(before["keys"])
    return (f"TEK history equal ({len(before['keys'])} key(s){f', {new_keys} new since midnight' if new_keys else ''}),"
            f" all {len(before['sightings'])} sighting(s) kept")


def software(repl) -> dict:
    return repl.json("status").get("software") or {}


def wait_marked_good(card, slot: str, timeout: float = 180) -> str:
    """enbeacon-health's verdict as U-Boot will read it: boot.scr took one try from the slot at power-on, and
    `rauc status mark-good` gives it its 3 tries back."""
    def good():
        env = uboot_environment(card)
        return env.get(f"BOOT_{slot}_LEFT") == "3" and env
    wait_until(good, timeout, f"slot {slot} marked good (BOOT_{slot}_LEFT back to 3 in uboot.env)", step=3)
    return slot_state(card)


class ProvenBadge:
    """A badge that has run, made once and copied for each update case: the first-boot case's card (provisioned
    from its FAT, a key sync over the network, on air, heard by the peer), then slot A marked good and its
    records read once they are all on the card, then the power cut. One boot serves the first-boot case and
    every update case's starting point: under TCG a boot is minutes."""

    def __init__(self, first_boot) -> None:
        """`first_boot(setup, then)`: the first-boot case, which calls `then(boot)` on its running boot once its
        own checks passed and returns its one-line detail."""
        self._first_boot = first_boot
        self._lock = threading.Lock()
        self._made: tuple | None = None
        self._detail = ""
        self._failure: CaseFailure | None = None

    def make(self, setup) -> str:
        """The first-boot case's detail, the badge made if it was not yet."""
        with self._lock:
            if self._failure is not None:
                raise self._failure
            if self._made is None:
                def proven(boot) -> None:
                    wait_marked_good(boot.card, "A")
                    self._made = (boot.card, records(boot.repl))
                try:
                    self._detail = self._first_boot(setup, proven)
                except CaseFailure as failure:
                    self._failure = CaseFailure(f"the first boot every update case starts from: {failure}")
                    raise
            return self._detail

    def copy(self, setup, name: str):
        """(a copy of the card for the case `name`, the records read before the cut)."""
        self.make(setup)
        card, before = self._made
        return raspi3_image.Card(card.path, os.path.join(setup.work, f"card-{name}.img")), before


def install_boot(setup, name: str, card, bundle: str, timeout: float = 1200):
    """The bundle copied onto the card's FAT, the badge powered on: the update service installs it once the
    running slot has proven itself, then restarts the badge. Returns (seconds to the restart, update.result)."""
    card.put(bundle, f"enbeacon/update/{os.path.basename(bundle)}")
    boot = raspi3_image.ImageBoot(setup, name, card=card)
    try:
        raspi3_image.advertising(boot.repl)
        seconds = boot.wait_restart(timeout)
    finally:
        boot.stop()
    result = (card.read("enbeacon/update.result") or "").strip()
    if "installed" not in result:
        raise CaseFailure(f"the badge restarted, but enbeacon/update.result says {result!r}")
    if card.read(f"enbeacon/update/{os.path.basename(bundle)}") is not None:
        raise CaseFailure("the installed bundle is still on the card's FAT")
    return seconds, result


def expect_software(repl, slot: str, image: str, rolled_back_from: str | None) -> dict:
    found = software(repl)
    wanted = {"slot": slot, "image": image, "rolledBackFrom": rolled_back_from}
    wrong = {key: found.get(key) for key, value in wanted.items() if found.get(key) != value}
    if wrong:
        raise CaseFailure(f"status says software {found}, expected {wanted}")
    return found


def case_update(setup, bundles: Bundles, proven: ProvenBadge) -> str:
    card, before = proven.copy(setup, "update")
    bundle = bundles.good()
    installed, _ = install_boot(setup, "update-2", card, bundle)
    boot = raspi3_image.ImageBoot(setup, "update-3", card=card)
    try:
        raspi3_image.advertising(boot.repl)
        found = expect_software(boot.repl, "B", bundles.next_version, None)
        kept = compare_records(before, records(boot.repl))
        state = wait_marked_good(card, "B")
    finally:
        boot.stop()
    return (f"{bundles.version} -> {found['image']} on slot B (installed and restarted {installed:.0f} s after "
            f"power-on), marked good ({state}); {kept}")


def case_rollback(setup, bundles: Bundles, proven: ProvenBadge) -> str:
    card, before = proven.copy(setup, "rollback")
    bundle = bundles.bad()
    install_boot(setup, "rollback-2", card, bundle)
    # Slot B's agent cannot start: no prompt; enbeacon-health gives up on it and restarts into slot A.
    boot = raspi3_image.ImageBoot(setup, "rollback-3", card=card, prompt=False)
    try:
        if "slot B" not in boot.slot_line:
            raise CaseFailure(f"after the install U-Boot did not try slot B: {boot.slot_line!r}")
        gave_up = boot.wait_restart(900)
    finally:
        boot.stop()
    boot = raspi3_image.ImageBoot(setup, "rollback-4", card=card)
    try:
        if "slot A" not in boot.slot_line:
            raise CaseFailure(f"after slot B failed U-Boot did not return to slot A: {boot.slot_line!r}")
        raspi3_image.advertising(boot.repl)
        expect_software(boot.repl, "A", bundles.version, "B")
        kept = compare_records(before, records(boot.repl))
        state = slot_state(card)
    finally:
        boot.stop()
    return (f"slot B ({bundles.next_version}, agent exits 70) restarted by enbeacon-health {gave_up:.0f} s after "
            f"power-on; back on slot A ({bundles.version}), status says rolled back from B ({state}); {kept}")


def case_foreign_bundle(setup, bundles: Bundles) -> str:
    bundle = bundles.foreign()
    card = raspi3_image.Card(setup.image, os.path.join(setup.work, "card-foreign-bundle.img"))
    card.put(bundle, f"enbeacon/update/{os.path.basename(bundle)}")
    boot = raspi3_image.ImageBoot(setup, "foreign-bundle", card=card)
    try:
        raspi3_image.advertising(boot.repl)
        # The file says "installing ..." first, then the outcome.
        result = wait_until(lambda: "installing" not in (card.read("enbeacon/update.result") or "installing") and
                            card.read("enbeacon/update.result"), 600, "the outcome in enbeacon/update.result",
                            step=3).strip()
        if "not installed" not in result:
            raise CaseFailure(f"a bundle signed by another key: update.result says {result!r}")
        wait_marked_good(card, "A")
        expect_software(boot.repl, "A", bundles.version, None)
        state = slot_state(card)
        if not state.startswith("order A B") or not state.endswith("B 0"):
            raise CaseFailure(f"a refused bundle changed U-Boot's environment: {state}")
        running = boot.machine.process.poll() is None
    finally:
        boot.stop()
    if not running:
        raise CaseFailure("the badge restarted after refusing the bundle")
    return f"refused, still slot A {bundles.version} on air ({state}); update.result: {result.split(': ', 1)[-1][:160]}"


def case_cut_during_install(setup, bundles: Bundles, proven: ProvenBadge) -> str:
    """The power cut while the other slot is being written: U-Boot's environment still points at the running
    slot (RAUC switches it only once the slot is complete), so the badge comes back on its old slot, with its
    data; the update service tries the bundle again."""
    card, before = proven.copy(setup, "cut-during-install")
    bundle = bundles.good()
    card.put(bundle, f"enbeacon/update/{os.path.basename(bundle)}")
    boot = raspi3_image.ImageBoot(setup, "cut-during-install-2", card=card)
    try:
        raspi3_image.advertising(boot.repl)
        installing = wait_until(lambda: "installing" in (card.read("enbeacon/update.result") or "") and
                                time.monotonic(), 600, "update.result to say the bundle is being installed", step=2)
        # Into the write of the slot (verifying the bundle comes first): RAUC has begun to write it when the
        # card's partition B is no longer what the image left there.
        wait_until(lambda: slot_b_written(card), 900, "RAUC writing slot B", step=2)
        cut_after = time.monotonic() - installing
    finally:
        boot.stop()
    state = slot_state(card)
    boot = raspi3_image.ImageBoot(setup, "cut-during-install-3", card=card)
    try:
        if "slot A" not in boot.slot_line:
            raise CaseFailure(f"after a cut during the install U-Boot did not boot slot A: {boot.slot_line!r}")
        raspi3_image.advertising(boot.repl)
        expect_software(boot.repl, "A", bundles.version, None)
        kept = compare_records(before, records(boot.repl))
    finally:
        boot.stop()
    return (f"cut {cut_after:.0f} s after update.result said installing, while slot B was written ({state}); "
            f"the badge came back on slot A {bundles.version}; {kept}")


def slot_b_written(card) -> bool:
    """Whether anything is on partition 3 (slot B) of the card: the image leaves it empty (zeros)."""
    with open(card.path, "rb") as f:
        # The ext4 superblock's magic, 1024 + 56 bytes in; RAUC writes the image from its start.
        f.seek(card.offsets[2] + 1024 + 56)
        return f.read(2) == b"\x53\xef"
