#!/usr/bin/env python3
"""The guest side of Tools/vm/power-cuts (runs inside the amd64 VM, as root; not meant to be run by hand).

One boot: check what the previous cut left on the data disk (when there was one), then work the agent hard
until the host cuts the power. Everything the host must know goes to the console as `@@` lines, which the host
keeps: it is the badge's serial log, written before the cut, read after it.

    @@check PASS|FAIL <name> <detail>   a check of what the previous cut left
    @@checked <n failed>                the checks are done
    @@ready                             the agent is on air: the work (and the host's clock for the cut) starts
    @@report <json>                     what the agent said is durable: keys, stored sightings by hour, config
    @@event <name> [<json>]             an action begins or ends (rollover, config, stop, ...)

Durability promises read from the agent, and what may legitimately be gone after a cut:
  - keys: every key `keys --reveal` showed is on disk (the advertiser writes a key, with fsync, before its first
    RPI goes on air); gone only if older than 14 days at the check;
  - sightings: those listed by `sightings` (stored and pending) minus `storage`'s pendingSightings read after the
    listing; gone only if older than 14 days at the check (counted by the hour they were first seen);
  - config: the value `config set` answered for, or, when the cut fell during the set, the old or the new;
  - the key share (`DATA/share`, replaced atomically): a whole record, never one torn or mixed, at least as far
    on as the last state `keys share status` showed (a consent, an outcome, a publication); gone only when all
    it held had lapsed (14 days).
"""

import argparse
import fcntl
import hashlib
import json
import os
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request

DAY = 86_400
RETENTION = 14 * DAY
INTERVALS_PER_DAY = 144
MOUNT_OPTIONS = "rw,noatime,commit=30,errors=remount-ro"  # Tools/image/rootfs/etc/fstab's /data
# The test health authority inside the guest, on loopback: fixed ports, so the badge's configuration, written at
# the first boot, names them in every later one.
HA_PORTS = (47001, 47002, 47003)
HA_API_KEY = "power-cuts-device-key"
# DATA/share's fields (Sources/KeyShare/ShareRecord.swift); a line with another name is not the agent's.
SHARE_FIELDS = {"format", "consented_at", "test_type", "test_date", "symptom_onset", "token", "token_expires_at",
                "publish_after", "certificate", "certificate_expires_at", "secret", "key_starts", "attempts",
                "retry_at", "last_error", "retry_announced", "revision_token", "published_key_starts", "published_at",
                "outcome", "outcome_message", "outcome_keys", "outcome_inserted", "outcome_warning"}
