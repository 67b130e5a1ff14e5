#!/usr/bin/env python3
"""The test cases that run inside the VM (started by Tools/vm/run-tests; not meant to be run by hand).

Runs as root in a chroot onto the host's root file system (9p, read-only), with the work folder
writable, /tmp a tmpfs, and the Debian kernel's modules under --modules-root. Prints, per case:

    PASS <case> (<seconds> s): <what was shown>
    FAIL <case> (<seconds> s): <why>

and lines starting with two spaces for the details of a case. `@@` lines are for the host runner
(the serial-console case asks it to start typing).
"""

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import proc_memory  # beside this file

HERE = os.path.dirname(os.path.abspath(__file__))


class CaseFailure(Exception):
    pass


class CaseSkip(Exception):
    """The case cannot run here (a missing package), said with the reason."""


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def wait_until(predicate, timeout: float, what: str, step: float = 0.05):
    """Polls `predicate` until it returns something truthy, or fails the case after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CaseFailure(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(step)


class Guest:
    """What every case needs: paths, kernel modules, the Bumble rig and enbeacon processes."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.enbeacon = args.enbeacon
        self.work = args.work
        self.python = sys.executable
        self.processes: list[subprocess.Popen] = []
        self.counter = 0
        self.shared_rig: Rig | None = None

    # kernel modules, through kmod's modprobe on the unpacked Debian kernel
    def modprobe(self, *names: str, remove: bool = False) -> None:
        command = ["modprobe", "-d", self.args.modules_root] + (["-r"] if remove else []) + list(names)
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CaseFailure(f"{' '.join(command)}: {result.stderr.strip()}")

    def loaded(self, name: str) -> bool:
        return os.path.isdir(f"/sys/module/{name}")

    def unload_bluetooth(self) -> None:
        self.unplug()
        for name in ("hci_vhci", "bluetooth"):
            if self.loaded(name):
                self.modprobe(name, remove=True)

    def fresh_directory(self, name: str, owner: int | None = None) -> str:
        self.counter += 1
        path = f"/tmp/{self.counter:02d}-{name}"
        os.makedirs(path, mode=0o700)
        if owner is not None:
            os.chown(path, owner, owner)
        return path

    def rig(self) -> "Rig":
        """The Bumble rig with the kernel's controller plugged in (hci_vhci loaded, /dev/vhci open).
        One rig serves every case: Python and Bumble take ~20 s to start under TCG."""
        self.modprobe("hci_vhci")
        if self.shared_rig is None or self.shared_rig.process.poll() is not None:
            self.shared_rig = Rig(self)
        elif not self.shared_rig.plugged:
            self.shared_rig.plug()
        return self.shared_rig

    def unplug(self) -> None:
        """No controller: /dev/vhci closed, so that hci_vhci can be unloaded."""
        if self.shared_rig is not None and self.shared_rig.process.poll() is None and self.shared_rig.plugged:
            self.shared_rig.unplug()

    def agent(self, name: str, extra: list[str], **kwargs) -> "AgentProcess":
        agent = AgentProcess(self, name, extra, **kwargs)
        self.processes.append(agent.process)
        return agent

    def ctl(self, data: str, *words: str, timeout: float = 20) -> str:
        result = subprocess.run([self.enbeacon, "ctl", "--data", data, *words],
                                capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise CaseFailure(f"enbeacon ctl {' '.join(words)}: exit {result.returncode}: {result.stderr.strip()}")
        return result.stdout

    # the guest's files and BlueZ, as the cases reach them (the arm64 VM's Guest does it through its shell)
    def list_dir(self, path: str) -> list[str]:
        return os.listdir(path)

    def read_text(self, path: str) -> str:
        with open(path) as f:
            return f.read()

    def write_text(self, path: str, text: str) -> None:
        write_text(path, text)

    def serial_console_ready(self) -> None:
        """The agent's console is up on ttyS0: the host may start typing (run-tests watches for this line)."""
        say("@@serial-console-ready")

    def power_on_by_bluez(self, index: int) -> str:
        """BlueZ's management interface powers hciINDEX on, as bluetoothd does; returns what btmgmt said."""
        power = subprocess.run(["timeout", "20", "btmgmt", "--index", str(index), "power", "on"],
                               capture_output=True, text=True)
        return power.stdout + power.stderr

    def enbeacon_output(self, *words: str) -> str:
        """stdout of `enbeacon WORDS` (a command that needs no agent, e.g. derive); fails on a non-zero exit."""
        return subprocess.run([self.enbeacon, *words], capture_output=True, text=True, check=True).stdout

    def ctl_json(self, data: str, *words: str) -> dict:
        return json.loads(self.ctl(data, "--json", *words))

    def cleanup(self) -> None:
        """After a case: every process it started ends; the rig stays, its controller plugged in afresh."""
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        self.processes.clear()


class Rig:
    """Tools/vm/bumble_vhci.py: the kernel's Bumble controller on /dev/vhci and the Bumble peer."""

    def __init__(self, guest: Guest) -> None:
        self.peer_rpi = os.urandom(16)
        self.log_path = os.path.join(guest.work, "rig.log")
        self.process = subprocess.Popen(
            [guest.python, os.path.join(HERE, "bumble_vhci.py"), "--rpi", self.peer_rpi.hex()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(self.log_path, "w"), text=True, bufsize=1)
        self.events: list[dict] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        started = time.monotonic()
        ready = self.wait_event(lambda e: e["event"] == "ready", 90, "the Bumble controller on /dev/vhci")
        say(f"  (Bumble rig up in {time.monotonic() - started:.1f} s: hci{ready['index']}, "
            f"peer {ready['peer_address']})")
        self.index = ready["index"]
        self.peer_address = ready["peer_address"]
        self.plugged = True

    def unplug(self) -> dict:
        since = time.monotonic()
        self.send("vanish")
        self.plugged = False
        return self.wait_event(lambda e: e["event"] == "vanished" and e["t"] >= since, 10, "the adapter to vanish")

    def plug(self) -> dict:
        since = time.monotonic()
        self.send("return")
        event = self.wait_event(lambda e: e["event"] == "returned" and e["t"] >= since, 20, "the adapter to return")
        self.index = event["index"]
        self.plugged = True
        return event

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                self.events.append(event)

    def snapshot(self) -> list[dict]:
        with self.lock:
            return list(self.events)

    def wait_event(self, match, timeout: float, what: str) -> dict:
        def found():
            if self.process.poll() is not None:
                raise CaseFailure(f"bumble_vhci.py exited ({self.process.returncode}) while waiting for {what}: "
                                  + tail(self.log_path))
            return next((e for e in self.snapshot() if match(e)), None)
        return wait_until(found, timeout, what)

    def send(self, command: str) -> None:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def reports(self, since: float = 0.0) -> list[dict]:
        """GAEN reports the peer heard from others than itself, at or after monotonic time `since`."""
        return [e for e in self.snapshot() if e["event"] == "report" and e["t"] >= since]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.send("quit")
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class AgentProcess:
    """`enbeacon run` with its stderr in the work folder."""

    def __init__(self, guest: Guest, name: str, extra: list[str], user: int | None = None,
                 data: str | None = None, console_from_board: bool = False) -> None:
        self.guest = guest
        self.data = data or guest.fresh_directory(name, owner=user)
        self.log_path = os.path.join(guest.work, f"enbeacon-{guest.counter:02d}-{name}.log")
        console = [] if console_from_board else ["--console", "none"]
        command = [guest.enbeacon, "run", "--data", self.data, "--log", "debug"] + console + extra
        if user is not None:
            # Another user, without any capability: what a badge started by hand as a normal user has.
            command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups",
                       "--inh-caps=-all", "--bounding-set=-all", "--"] + command
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(self.log_path, "w"))

    def log(self) -> str:
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait_log(self, text: str, timeout: float) -> None:
        def found():
            if text in self.log():
                return True
            if self.process.poll() is not None:
                raise CaseFailure(f"enbeacon exited ({self.process.returncode}) before logging {text!r}: "
                                  + tail(self.log_path))
            return False
        wait_until(found, timeout, f"{text!r} in enbeacon's log")

    def terminate(self, timeout: float = 20) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise CaseFailure(f"enbeacon did not stop within {timeout:.0f} s of SIGTERM")

    def wait_exit(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise CaseFailure(f"enbeacon still running after {timeout:.0f} s: " + tail(self.log_path))


def tail(path: str, lines: int = 6) -> str:
    try:
        with open(path, errors="replace") as f:
            return " | ".join(line.rstrip() for line in f.readlines()[-lines:])
    except OSError as error:
        return str(error)


def gaen_fields(data_hex: str) -> tuple[str, str] | None:
    """(RPI, AEM) in hex from a GAEN advertisement (flags, 16-bit UUID list FD6F, service data FD6F)."""
    data = bytes.fromhex(data_hex)
    i = 0
    while i < len(data):
        length = data[i]
        if length == 0 or i + 1 + length > len(data):
            return None
        kind, body = data[i + 1], data[i + 2:i + 1 + length]
        if kind == 0x16 and body[:2] == bytes.fromhex("6ffd") and len(body) == 22:
            return body[2:18].hex(), body[18:22].hex()
        i += 1 + length
    return None


# ---------------------------------------------------------------------------------------------------
# Case 1
def case_advertise_scan(g: Guest) -> str:
    """On user:hci0 enbeacon's adverts decode, at an independent Bumble scanner, to the RPIs (and AEMs)
    that `enbeacon derive` gives for the agent's own TEK; the peer's adverts become sightings."""
    rig = g.rig()
    t0 = time.monotonic()
    agent = g.agent("advertise", ["--transport", f"user:hci{rig.index}"])
    agent.wait_log("controller ready", 60)
    reports = wait_until(lambda: len(rig.reports(t0)) >= 5 and rig.reports(t0), 30, "5 GAEN adverts at the peer")
    heard = {gaen_fields(r["data"]) for r in reports}
    if None in heard:
        raise CaseFailure(f"an advert the peer heard is not a GAEN frame: {reports[0]['data']}")

    keys = g.ctl_json(agent.data, "keys", "--reveal", "--yes")["keys"]
    if len(keys) != 1 or "key" not in keys[0]:
        raise CaseFailure(f"expected one revealed TEK, got {keys}")
    tek, start = keys[0]["key"], keys[0]["rollingStart"]
    tx_power = g.ctl_json(agent.data, "hci", "info").get("advertisingTxPower") or 0
    # Metadata v1.1 (0x50) with the calibration confidence in bits 3:2: 0, "lowest", as the board files
    # shipped here declare until the TX power is measured (Board/README).
    metadata = bytes([0x50, tx_power & 0xFF, 0, 0]).hex()
    derived = g.enbeacon_output("derive", "--tek", tek, "--interval", str(start), "--count", "144",
                                "--metadata", metadata, "--json")
    expected = {(row["rpi"], row["aem"]) for row in json.loads(derived)["intervals"]}
    strangers = heard - expected
    if strangers:
        raise CaseFailure(f"heard RPI/AEM not derived from the agent's TEK: {sorted(strangers)}")

    peer_rpi = rig.peer_rpi.hex()
    sightings = wait_until(
        lambda: [s for s in g.ctl_json(agent.data, "sightings")["sightings"] if s["rpi"] == peer_rpi],
        30, "a sighting of the peer's RPI", step=0.5)
    status = agent.terminate()
    if status != 0:
        raise CaseFailure(f"enbeacon exited {status} on SIGTERM: {tail(agent.log_path)}")
    return (f"{len(reports)} adverts heard, {len(heard)} RPI(s) = derive of the agent's TEK; "
            f"peer's RPI stored ({sightings[0]['reports']} reports, {sightings[0]['rssiMax']} dBm)")


# ---------------------------------------------------------------------------------------------------
# Case 2
def expect_message(g: Guest, name: str, extra: list[str], wanted: list[str], user: int | None = None,
                   adapter: int = 0) -> str:
    """Runs enbeacon on user:hciN for a few seconds; its log must contain every `wanted` text."""
    started = time.monotonic()
    agent = g.agent(name, ["--transport", f"user:hci{adapter}", "--seconds", "3"] + extra, user=user)
    status = agent.wait_exit(30)
    log = agent.log()
    lines = [line for line in log.splitlines() if "hci" in line and ("WARN" in line or "ERROR" in line
                                                                     or "warn" in line or "error" in line)]
    missing = [text for text in wanted if text not in log]
    if missing:
        raise CaseFailure(f"{name}: expected {missing} in the log; it said: "
                          + (" | ".join(lines[:3]) or tail(agent.log_path)))
    if status != 0:
        raise CaseFailure(f"{name}: enbeacon exited {status}: {tail(agent.log_path)}")
    shown = next((line for line in lines if wanted[0] in line), lines[0] if lines else "")
    say(f"  {name} ({time.monotonic() - started:.1f} s): {shown.split(' ', 2)[-1] if shown else wanted[0]}")
    return name


def case_user_channel_errors(g: Guest) -> str:
    """Each way the HCI user channel can be unavailable gives a message that says what to do."""
    checked = []
    g.unload_bluetooth()
    checked.append(expect_message(g, "no-module", [], ["no Bluetooth support", "modprobe bluetooth"]))

    g.modprobe("bluetooth")
    checked.append(expect_message(g, "no-adapter", [], ["hci0: no such adapter"]))

    rig = g.rig()
    # Another program on hci0's user channel: here a second enbeacon (with a data directory of its own).
    holder = g.agent("holder", ["--transport", f"user:hci{rig.index}"])
    holder.wait_log("controller ready", 60)
    checked.append(expect_message(g, "in-use", [], ["hci0 is in use by another program"]))
    holder.terminate()

    # BlueZ's management interface powers the adapter on, as bluetoothd does; enbeacon takes it over.
    power = g.power_on_by_bluez(rig.index)
    if "powered" not in power:
        say(f"  (btmgmt power on said: {power.strip()[:200]})")
    checked.append(expect_message(g, "powered-by-bluez", [], ["was powered on by another host stack",
                                                             "controller ready"]))

    rfkill = bluetooth_rfkill_switch(g)
    g.write_text(f"{rfkill}/soft", "1")
    try:
        checked.append(expect_message(g, "rfkill", [], ["hci0 is blocked by rfkill", "rfkill unblock"]))
    finally:
        g.write_text(f"{rfkill}/soft", "0")

    checked.append(expect_message(g, "no-permission", [], ["permission", "CAP_NET_ADMIN"], user=65534))
    return "clear messages for " + ", ".join(checked)


def bluetooth_rfkill_switch(g: Guest) -> str:
    for name in sorted(g.list_dir("/sys/class/rfkill")):
        path = f"/sys/class/rfkill/{name}"
        if g.read_text(f"{path}/type").strip() == "bluetooth":
            return path
    raise CaseFailure("no bluetooth rfkill switch in /sys/class/rfkill")


def write_text(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------------------
# Case 3
def first_report_after(rig: Rig, since: float, timeout: float, what: str) -> float:
    report = wait_until(lambda: next(iter(rig.reports(since)), None), timeout, what)
    return report["t"] - since


def case_controller_return(g: Guest) -> str:
    """The controller vanishes (vhci closed) and comes back: advertising again within 5 s, status and
    log say what happened; a Hardware Error event is recovered the same way."""
    rig = g.rig()
    t0 = time.monotonic()
    agent = g.agent("return", ["--transport", f"user:hci{rig.index}"])
    agent.wait_log("controller ready", 60)
    wait_until(lambda: rig.reports(t0), 30, "enbeacon's adverts at the peer")

    rig.unplug()
    agent.wait_log("controller link lost", 10)
    during = g.ctl(agent.data, "status")
    controller_line = next((line for line in during.splitlines() if line.startswith("controller")), "")
    # The adapter stays away for a while, as an unplugged dongle does: the re-open attempts back off
    # meanwhile (with a doubling backoff, the attempt after 8 s of absence would come ~8 s late).
    time.sleep(8)
    back = rig.plug()
    seconds = first_report_after(rig, back["t"], 30, "adverts after the adapter returned")
    say(f"  controller returned: advertising again after {seconds:.2f} s")
    say(f"  status while it was away: {controller_line.strip()}")
    if "waiting" not in controller_line and "reconnect" not in controller_line:
        raise CaseFailure(f"status did not say the controller was away: {controller_line!r}")

    sent = time.monotonic()
    rig.send("hardware-error 0x42")
    error = rig.wait_event(lambda e: e["event"] == "hardware-error" and e["t"] >= sent, 10, "the hardware error to be sent")
    reset = rig.wait_event(lambda e: e["event"] == "reset" and e["t"] >= error["t"], 10,
                           "enbeacon to reset the controller after the hardware error")
    hw_seconds = first_report_after(rig, reset["t"], 30, "adverts after the hardware error") + (reset["t"] - error["t"])
    agent.wait_log("hardware error 0x42", 5)
    counters = g.ctl_json(agent.data, "hci", "info")["counters"]
    say(f"  hardware error 0x42: advertising again after {hw_seconds:.2f} s; counters {counters}")
    status = agent.terminate()
    log = agent.log()
    problems = []
    if seconds > 5:
        problems.append(f"advertising again {seconds:.1f} s after the controller returned (limit 5 s)")
    if hw_seconds > 5:
        problems.append(f"advertising again {hw_seconds:.1f} s after the hardware error (limit 5 s)")
    if counters.get("hardwareErrors") != 1:
        problems.append(f"hci info counts {counters.get('hardwareErrors')} hardware errors, expected 1")
    if log.count("controller ready") < 3:
        problems.append("the log does not show the controller ready after each recovery")
    if "controller back " not in log:
        problems.append("the log does not say when the controller came back")
    if status != 0:
        problems.append(f"enbeacon exited {status}")
    if problems:
        raise CaseFailure("; ".join(problems))
    return f"advertising {seconds:.2f} s after the controller returned, {hw_seconds:.2f} s after a hardware error"


# ---------------------------------------------------------------------------------------------------
# Case 4
def case_clean_stop(g: Guest) -> str:
    """SIGTERM: advertising and scanning are disabled at the controller before the adapter is released;
    the peer stops hearing the badge."""
    rig = g.rig()
    t0 = time.monotonic()
    agent = g.agent("stop", ["--transport", f"user:hci{rig.index}"])
    agent.wait_log("controller ready", 60)
    # The first scan starts with the broadcast: stop while advertising and scanning are both on.
    rig.wait_event(lambda e: e.get("name") == "LE Set Scan Enable" and e["enable"] == 1 and e["t"] >= t0, 30,
                   "scanning to start")
    wait_until(lambda: rig.reports(t0), 30, "enbeacon's adverts at the peer")
    sent = time.monotonic()
    status = agent.terminate()
    exited = time.monotonic()
    commands = [e for e in rig.snapshot() if e["event"] == "command" and e["t"] >= sent]
    disabled = {e["name"] for e in commands if e["enable"] == 0}
    # Bounded observation: five advertising intervals after the exit, nothing more may be heard.
    time.sleep(1.5)
    late = rig.reports(exited + 0.3)
    problems = []
    for name in ("LE Set Advertising Enable", "LE Set Scan Enable"):
        if name not in disabled:
            problems.append(f"no {name}(0) reached the controller before enbeacon exited")
    if late:
        problems.append(f"the peer still heard {len(late)} advert(s) after enbeacon exited")
    if status != 0:
        problems.append(f"exit status {status}")
    if problems:
        raise CaseFailure("; ".join(problems))
    return f"advertising and scanning disabled, then exit {exited - sent:.2f} s after SIGTERM; silence after"


# ---------------------------------------------------------------------------------------------------
# Case 5
def case_serial_console(g: Guest) -> str:
    """The console on the guest's 8250 UART (ttyS0): the host types on QEMU's chardev."""
    verdict_path = os.path.join(g.work, "serial-verdict.json")
    if os.path.exists(verdict_path):
        os.unlink(verdict_path)
    # The board file's console setting selects the serial line (as `--console /dev/ttyS0,115200` would).
    board = os.path.join(g.fresh_directory("serial-board"), "board.conf")
    g.write_text(board, "name = vm-serial\ntransport = virtual\nclock = trusted\nconsole = /dev/ttyS0,115200\n")
    agent = g.agent("serial", ["--board", board], console_from_board=True)
    agent.wait_log("controller ready", 60)
    wait_until(lambda: "controller" in g.ctl(agent.data, "status"), 30, "the agent to answer ctl")
    g.serial_console_ready()
    verdict = wait_until(lambda: os.path.exists(verdict_path) and read_json(verdict_path), 90,
                         "the host's verdict on the serial session")
    if not verdict.get("ok"):
        raise CaseFailure(f"host side: {verdict.get('reason')}")
    status = agent.wait_exit(20)
    if status != 0:
        raise CaseFailure(f"enbeacon exited {status} after quit on the serial console")
    return verdict.get("summary", "") + " (the board file's console = /dev/ttyS0,115200)"


def read_json(path: str):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------------
# Case 6 (runs as vm-check.service, with systemd as PID 1: see Tools/vm/systemd_case.py)
def unit_properties(*names: str) -> dict:
    result = subprocess.run(["systemctl", "show", "enbeacon.service", "-p", ",".join(names)],
                            capture_output=True, text=True)
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


def case_systemd_unit(g: Guest) -> str:
    """systemd starts Board/enbeacon.service (DynamicUser, StateDirectory, capabilities, Type=notify):
    the agent reaches ready, `enbeacon ctl` finds it without flags, its watchdog restarts a stuck loop,
    and `systemctl stop` stops it cleanly."""
    uptime = float(open("/proc/uptime").read().split()[0])
    say(f"  (systemd reached vm-check.service {uptime:.0f} s after the kernel started)")

    def active():
        p = unit_properties("ActiveState", "SubState", "StatusText", "NRestarts", "MainPID")
        if p.get("ActiveState") == "failed":
            raise CaseFailure(f"enbeacon.service failed: {p}; " + journal_tail())
        return p if p.get("ActiveState") == "active" and "broadcasting" in p.get("StatusText", "") else None

    started = time.monotonic()
    ready = wait_until(active, 120, "enbeacon.service active (READY=1) and broadcasting", step=0.5)
    say(f"  active {time.monotonic() - started:.1f} s after the checks began: status \"{ready['StatusText']}\"")

    status = subprocess.run([g.enbeacon, "ctl", "status"], capture_output=True, text=True, timeout=30)
    if status.returncode != 0 or "controller   ready" not in status.stdout:
        raise CaseFailure(f"enbeacon ctl status (no flags): exit {status.returncode}: "
                          f"{(status.stdout + status.stderr).strip()[:300]}")
    state = "/var/lib/private/enbeacon"
    info = os.stat(state)
    keys = os.stat(f"{state}/keys")
    problems = []
    if info.st_mode & 0o777 != 0o700 or keys.st_mode & 0o777 != 0o600:
        problems.append(f"modes: {state} {oct(info.st_mode & 0o777)}, keys {oct(keys.st_mode & 0o777)}")
    if info.st_uid == 0 or not os.path.islink("/var/lib/enbeacon"):
        problems.append(f"not a DynamicUser StateDirectory: uid {info.st_uid}")
    pid = ready["MainPID"]
    capabilities = next((line.split()[1] for line in open(f"/proc/{pid}/status") if line.startswith("CapEff")), "")
    # CAP_NET_ADMIN is bit 12, CAP_SYS_TIME bit 25: nothing else.
    if int(capabilities, 16) != (1 << 12) | (1 << 25):
        problems.append(f"effective capabilities {capabilities}, expected CAP_NET_ADMIN and CAP_SYS_TIME only")
    heard = [line for line in open("/run/enbeacon-vm/rig-events.jsonl") if '"report"' in line]
    if not heard:
        problems.append("the Bumble peer heard no advert from the unit's agent")
    if problems:
        raise CaseFailure("; ".join(problems))

    # The watchdog: the loop blocked on purpose (test hook), systemd kills the agent and starts it again.
    blocked = time.monotonic()
    subprocess.run(["systemctl", "kill", "-s", "SIGUSR1", "enbeacon.service"], check=True)
    wait_until(lambda: unit_properties("NRestarts").get("NRestarts") == "1", 60, "a restart after the watchdog")
    restarted = time.monotonic() - blocked
    wait_until(active, 120, "enbeacon.service ready again after the restart", step=0.5)
    again = time.monotonic() - blocked
    if "Watchdog timeout" not in journal_tail(200):
        raise CaseFailure("restarted, but the journal shows no watchdog timeout: " + journal_tail())
    say(f"  loop blocked: killed by the watchdog and restarted after {restarted:.1f} s, ready again after {again:.1f} s")

    stopping = time.monotonic()
    subprocess.run(["systemctl", "stop", "enbeacon.service"], check=True, timeout=60)
    final = unit_properties("ActiveState", "Result", "ExecMainStatus")
    if final.get("Result") != "success":
        raise CaseFailure(f"systemctl stop: {final}; " + journal_tail())
    return (f"ready, ctl without flags, DynamicUser 0700/0600, CAP_NET_ADMIN+CAP_SYS_TIME only, watchdog restart "
            f"{restarted:.1f} s; stopped cleanly in {time.monotonic() - stopping:.1f} s")


def journal_tail(lines: int = 8) -> str:
    result = subprocess.run(["journalctl", "-u", "enbeacon.service", "--no-pager", "-n", str(lines), "-o", "cat"],
                            capture_output=True, text=True)
    return " | ".join(result.stdout.strip().splitlines()[-lines:])


# ---------------------------------------------------------------------------------------------------
# Case 7
GPIO_LINES = ["led", "buzzer", "button", "spare"]
LED, BUZZER, BUTTON, SPARE = range(4)


def sample_lines(chip, seconds: float, step: float = 0.01) -> list[tuple[float, tuple[int, ...]]]:
    """The LED's and buzzer's values as gpio-sim shows them, read every `step` s for `seconds`."""
    samples = []
    end = time.monotonic() + seconds
    while (now := time.monotonic()) < end:
        samples.append((now, (chip.value(LED), chip.value(BUZZER))))
        time.sleep(step)
    return samples


def pulses(samples, index: int) -> list[tuple[float, float]]:
    """(start, width) of each time the line went high and low again while sampled (not one already high at
    the first sample, or still high at the last)."""
    found, start, seen_low = [], None, False
    for t, values in samples:
        if not values[index]:
            seen_low = True
        if values[index] and start is None and seen_low:
            start = t
        elif not values[index] and start is not None:
            found.append((start, t - start))
            start = None
    return found


def describe_pulses(found) -> str:
    return ", ".join(f"{w * 1000:.0f} ms at {s - found[0][0]:.2f} s" for s, w in found[:8]) if found else "none"


def exposure_world(g: Guest, data: str) -> dict:
    """A key met two days ago: its sightings planted in the agent's store (enbeacon-store-writer), and a
    signed export with it in a key-server folder (Python's cryptography, Tools/healthauthority)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "healthauthority"))
    try:
        import ha_export
    except ImportError as error:
        raise CaseSkip(f"no Python cryptography to sign an export ({error}): pip install cryptography")
    tek = os.urandom(16)
    day_start = (int(time.time()) // 86_400 - 2) * 86_400
    interval = day_start // 600
    derived = subprocess.run([g.enbeacon, "derive", "--tek", tek.hex(), "--interval", str(interval), "--count", "144",
                              "--json"], capture_output=True, text=True, check=True)
    rows = json.loads(derived.stdout)["intervals"]
    lines = []
    for minute in range(0, 31, 5):
        t = day_start + 9 * 3600 + minute * 60
        row = rows[(t - day_start) // 600]
        lines.append(json.dumps({"rpi": row["rpi"], "aem": row["aem"], "time": t, "rssiMax": -45, "rssiMean": -50,
                                 "reports": 4, "gap": 300}))
    planted = subprocess.run([g.args.store_writer, data, "--plant"], input="\n".join(lines) + "\n",
                             capture_output=True, text=True)
    if planted.returncode != 0 or planted.stdout.strip() != f"planted {len(lines)}":
        raise CaseFailure(f"enbeacon-store-writer --plant: {planted.stdout.strip()} {planted.stderr.strip()}")
    folder = g.fresh_directory("keyserver")
    signing = ha_export.load_or_generate_signing_key(None)
    key = {"key": tek, "transmission_risk": 4, "rolling_start": interval, "rolling_period": 144,
           "days_since_onset": None, "report_type": "confirmed"}
    with open(f"{folder}/one.zip", "wb") as f:
        f.write(ha_export.signed_export_zip(signing, day_start, day_start + 86_400, "XX", "999", "v1", [key], []))
    with open(f"{folder}/index.txt", "w") as f:
        f.write("one.zip\n")
    with open(f"{folder}/authority.pem", "wb") as f:
        f.write(ha_export.public_pem(signing))
    config = f"{folder}/enbeacon.conf"
    with open(config, "w") as f:
        f.write(f"keyserver.style = folder\nkeyserver.base_url = file://{folder}/\n"
                f"keyserver.public_key = {folder}/authority.pem\nkeyserver.key_id = 999\nkeyserver.key_version = v1\n")
    return {"config": config}


def gpio_board(directory: str, *indicator_lines: str) -> str:
    path = os.path.join(directory, "board.conf")
    with open(path, "w") as f:
        f.write("name = vm-gpio\ntransport = virtual\nsimulated_phones = 0\nclock = trusted\n"
                + "".join(line + "\n" for line in indicator_lines))
    os.chmod(path, 0o644)
    return path


def indicator(g: Guest, data: str) -> dict:
    return g.ctl_json(data, "indicator")


def case_gpio_indicators(g: Guest) -> str:
    """enbeacon holds the board's LED, buzzer and button on a gpio-sim chip (consumer enbeacon), the LED line
    follows the on-air pattern, a key sync's exposure switches it to the exposure pattern, a press simulated
    through gpio-sim's sysfs acknowledges it, and the lines are free again after stop. A wrong chip, a line
    held by another program and a missing permission each give a clear message, and the agent runs on."""
    if g.args.gpio_skip:
        raise CaseSkip(g.args.gpio_skip)
    import gpio_sim
    g.modprobe("configfs")
    if not g.loaded("gpio_sim_vm"):
        loaded = subprocess.run(["insmod", g.args.gpio_sim], capture_output=True, text=True)
        if loaded.returncode != 0:
            raise CaseFailure(f"insmod {g.args.gpio_sim}: {loaded.stderr.strip()}")
    chip = gpio_sim.SimChip("enbeacon-vm", "badge-gpio", GPIO_LINES)
    try:
        shown = gpio_patterns(g, chip, gpio_sim)
        messages = gpio_failures(g, chip, gpio_sim)
    finally:
        chip.remove()
    return f"{shown}; clear messages for {messages}"


def gpio_patterns(g: Guest, chip, gpio_sim) -> str:
    name, label, count = chip.chip_info()
    say(f"  gpio-sim chip {name} [{label}, {count} lines] at {chip.sysfs}")
    data = g.fresh_directory("gpio")
    world = exposure_world(g, data)
    board = gpio_board(data, "indicator.led = led", f"indicator.buzzer = {chip.chip_name}:{BUZZER}",
                       f"indicator.button = {label}:button,active-low,pull-up")
    agent = g.agent("gpio", ["--board", board, "--config", world["config"]], data=data)
    agent.wait_log("controller ready", 60)
    agent.wait_log("indicator: on air", 30)
    problems = []

    infos = [chip.info(offset) for offset in range(len(GPIO_LINES))]
    say("  line info while running: " + "; ".join(map(repr, infos)))
    F = gpio_sim
    wanted = {LED: F.FLAG_USED | F.FLAG_OUTPUT, BUZZER: F.FLAG_USED | F.FLAG_OUTPUT,
              BUTTON: F.FLAG_USED | F.FLAG_INPUT | F.FLAG_EDGE_RISING | F.FLAG_EDGE_FALLING | F.FLAG_ACTIVE_LOW
              | F.FLAG_BIAS_PULL_UP}
    for offset, flags in wanted.items():
        if infos[offset].consumer != "enbeacon" or infos[offset].flags & flags != flags:
            problems.append(f"line {offset}: {infos[offset]!r}, expected consumer 'enbeacon' and "
                            f"{F.flag_names(flags)}")
    if infos[SPARE].used:
        problems.append(f"the spare line is held: {infos[SPARE]!r}")

    # On air: one short flash every 5 s, the buzzer silent.
    samples = sample_lines(chip, 11)
    flashes, beeps = pulses(samples, 0), pulses(samples, 1)
    say(f"  on air: LED pulses {describe_pulses(flashes)}; buzzer pulses {len(beeps)}")
    gaps = [b[0] - a[0] for a, b in zip(flashes, flashes[1:])]
    if len(flashes) < 2 or not all(0.08 <= w <= 0.45 for _, w in flashes) or not all(4.5 <= d <= 5.5 for d in gaps):
        problems.append(f"on air: LED pulses {describe_pulses(flashes)}, expected 0.15 s every 5 s")
    if beeps:
        problems.append(f"on air: the buzzer sounded {len(beeps)} time(s)")

    report = g.ctl_json(data, "sync", "now")
    if report.get("outcome") != "succeeded" or report.get("newExposures") != 1:
        raise CaseFailure(f"sync now: {report}")
    state = indicator(g, data)
    samples = sample_lines(chip, 10.5)
    flashes, beeps = pulses(samples, 0), pulses(samples, 1)
    say(f"  after the sync: state {state['state']}; LED {len(flashes)} pulses ({describe_pulses(flashes[:4])} …); "
        f"buzzer {describe_pulses(beeps)}")
    if state["state"] != "exposureFound" or state["exposuresToAcknowledge"] != 1:
        problems.append(f"after the sync: indicator {state}")
    if len(flashes) < 20 or not all(0.1 <= w <= 0.35 for _, w in flashes):
        problems.append(f"exposure: LED pulses {describe_pulses(flashes)}, expected 0.2 s on, 0.2 s off")
    if len(beeps) < 3:
        problems.append(f"exposure: the buzzer sounded {len(beeps)} time(s) in 10.5 s, expected 3 every 10 s")

    # A short press: the simulated button (active low, pulled up) pulled down for 0.3 s and let go.
    chip.pull(BUTTON, "pull-down")
    time.sleep(0.3)  # how long the finger stays on the button
    chip.pull(BUTTON, "pull-up")
    acknowledged = wait_until(lambda: (lambda s: s if s["state"] == "onAir" and s["signal"] is None else None)(
        indicator(g, data)), 15, "the indicator back on air after the press", step=0.2)
    exposures = g.ctl_json(data, "exposures")["exposures"]
    with open(os.path.join(data, "exposures")) as f:
        stored = f.read()
    acknowledgement_stored = '"acknowledged"' in stored
    if len(exposures) != 1 or not acknowledgement_stored:
        problems.append(f"after the press: {len(exposures)} exposure(s) listed, acknowledgement "
                        + ("stored" if acknowledgement_stored else "not stored"))
    samples = sample_lines(chip, 6)
    flashes = pulses(samples, 0)
    say(f"  after a 0.3 s press: {acknowledged['state']}, {len(exposures)} exposure still recorded; "
        f"LED pulses {describe_pulses(flashes)}")
    if not 1 <= len(flashes) <= 2 or not all(0.08 <= w <= 0.45 for _, w in flashes):
        problems.append(f"after the press: LED pulses {describe_pulses(flashes)}, expected the on-air flash")

    # A long press: held until the status report plays (2 s), then let go.
    chip.pull(BUTTON, "pull-down")
    held = time.monotonic()
    wait_until(lambda: indicator(g, data)["signal"] == "statusReport", 10, "the status report of a long press", step=0.1)
    chip.pull(BUTTON, "pull-up")
    say(f"  long press: status report playing {time.monotonic() - held:.1f} s after pressing")

    status = agent.terminate()
    infos = [chip.info(offset) for offset in range(len(GPIO_LINES))]
    held_after = [info for info in infos if info.used]
    if status != 0:
        problems.append(f"enbeacon exited {status}")
    if held_after:
        problems.append(f"lines still held after stop: {held_after}")
    if chip.value(LED) or chip.value(BUZZER):
        problems.append("the LED or buzzer was left on")
    if "exposure signal acknowledged" not in agent.log():
        problems.append("the log does not say the exposure signal was acknowledged")
    if problems:
        raise CaseFailure("; ".join(problems))
    return ("lines held as consumer enbeacon, on-air flash every 5 s, exposure pattern after sync, "
            "acknowledged by a press, released at stop")


def gpio_message(g: Guest, name: str, lines: list[str], wanted: list[str], user: int | None = None) -> str:
    """Runs the agent with these indicator lines: its log must say every `wanted` text, and it must go on air
    and say in `status` that the indicator is unavailable, then stop cleanly."""
    data = g.fresh_directory(f"gpio-{name}", owner=user)
    board = gpio_board(data, *lines)
    agent = g.agent(f"gpio-{name}", ["--board", board], user=user, data=data)
    agent.wait_log("controller ready", 60)
    status = wait_until(lambda: (lambda text: text if "broadcasting yes" in text else None)(g.ctl(data, "status")),
                        20, "the agent on air")
    line = next((l for l in status.splitlines() if l.startswith("indicator")), "")
    exit_status = agent.terminate()
    log = agent.log()
    missing = [text for text in wanted if text not in log and text not in line]
    if missing or "unavailable" not in line or exit_status != 0:
        raise CaseFailure(f"{name}: expected {missing or wanted} in the log and status, exit 0; status said {line!r}, "
                          f"exit {exit_status}: {tail(agent.log_path)}")
    for line in log.splitlines():
        if "indicator:" in line and ("error" in line.split(" ", 2)[1]):
            say(f"  {name}: {line.split(' ', 2)[-1]}")
    return name


def gpio_failures(g: Guest, chip, gpio_sim) -> str:
    # A wrong chip for the LED and a buzzer line another program holds, in one run; then no permission at all.
    holder = gpio_sim.hold_line(chip.device, BUZZER, "vm-holder")
    try:
        checked = gpio_message(g, "wrong-chip-and-line-busy",
                               ["indicator.led = gpiochip7:0", "indicator.buzzer = buzzer"],
                               [f"no GPIO chip gpiochip7 (this machine has {chip.chip_name} [badge-gpio, 4 lines])",
                                "the badge runs without its LED",
                                f"{chip.chip_name} line 1 (buzzer) is in use by 'vm-holder'",
                                "the badge runs without its buzzer"])
    finally:
        os.close(holder)
    checked += ", " + gpio_message(g, "no-permission", ["indicator.led = led", f"indicator.button = {chip.chip_name}:2"],
                                   [f"{chip.device}: permission denied: enbeacon's user needs read-write access"],
                                   user=65534)
    return checked


IDLE_SECONDS = 60
IDLE_RSS_KB, IDLE_DIRTY_KB = 6144, 1024  # issue 25's bounds for the board build's agent: 6 MB and 1 MB


def case_idle_memory(g: Guest) -> str:
    """The board build's agent on its virtual board (the built-in virtual controller), idle for a minute: VmRSS
    and smaps_rollup's Private_Dirty from the guest's own /proc, held to 6 MB and 1 MB. Not in `all` for the
    amd64 VM, whose agent is the standard build's (a debug build idles near 20 MB): name it with a board agent."""
    agent = g.agent("idle", [])
    agent.wait_log("controller ready", 60)
    # The measurement is defined as the agent after a minute of idling: this wait is the observation itself.
    time.sleep(IDLE_SECONDS)
    pid = agent.process.pid
    if agent.process.poll() is not None:
        raise CaseFailure(f"the agent exited ({agent.process.returncode}) while idle: " + tail(agent.log_path))
    fields, by_mapping = proc_memory.memory_figures(g.read_text, pid)
    for key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "Private_Dirty", "Private_Clean", "Shared_Clean", "Pss"):
        if key in fields:
            say(f"  {key}: {fields[key]:,} kB")
    say("  by mapping (Rss/Private_Dirty kB): " + proc_memory.largest_mappings(by_mapping))
    code = agent.terminate()
    if code != 0:
        raise CaseFailure(f"enbeacon exited {code} on SIGTERM: {tail(agent.log_path)}")
    rss, dirty = fields.get("VmRSS"), fields.get("Private_Dirty")
    if rss is None or dirty is None:
        raise CaseFailure("no VmRSS or Private_Dirty in the guest's /proc")
    figures = f"after {IDLE_SECONDS} s idle on the virtual board: VmRSS {rss:,} kB, Private_Dirty {dirty:,} kB"
    if rss > IDLE_RSS_KB or dirty > IDLE_DIRTY_KB:
        raise CaseFailure(f"{figures}: over issue 25's {IDLE_RSS_KB:,} kB resident or {IDLE_DIRTY_KB:,} kB private dirty")
    return f"{figures} (within 6 MB and 1 MB)"


CASES = {
    "systemd-unit": case_systemd_unit,
    "advertise-scan": case_advertise_scan,
    "user-channel-errors": case_user_channel_errors,
    "controller-return": case_controller_return,
    "clean-stop": case_clean_stop,
    "serial-console": case_serial_console,
    "gpio-indicators": case_gpio_indicators,
    "idle-memory": case_idle_memory,
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--enbeacon", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--modules-root", required=True)
    parser.add_argument("--gpio-sim", help="the gpio-sim module built for this kernel")
    parser.add_argument("--store-writer", help="enbeacon-store-writer, to plant sightings")
    parser.add_argument("--gpio-skip", help="why gpio-indicators cannot run")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    guest = Guest(args)
    failed = 0
    for name in args.cases:
        started = time.monotonic()
        try:
            detail = CASES[name](guest)
            say(f"PASS {name} ({time.monotonic() - started:.1f} s): {detail}")
        except CaseSkip as skip:
            say(f"SKIP {name}: {skip}")
        except CaseFailure as failure:
            failed += 1
            say(f"FAIL {name} ({time.monotonic() - started:.1f} s): {failure}")
        except Exception as error:  # a bug in the case itself still fails only that case
            failed += 1
            say(f"FAIL {name} ({time.monotonic() - started:.1f} s): {type(error).__name__}: {error}")
        finally:
            guest.cleanup()
    if guest.shared_rig is not None:
        guest.shared_rig.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
