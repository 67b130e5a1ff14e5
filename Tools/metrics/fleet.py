"""What the fleet tests share: ports, waiting, Prometheus' HTTP API, agents on the virtual board, and the
identifiers a badge must never give away (its TEKs, RPIs and Bluetooth addresses), to search answers for.

Used by prometheus_check.py (a real Prometheus scraping two badges) and Tools/carehome/browser-check (the
care home's page in a real browser). Everything listens on 127.0.0.1.
"""
import json
import os
import re
import socket
import subprocess
import time
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, condition, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise TimeoutError(f"{what}: not within {timeout} s")


def query(port, expression):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
    with urllib.request.urlopen(url, timeout=5) as answer:
        document = json.load(answer)
    if document.get("status") != "success":
        raise RuntimeError(f"query {expression}: {document}")
    return document["data"]["result"]


def start_agent(enbeacon, work, name, settings=(), seconds=600):
    """`enbeacon run` on the virtual board with its data in WORK/NAME/data and its log in WORK/NAME.log;
    `settings` are `KEY=VALUE` for --set. Returns (process, data directory) once its console socket is up."""
    data = os.path.join(work, name, "data")
    os.makedirs(os.path.dirname(data), exist_ok=True)
    log = open(os.path.join(work, name + ".log"), "a")
    command = [enbeacon, "run", "--data", data, "--console", "none", "--seconds", str(seconds)]
    for setting in settings:
        command += ["--set", setting]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    socket_path = os.path.join(data, "console.sock")
    wait_for(f"{name}'s console socket", lambda: os.path.exists(socket_path) or process.poll() is not None, 60)
    if process.poll() is not None:
        raise RuntimeError(f"{name} exited with {process.returncode}: see {work}/{name}.log")
    return process, data


def ctl(enbeacon, data, *words):
    """One console command through `enbeacon ctl --json`; its JSON answer (raises on an error)."""
    answer = subprocess.run([enbeacon, "ctl", "--data", data, "--json", *words], capture_output=True, text=True,
                            timeout=60)
    if answer.returncode != 0:
        raise RuntimeError(f"ctl {' '.join(words)}: {answer.stderr.strip()}")
    return json.loads(answer.stdout)


def heard_beacons(enbeacon, data, seconds=4):
    """What the badge hears for a few seconds (`ctl live`): the simulated phones' RPIs and addresses."""
    try:
        out = subprocess.run([enbeacon, "ctl", "--data", data, "--json", "live"], capture_output=True, text=True,
                             timeout=seconds).stdout
    except subprocess.TimeoutExpired as stopped:
        out = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else (stopped.stdout or "")
    beacons = []
    for line in out.splitlines():
        try:
            beacons.append(json.loads(line))
        except ValueError:
            pass  # the last line, cut by the timeout
    return beacons


def key_secrets(enbeacon, tek, rolling_start, rolling_period):
    """A TEK (hex) and every RPI it gives over its validity (`enbeacon derive`)."""
    derived = subprocess.run([enbeacon, "derive", "--tek", tek, "--interval", str(rolling_start),
                              "--count", str(rolling_period), "--json"], capture_output=True, text=True, check=True)
    return {tek} | {row["rpi"] for row in json.loads(derived.stdout)["intervals"]}


def badge_secrets(enbeacon, data):
    """What no answer about this badge may contain: its TEKs and every RPI of their days, the RPIs it stored and
    heard, the heard phones' addresses and its controller's address. Strings as the console shows them (hex,
    colon-separated addresses)."""
    secrets = set()
    for key in ctl(enbeacon, data, "keys", "--reveal", "--yes")["keys"]:
        secrets |= key_secrets(enbeacon, key["key"], key["rollingStart"], key["rollingPeriod"])
    secrets |= {s["rpi"] for s in ctl(enbeacon, data, "sightings", "--limit", "10000")["sightings"]}
    for beacon in heard_beacons(enbeacon, data):
        secrets |= {beacon["rpi"], beacon["address"]}
    address = ctl(enbeacon, data, "hci", "info").get("address")
    if address:
        secrets.add(address)
    return secrets


def secrets_in(text, secrets):
    """The secrets `text` contains, in any case, and for a hex one its first 8 digits too (what `live` shows)
    when they hold a letter (eight decimal digits would be found in any Unix time); an address also without
    its colons."""
    lower = text.lower()
    found = []
    for secret in secrets:
        forms = {secret.lower()}
        if ":" in secret:
            forms.add(secret.replace(":", "").lower())
        elif re.fullmatch(r"[0-9a-fA-F]{16,}", secret) and re.search(r"[a-fA-F]", secret[:8]):
            forms.add(secret[:8].lower())
        if any(form in lower for form in forms):
            found.append(secret)
    return found