SHARE_KEPT = 14 * DAY  # an outcome is kept this long (ShareOutcome.keptSeconds), a publication a day longer


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Guest:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.enbeacon = args.enbeacon
        self.mount = args.mount
        self.data = os.path.join(self.mount, "private", "enbeacon")
        self.config = os.path.join(self.data, "badge", "badge.conf")
        self.board = os.path.join(args.work, "board.conf")
        self.share_file = os.path.join(self.data, "share")
        self.agent: subprocess.Popen | None = None
        self.agent_runs = 0
        self.health_authority: subprocess.Popen | None = None

    # --- the agent ----------------------------------------------------------------------------------

    def ctl(self, *words: str, timeout: float = 20) -> dict | None:
        try:
            result = subprocess.run([self.enbeacon, "ctl", "--data", self.data, "--json", "--timeout", str(timeout),
                                     *words], capture_output=True, text=True, timeout=timeout + 5)
        except subprocess.TimeoutExpired:
            return None
        if result.returncode != 0:
            return {"error": (result.stderr.strip() or result.stdout.strip())[:300]}
        try:
            return json.loads(result.stdout)
        except ValueError:
            return {"error": f"not JSON: {result.stdout[:200]!r}"}

    def start_agent(self) -> None:
        self.agent_runs += 1
        log = open(os.path.join(self.args.work, f"agent-{self.args.cut}-{self.agent_runs}.log"), "w")
        self.agent = subprocess.Popen([self.enbeacon, "run", "--board", self.board, "--data", self.data,
                                       "--config", self.config, "--console", "none"],
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        self.agent_log = log.name

    def wait_on_air(self, timeout: float) -> str | None:
        """None when the agent advertises with its controller ready; else why not."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.agent.poll() is not None:
                return f"the agent exited with {self.agent.returncode}: {tail(self.agent_log)}"
            if os.path.exists(os.path.join(self.data, "console.sock")):
                status = self.ctl("status", timeout=5)
                if status and status.get("advertising") and status.get("controller") == "ready":
                    return None
                last = json.dumps(status)[:300] if status else "no answer"
            time.sleep(0.1)
        return f"not on air within {timeout:.0f} s: {last}"

    def stop_agent(self) -> int:
        self.agent.send_signal(signal.SIGTERM)
        try:
            return self.agent.wait(30)
        except subprocess.TimeoutExpired:
            self.agent.kill()
            return -9

    # --- what the agent promises --------------------------------------------------------------------

    def keys(self) -> list[dict]:
        answer = self.ctl("keys", "--reveal", "--yes")
        if not answer or "keys" not in answer:
            raise RuntimeError(f"keys --reveal: {answer}")
        return answer["keys"]

    def sightings_by_hour(self) -> tuple[dict[int, int], int, bool]:
        """Sightings the agent lists (stored and pending), counted by the hour first seen; the most recent
        first-seen time; whether the listing hit its limit."""
        answer = self.ctl("sightings", "--limit", "10000", timeout=60)
        if not answer or "sightings" not in answer:
            raise RuntimeError(f"sightings: {answer}")
        hours: dict[int, int] = {}
        newest = 0
        for sighting in answer["sightings"]:
            hour = sighting["time"] // 3600 * 3600
            hours[hour] = hours.get(hour, 0) + 1
            newest = max(newest, sighting["time"])
        return hours, newest, len(answer["sightings"]) >= 10000

    def report(self, with_keys: bool) -> dict:
        hours, newest, full = self.sightings_by_hour()
        storage = self.ctl("storage")
        if not storage or "pendingSightings" not in storage:
            raise RuntimeError(f"storage: {storage}")
        document = {"time": int(time.time()), "hours": {str(k): v for k, v in hours.items()}, "newest": newest,
                    "full": full, "pending": storage["pendingSightings"], "stored": storage["storedSightings"]}
        if with_keys:
            document["keys"] = {str(k["rollingStart"]): k["key"] for k in self.keys()}
        emit("@@report " + json.dumps(document, separators=(",", ":")))
        return document

    def config_value(self) -> str | None:
        try:
            with open(self.config) as f:
                text = f.read()
        except FileNotFoundError:
            return None
        for line in text.splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "risk.threshold":
                return value.strip()
        return None

    # --- key sync: a file:// folder of signed exports the host made, published one at a time -----------

    def keyserver_config(self) -> str:
        folder = os.path.join(self.args.work, "keyserver")
        return (f"keyserver.style = folder\nkeyserver.base_url = file://{folder}/\n"
                f"keyserver.public_key = {folder}/public.pem\nkeyserver.key_id = enbeacon-test\n"
                f"keyserver.key_version = v1\n")

    @staticmethod
    def share_config() -> str:
        verification, keyserver, _ = HA_PORTS
        return (f"share.verification_url = http://127.0.0.1:{verification}\nshare.api_key = {HA_API_KEY}\n"
                f"share.publish_url = http://127.0.0.1:{keyserver}/v1/publish\nshare.health_authority_id = enbeacon-test\n")

    # --- key share: the test health authority on loopback, started as each boot begins ---------------------

    def start_health_authority(self) -> str | None:
        """None once it listens; else why it cannot (the aarch64 root has no `cryptography`: no shares there)."""
        if self.health_authority is not None:
            return None if self.health_authority.poll() is None else "the health authority exited"
        if not self.args.healthauthority:
            return "no health authority in this guest"
        loopback_up()
        # Its records in the work folder, which is the host's: the server, unlike the badge, does not lose them
        # at a cut, so a share resumed after one meets the server that knows its token.
        state = os.path.join(self.args.work, "healthauthority")
        ready = os.path.join(state, "ready.json")
        if os.path.exists(ready):
            os.remove(ready)  # the last boot's server wrote it: this one is ready when it writes it again
        log = open(os.path.join(self.args.work, f"healthauthority-{self.args.cut}.log"), "w")
        self.health_authority = subprocess.Popen(
            [sys.executable, self.args.healthauthority, "serve", "--ports", ",".join(map(str, HA_PORTS)),
             "--api-key", HA_API_KEY, "--state-dir", state, "--keep-records", "--seconds", "3600"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.health_authority.poll() is None:
            if os.path.exists(ready):
                return None
            time.sleep(0.2)
        return f"the health authority did not start: {tail(log.name)}"

    def issue_code(self) -> str:
        request = urllib.request.Request(f"http://127.0.0.1:{HA_PORTS[2]}/_test/codes", method="POST",
                                         data=json.dumps({"testType": "confirmed"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=20) as answer:
            return json.load(answer)["code"]

    def share_status(self) -> dict:
        answer = self.ctl("keys", "share", "status")
        if not answer or "phase" not in answer:
            raise RuntimeError(f"keys share status: {answer}")
        return answer

    def share(self, rng: random.Random) -> None:
        """Starts a share when none is under way (a code, `keys share CODE`: its token is stored); moves the clock
        past the time a pending one is due (it gets its certificate and publishes, each step stored); reports
        what `keys share status` then shows."""
        why = self.start_health_authority()
        if why:
            emit(f"@@event share-unavailable {json.dumps(why[:200])}")
            return
        status = self.share_status()
        if status.get("consentedAt") is None:
            code = self.issue_code()
            emit(f"@@event share-begin {json.dumps({'step': 'verify'})}")
            answer = self.ctl("keys", "share", code, "--yes", timeout=30)
        else:
            due = max(status.get("publishAfter") or 0, status.get("nextAttemptAt") or 0)
            target = max(due, int(time.time())) + rng.randint(1, 30)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(target))
            emit(f"@@event share-begin {json.dumps({'step': 'publish', 'time': target})}")
            answer = self.ctl("time", "set", stamp)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.share_status()["phase"] in ("waiting", "publishing", "verifying"):
                time.sleep(0.3)
        status = self.share_status()
        emit(f"@@event share-done {json.dumps({'share': share_progress(status), 'phase': status['phase'], 'answer': json.dumps(answer)[:160]})}")
        self.report(with_keys=True)

    def cursor_line(self) -> tuple[str | None, str | None]:
        """The key-sync cursor on disk: (its last_line, a problem with the file or None)."""
        path = os.path.join(self.data, "keysync")
        try:
            with open(path, "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            return None, None
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            return None, f"keysync is not text: {raw[:40]!r}"
        lines = text.split("\n")
        if not text.endswith("\n") or not lines[0].startswith("server index file://"):
            return None, f"keysync is damaged: {text[:80]!r}"
        last = [line[len("last_line "):] for line in lines if line.startswith("last_line ")]
        return (last[0] if last else None), None

    def publish_next_export(self) -> str | None:
        """Adds the next of the host's exports to index.txt (replaced atomically: the server never shows half an
        index); the line added, or None when all are out."""
        folder = os.path.join(self.args.work, "keyserver")
        with open(os.path.join(folder, "exports.txt")) as f:
            made = f.read().split()
        index = os.path.join(folder, "index.txt")
        listed = open(index).read().split() if os.path.exists(index) else []
        if len(listed) >= len(made):
            return None
        listed.append(made[len(listed)])
        with open(index + ".new", "w") as f:
            f.write("\n".join(listed) + "\n")
        os.rename(index + ".new", index)
        return listed[-1]

    # --- the checks after a cut ----------------------------------------------------------------------

    def check(self, expect: dict) -> int:
        failures = 0

        def verdict(name: str, problem: str | None, detail: str = "") -> None:
            nonlocal failures
            if problem:
                failures += 1
            emit(f"@@check {'FAIL' if problem else 'PASS'} {name} {problem or detail}")

        # fsck: the journal replayed by a mount, then a forced read-only check must find nothing.
        mounted = subprocess.run(["mount", "-t", "ext4", "-o", MOUNT_OPTIONS, "/dev/vda", self.mount],
                                 capture_output=True, text=True)
        if mounted.returncode != 0:
            verdict("mount", f"mount after the cut failed: {mounted.stderr.strip()}")
            return failures
        subprocess.run(["umount", self.mount], check=True)
        fsck = subprocess.run(["e2fsck", "-fn", "/dev/vda"], capture_output=True, text=True)
        lines = " | ".join(fsck.stdout.strip().splitlines()[-3:])
        verdict("fsck", None if fsck.returncode == 0 else
                f"e2fsck -fn exit {fsck.returncode}: " + " | ".join((fsck.stdout + fsck.stderr).strip().splitlines()[:12]),
                lines)
        subprocess.run(["mount", "-t", "ext4", "-o", MOUNT_OPTIONS, "/dev/vda", self.mount], check=True)
        # As the cut left it: the agent syncs as it starts, and would replace it.
        cursor_on_disk = self.cursor_line()
        share_on_disk = read_share_record(self.share_file)

        # The configuration parses, and holds the value answered for (old or new if the cut fell mid-set).
        config = expect.get("config")
        if config is not None and os.path.exists(self.config):
            parsed = subprocess.run([self.enbeacon, "config", "check", self.config], capture_output=True, text=True)
            value = self.config_value()
            allowed = config["allowed"]
            problem = None
            if parsed.returncode != 0:
                problem = f"config check: {(parsed.stdout + parsed.stderr).strip()[:200]}"
            elif value not in allowed:
                problem = f"risk.threshold is {value!r}, expected one of {allowed}"
            verdict("config", problem, f"risk.threshold {value} (allowed {' or '.join(map(str, allowed))})")
        elif config is not None:
            verdict("config", f"{self.config} is gone")

        # The agent comes up on air.
        self.start_agent()
        why = self.wait_on_air(30)
        verdict("on-air", why, "advertising, controller ready")
        if why:
            return failures
        now = int(time.time())
        recovered = [line.strip() for line in open(self.agent_log) if "torn tail" in line or "skipped" in line]
        if recovered:
            emit("@@recovery " + " | ".join(recovered)[:400])

        # Keys: every key shown before the cut, same bytes, unless expired by now; one key per day.
        keys = self.keys()
        by_start: dict[str, list[str]] = {}
        for key in keys:
            by_start.setdefault(str(key["rollingStart"]), []).append(key["key"])
        horizon = now // 600 - 14 * INTERVALS_PER_DAY
        missing = [f"{start}" for start, data in expect.get("keys", {}).items()
                   if int(start) + INTERVALS_PER_DAY > horizon and by_start.get(start) != [data]]
        doubled = [start for start, data in by_start.items() if len(data) > 1]
        days = {int(start) // INTERVALS_PER_DAY for start in by_start}
        problem = None
        if missing:
            problem = "keys lost or changed: " + ", ".join(
                f"{start} (was {expect['keys'][start][:8]}…, now {by_start.get(start)})" for start in missing[:4])
        elif doubled or len(days) != len(by_start):
            problem = f"two keys for one day: {doubled or sorted(by_start)}"
        verdict("keys", problem, f"{len(expect.get('keys', {}))} reported, {len(keys)} on disk")

        # The key-sync cursor: a whole file, its line one of the index's, not before the one last reported.
        cursor = expect.get("cursor")
        if cursor is not None:
            line, damaged = cursor_on_disk
            listing = os.path.join(self.args.work, "keyserver", "index.txt")
            index = open(listing).read().split() if os.path.exists(listing) else []
            problem = damaged
            if not damaged and cursor.get("line") is not None:
                if line is None or line not in index:
                    problem = f"the cursor is {line!r}, not a line of the index (last reported {cursor['line']!r})"
                elif index.index(line) < index.index(cursor["line"]):
                    problem = f"the cursor went back from {cursor['line']} to {line}"
            verdict("key-sync-cursor", problem, f"after {line} (last reported {cursor.get('line')})")

        # The key share: a whole record, not behind what `keys share status` showed before the cut.
        share = expect.get("share")
        if share is not None:
            record, damaged = share_on_disk
            reported = share["progress"]
            on_disk = record_progress(record) if record is not None else None
            lapsed = now >= reported + SHARE_KEPT  # what it showed may since have been dropped
            problem = damaged
            if not damaged and reported and not lapsed:
                if on_disk is None:
                    problem = f"DATA/share is gone (last reported: {share})"
                elif on_disk < reported:
                    problem = f"DATA/share went back: its newest moment {on_disk}, {reported} reported ({share})"
            if not problem and on_disk is not None:
                seen = share_progress(self.share_status())
                if seen < on_disk:
                    problem = f"the agent shows the share at {seen}, DATA/share holds {on_disk}"
            verdict("key-share", problem, f"newest moment {on_disk} on disk, {reported} reported"
                    + (f", {record.get('outcome', 'pending')}" if record else ""))

        # Sightings: the ones listed before the cut, less those then pending, are still there (hours wholly
        # within retention at this check, first seen no later than the last listing).
        before = expect.get("sightings")
        if before is not None:
            hours, _, full = self.sightings_by_hour_until(before["newest"])
            cutoff = now - RETENTION + 3600
            eligible = [int(h) for h in before["hours"] if int(h) >= cutoff]
            promised = sum(before["hours"][str(h)] for h in eligible) - before["pending"]
            found = sum(hours.get(h, 0) for h in eligible)
            problem = None
            if before.get("full") or full:
                problem = None  # more than the listing shows: counted, not compared
            elif found < promised:
                problem = (f"sightings lost: {found} found in the hours since {cutoff}, {promised} were written "
                           f"({before['pending']} pending of those listed before the cut)")
            verdict("sightings", problem, f"{found} found, at least {max(promised, 0)} promised")
        return failures

    def sightings_by_hour_until(self, newest: int) -> tuple[dict[int, int], int, bool]:
        answer = self.ctl("sightings", "--limit", "10000", timeout=60)
        if not answer or "sightings" not in answer:
            raise RuntimeError(f"sightings: {answer}")
        hours: dict[int, int] = {}
        for sighting in answer["sightings"]:
            if sighting["time"] <= newest:
                hour = sighting["time"] // 3600 * 3600
                hours[hour] = hours.get(hour, 0) + 1
        return hours, newest, len(answer["sightings"]) >= 10000

    # --- the work -----------------------------------------------------------------------------------

    def work(self, rng: random.Random) -> None:
        """Actions chosen by the cut's seed, until the power goes."""
        config = self.config_value() or "1"
        while True:
            action = rng.choices(["rollover", "config", "restart", "report", "wait", "sync", "share"],
                                 [3, 3, 2, 2, 2, 2, 2])[0]
            if action == "rollover":
                # Across UTC midnight: a new day's key, made and made durable at once (the clock jump rotates).
                now = int(time.time())
                target = (now // DAY + 1) * DAY + rng.randint(0, 3)
                stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(target))
                emit(f"@@event rollover-begin {stamp}")
                answer = self.ctl("time", "set", stamp)
                emit(f"@@event rollover-done {json.dumps(answer, separators=(',', ':'))[:200]}")
                self.report(with_keys=True)
            elif action == "config":
                new = str(rng.randint(1, 4096))
                if new == config:
                    new = str(int(new) % 4096 + 1)
                emit(f"@@event config-begin {json.dumps({'old': config, 'new': new})}")
                answer = self.ctl("config", "set", "risk.threshold", new)
                if answer and "error" not in answer:
                    config = new
                emit(f"@@event config-done {json.dumps({'value': config, 'answer': json.dumps(answer)[:200]})}")
            elif action == "restart":
                # SIGTERM: the last housekeeping round (retention, then a flush of the pending sightings).
                emit("@@event stop-begin")
                status = self.stop_agent()
                emit(f"@@event stop-done {status}")
                self.start_agent()
                why = self.wait_on_air(30)
                if why:
                    emit(f"@@event restart-failed {why}")
                self.report(with_keys=True)
            elif action == "report":
                self.report(with_keys=False)
            elif action == "sync":
                # A new export on the server, then a sync: the cursor file replaced at the end of the run.
                line = self.publish_next_export()
                emit(f"@@event sync-begin {line}")
                answer = self.ctl("sync", "now", timeout=60)
                cursor, damaged = self.cursor_line()
                emit(f"@@event sync-done {json.dumps({'cursor': cursor, 'outcome': (answer or {}).get('outcome'), 'damaged': damaged})}")
            elif action == "share":
                self.share(rng)
            else:
                time.sleep(rng.uniform(0.2, 2.0))


def loopback_up() -> None:
    """Brings `lo` up (the kernel gives it 127.0.0.1 then) with SIOCGIFFLAGS/SIOCSIFFLAGS: the guest is the host's
    root, which need not have iproute2."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH22x", b"lo", 0)  # struct ifreq: 40 bytes
        flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, request)[:18])[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH22x", b"lo", flags | 0x1))  # IFF_UP


def read_share_record(path: str) -> tuple[dict | None, str | None]:
    """DATA/share as the cut left it: (its fields, or None when there is none; a problem, or None). A record is
    whole when every line is one of the agent's fields and what one part needs is there: a pending share's times,
    attempts and token or certificate; a certificate's secret, keys and expiry; an outcome's message."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None, None
    digest = hashlib.sha256(raw).hexdigest()[:12]
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None, f"DATA/share is not text ({len(raw)} bytes, sha256 {digest})"
    fields: dict[str, str] = {}
    for line in text.split("\n")[:-1]:
        name, space, value = line.partition(" ")
        if not space or name not in SHARE_FIELDS or (name in fields and name != "outcome_warning"):
            return None, f"DATA/share has a line that is not the agent's ({len(raw)} bytes, sha256 {digest})"
        fields[name] = value
    needs = []
    if not text.endswith("\n") or fields.get("format") != "1":
        needs.append("its format line and final line break")
    if "consented_at" in fields:
        needs += [f for f in ("test_type", "token_expires_at", "publish_after", "attempts") if f not in fields]
        if "token" not in fields and "certificate" not in fields:
            needs.append("a token or a certificate")
    if "certificate" in fields:
        needs += [f for f in ("secret", "key_starts", "certificate_expires_at") if f not in fields]
    if "outcome" in fields and "outcome_message" not in fields:
        needs.append("outcome_message")
    if ("published_key_starts" in fields) != ("published_at" in fields):
        needs.append("published_key_starts with published_at")
    if needs:
        return None, f"DATA/share is not whole: it lacks {', '.join(needs)} ({len(raw)} bytes, sha256 {digest})"
    return fields, None


def record_progress(fields: dict) -> int:
    """How far on a record is: its newest moment (a consent, an outcome, a publication)."""
    moments = [int(fields.get("consented_at", 0)), int(fields.get("published_at", 0))]
    if "outcome" in fields:
        moments.append(int(fields["outcome"].split(" ")[1]))
    return max(moments)


def share_progress(status: dict) -> int:
    """The same moment from `keys share status --json`."""
    outcome = status.get("lastOutcome") or {}
    return max(status.get("consentedAt") or 0, status.get("publishedAt") or 0, outcome.get("at") or 0)


def block_sectors_written(device: str = "vda") -> int:
    """The block device's own counter: sectors written (field 7 of /sys/block/DEV/stat, 512 bytes each)."""
    with open(f"/sys/block/{device}/stat") as f:
        return int(f.read().split()[6])


def bench(guest: Guest, seconds: float) -> dict:
    """Tools/bench/flash-writes: the agent on air for `seconds`, under strace counting its fsyncs when strace is
    there; bytes it had written (/proc/PID/io write_bytes) and the disk's sectors written, from the agent on
    air to its clean stop; the most sightings pending (what a power cut then costs) at 1 s samples."""
    subprocess.run(["mount", "-t", "ext4", "-o", MOUNT_OPTIONS, "/dev/vda", guest.mount], check=True)
    os.makedirs(os.path.dirname(guest.config), mode=0o700, exist_ok=True)
    with open(guest.config, "w") as f:
        f.write("risk.threshold = 1\n")
    subprocess.run(["sync"])
    strace_out = os.path.join(guest.args.work, "strace.txt")
    traced = shutil.which("strace") is not None
    command = [guest.enbeacon, "run", "--board", guest.board, "--data", guest.data, "--config", guest.config,
               "--console", "none"]
    if traced:
        command = ["strace", "-f", "-qq", "-c", "-e", "trace=fsync,fdatasync,sync_file_range,syncfs",
                   "-o", strace_out] + command
    log = open(os.path.join(guest.args.work, "agent-bench.log"), "w")
    guest.agent = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    guest.agent_log = log.name
    why = guest.wait_on_air(60)
    if why:
        raise RuntimeError(why)
    pid = agent_pid(guest.agent.pid, guest.enbeacon)
    sectors_at_start = block_sectors_written()
    started = time.monotonic()
    most_pending = 0
    while time.monotonic() - started < seconds:
        storage = guest.ctl("storage", timeout=10) or {}
        most_pending = max(most_pending, storage.get("pendingSightings", 0))
        with open(f"/proc/{pid}/io") as f:
            io = dict(line.split(": ") for line in f.read().splitlines())
        time.sleep(1.0)
    ran = time.monotonic() - started
    storage = guest.ctl("storage", timeout=10) or {}
    os.kill(pid, signal.SIGTERM)  # the agent itself: strace passes nothing on
    guest.agent.wait(60)
    subprocess.run(["sync"])
    sectors = block_sectors_written() - sectors_at_start
    fsyncs = None
    if traced:
        fsyncs = 0
        for line in open(strace_out):
            fields = line.split()
            if fields and fields[-1] in ("fsync", "fdatasync", "sync_file_range", "syncfs"):
                fsyncs += int(fields[3])
    return {"seconds": ran, "write_bytes": int(io["write_bytes"]), "device_bytes": sectors * 512,
            "fsyncs": fsyncs, "most_pending": most_pending, "stored": storage.get("storedSightings"),
            "store_bytes": storage.get("bytes")}


def agent_pid(child: int, enbeacon: str) -> int:
    """The agent's pid: the child itself, or strace's child."""
    try:
        with open(f"/proc/{child}/task/{child}/children") as f:
            children = f.read().split()
        if children:
            return int(children[0])
    except OSError:
        pass
    return child


def tail(path: str, lines: int = 4) -> str:
    try:
        with open(path) as f:
            return " | ".join(f.read().strip().splitlines()[-lines:])
    except OSError:
        return ""


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--enbeacon", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--mount", default="/run/badge-data")
    parser.add_argument("--cut", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--now", type=int, required=True, help="the wall clock to start from (Unix seconds)")
    parser.add_argument("--fresh", action="store_true", help="the disk was just made: nothing to check")
    parser.add_argument("--bench", type=float, help="Tools/bench/flash-writes: run the agent this many seconds")
    parser.add_argument("--check-only", action="store_true", help="check, stop the agent, power off")
    parser.add_argument("--healthauthority", help="Tools/healthauthority/healthauthority.py, for key shares")
    args = parser.parse_args()
    os.makedirs(args.mount, exist_ok=True)
    guest = Guest(args)
    # The guest's clock goes on from where the last boot left it (never back: one key per day).
    subprocess.run(["date", "-u", "-s", f"@{args.now}"], capture_output=True)
    try:
        if args.bench:
            emit("@@bench " + json.dumps(bench(guest, args.bench)))
            subprocess.run(["umount", args.mount])
            return 0
        if args.healthauthority and not args.check_only:
            # Up before the agent, as a real server is: a share the agent resumes at once finds it.
            guest.start_health_authority()
        if args.fresh:
            subprocess.run(["mount", "-t", "ext4", "-o", MOUNT_OPTIONS, "/dev/vda", args.mount], check=True)
            os.makedirs(os.path.dirname(guest.config), mode=0o700, exist_ok=True)
            with open(guest.config, "w") as f:
                f.write("risk.threshold = 1\n" + guest.keyserver_config() + guest.share_config())
            subprocess.run(["sync"])
            guest.start_agent()
            why = guest.wait_on_air(30)
            if why:
                emit(f"@@check FAIL on-air {why}")
                emit("@@checked 1")
                return 1
            emit("@@checked 0")
        else:
            with open(os.path.join(args.work, "expect.json")) as f:
                expect = json.load(f)
            failures = guest.check(expect)
            emit(f"@@checked {failures}")
            # After a failed check the work goes on when the agent runs: a long run reports every failing cut.
            if args.check_only or guest.agent is None or guest.agent.poll() is not None:
                if guest.agent and guest.agent.poll() is None:
                    guest.stop_agent()
                subprocess.run(["umount", args.mount])
                return 1 if failures else 0
        guest.report(with_keys=True)
        emit("@@ready")
        guest.work(random.Random(args.seed))
    except Exception as error:  # the host sees it as a failed check, with the reason
        emit(f"@@check FAIL guest {error!r}")
        emit("@@checked 1")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
