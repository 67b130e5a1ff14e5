#!/usr/bin/env python3
"""A health authority for tests: a verification server (/api/verify, /api/certificate) and a key server
(/v1/publish, signed exports with index.txt) that follow the published API of Google's
exposure-notifications-verification-server and exposure-notifications-server and refuse what they refuse.
See README.md here.

    healthauthority.py serve [options]          run both servers (and a control listener); prints one JSON line
    healthauthority.py issue-code [options]     a new verification code, printed on stdout
    healthauthority.py code-state CODE used|expired
    healthauthority.py expire-tokens            every token issued so far lapses
    healthauthority.py fault [options]          inject a failure
    healthauthority.py clear-faults
    healthauthority.py clock [--set T | --advance D]
    healthauthority.py requests [--server S] [--since N]
    healthauthority.py published
    healthauthority.py export                   run the export worker now

Client commands find the running server by --control URL, --state-dir DIR (its ready.json) or the
HEALTHAUTHORITY_CONTROL environment variable.
"""

import argparse
import calendar
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ha_common as common  # noqa: E402
import ha_export as export  # noqa: E402
from ha_http import Faults, RequestLog, Service, json_response  # noqa: E402
from ha_keyserver import HealthAuthority, KeyServer  # noqa: E402
from ha_records import Records  # noqa: E402
from ha_verification import CodeError, VerificationServer  # noqa: E402


def parse_time(text):
    """Unix seconds, or an ISO-8601 UTC time such as 2026-11-22T14:05:00Z."""
    try:
        return float(text)
    except ValueError:
        pass
    for layout in ("%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%dT%H:%MZ", "%Y-%m-%d"):
        try:
            return float(calendar.timegm(time.strptime(text, layout)))
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(f"not a time: {text!r} (unix seconds or 2026-11-22T14:05:00Z)")


def duration(text):
    try:
        return common.parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# ---------------------------------------------------------------------------------------------------------
# serve

class Control:
    """The /_test/ API on its own listener, so it answers while a service is down."""

    def __init__(self, clock, faults, log, verification, keyserver):
        self.clock = clock
        self.faults = faults
        self.log = log
        self.verification = verification
        self.keyserver = keyserver

    def handle(self, request):
        try:
            body = json.loads(request.body or b"{}") if request.method == "POST" else {}
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
            return json_response(200, self._route(request, body))
        except LookupError:
            return json_response(404, {"error": f"no such control endpoint: {request.method} {request.path}"})
        except (ValueError, CodeError) as error:
            return json_response(400, {"error": str(error)})

    def _route(self, request, body):
        route = (request.method, request.path)
        query = dict(part.split("=", 1) for part in request.query.split("&") if "=" in part)
        if route == ("POST", "/_test/codes"):
            return self.verification.issue_code(
                test_type=body.get("testType", "confirmed"), expires_in=body.get("expiresIn"),
                long=bool(body.get("long", False)), symptom_date=body.get("symptomDate"),
                test_date=body.get("testDate"), state=body.get("state", "fresh"), code=body.get("code"))
        if route == ("POST", "/_test/code-state"):
            self.verification.set_code_state(body.get("code"), body.get("state"))
            return {"ok": True}
        if route == ("POST", "/_test/tokens/expire"):
            return {"expired": self.verification.expire_tokens()}
        if request.path == "/_test/clock":
            if request.method == "POST":
                if "now" in body:
                    self.clock.set(float(body["now"]))
                if "advance" in body:
                    self.clock.advance(float(body["advance"]))
            return {"now": self.clock.now()}
        if route == ("POST", "/_test/faults"):
            return {"id": self.faults.add(body).id}
        if route == ("GET", "/_test/faults"):
            return {"faults": self.faults.describe()}
        if route == ("POST", "/_test/faults/clear"):
            return {"cleared": self.faults.clear()}
        if route == ("GET", "/_test/requests"):
            return {"requests": self.log.records(query.get("server"), int(query.get("since", "0")))}
        if route == ("POST", "/_test/requests/clear"):
            self.log.clear()
            return {"ok": True}
        if route == ("GET", "/_test/published"):
            return {"keys": self.keyserver.published(), "index": self._index()}
        if route == ("POST", "/_test/export"):
            return {"file": self.keyserver.run_export()}
        if route == ("GET", "/_test/state"):
            return {"now": self.clock.now(), "faults": self.faults.describe(),
                    "verification": self.verification.describe(), "index": self._index()}
        raise LookupError(request.path)

    def _index(self):
        path = os.path.join(self.keyserver.export_root, self.keyserver.prefix, "index.txt")
        with open(path, encoding="ascii") as f:
            return f.read().split()


def serve(args):
    # A parent may start us with termination signals blocked (Foundation's Process passes its thread's
    # mask on, and the event-loop tests block them): unblock, so SIGTERM stops us like any server.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    stop = threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, lambda *_: stop.set())

    own_state_dir = args.state_dir is None
    state_dir = tempfile.mkdtemp(prefix="healthauthority-") if own_state_dir else args.state_dir
    os.makedirs(state_dir, exist_ok=True)
    ready_path = os.path.join(state_dir, "ready.json")
    clock = common.Clock(args.now)
    faults = Faults()
    log = RequestLog(clock, args.request_log)
    verification = VerificationServer(
        clock, faults, api_key=args.api_key or secrets.token_hex(16), issuer=args.issuer,
        audience=args.audience, token_lifetime=args.token_lifetime, certificate_lifetime=args.certificate_lifetime)
    kept_signing_key = os.path.join(state_dir, "export-signing.pem")
    if args.keep_records and not args.signing_key and os.path.exists(kept_signing_key):
        signing_key = export.load_or_generate_signing_key(kept_signing_key)
    else:
        signing_key = export.load_or_generate_signing_key(args.signing_key)
        if args.keep_records and not args.signing_key:
            common.replace_file(kept_signing_key, common.private_pem(signing_key), mode=0o600)
    public_key_path = os.path.join(state_dir, "export-public.pem")
    with open(public_key_path, "wb") as f:
        f.write(export.public_pem(signing_key))
    authority = HealthAuthority(args.health_authority_id, args.issuer, args.audience,
                                verification.certificate_public_keys)
    keyserver = KeyServer(clock, faults, [authority], signing_key, args.key_id, args.key_version, args.region,
                          os.path.join(state_dir, "exports"), args.max_keys)

    records = Records(state_dir, verification, keyserver)
    kept = records.kept if args.keep_records else (lambda handle: handle)
    if args.keep_records:
        records.load()
    ports = args.ports or (0, 0, 0)
    services = {
        "verification": Service("verification", kept(verification.handle), log, faults, ports[0]),
        "keyserver": Service("keyserver", kept(keyserver.handle), log, faults, ports[1]),
    }
    faults.services = services
    control = Service("control", kept(Control(clock, faults, log, verification, keyserver).handle), port=ports[2])
    vs, ks = services["verification"].url, services["keyserver"].url
    ready = {
        "verification_url": vs,
        "verify_url": vs + "/api/verify",
        "certificate_url": vs + "/api/certificate",
        "keyserver_url": ks,
        "publish_url": ks + "/v1/publish",
        "index_url": f"{ks}/{keyserver.prefix}/index.txt",
        "base_url": ks + "/",
        "control_url": control.url,
        "api_key": verification.api_key,
        "health_authority_id": args.health_authority_id,
        "public_key": public_key_path,
        "key_id": args.key_id,
        "key_version": args.key_version,
        "region": args.region,
        "state_dir": state_dir,
    }
    with open(ready_path, "w") as f:
        json.dump(ready, f)
    print(json.dumps(ready), flush=True)
    try:
        stop.wait(timeout=args.seconds)
    finally:
        faults.clear()
        for service in (*services.values(), control):
            service.down()
        if own_state_dir:
            shutil.rmtree(state_dir, ignore_errors=True)
    return 0


# ---------------------------------------------------------------------------------------------------------
# client commands

def control_url(args):
    if args.control:
        return args.control.rstrip("/")
    if args.state_dir:
        with open(os.path.join(args.state_dir, "ready.json")) as f:
            return json.load(f)["control_url"]
    if os.environ.get("HEALTHAUTHORITY_CONTROL"):
        return os.environ["HEALTHAUTHORITY_CONTROL"].rstrip("/")
    raise SystemExit("no server given: use --control URL, --state-dir DIR or HEALTHAUTHORITY_CONTROL")


def call(args, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(control_url(args) + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        raise SystemExit(json.load(error).get("error", str(error))) from None
    except urllib.error.URLError as error:
        raise SystemExit(f"cannot reach the control listener: {error.reason}") from None


def issue_code(args):
    state = "used" if args.used else "expired" if args.expired else "fresh"
    answer = call(args, "POST", "/_test/codes", {
        "testType": args.test_type, "expiresIn": args.expires_in, "long": args.long,
        "symptomDate": args.symptom_date, "testDate": args.test_date, "state": state, "code": args.code})
    print(json.dumps(answer) if args.json else answer["code"])


def add_fault(args):
    spec = {"server": args.server, "kind": args.kind, "path": args.path, "count": args.count,
            "seconds": args.seconds, "status": args.status, "errorCode": args.error_code,
            "retryAfter": args.retry_after, "drop": args.drop, "delay": args.delay}
    print(call(args, "POST", "/_test/faults", {k: v for k, v in spec.items() if v is not None})["id"])


def clock(args):
    body = {}
    if args.set is not None:
        body["now"] = args.set
    if args.advance is not None:
        body["advance"] = args.advance
    print(call(args, "POST" if body else "GET", "/_test/clock", body or None)["now"])


def requests(args):
    query = f"?since={args.since}" + (f"&server={args.server}" if args.server else "")
    for record in call(args, "GET", "/_test/requests" + query)["requests"]:
        print(json.dumps(record))


def port_triple(text):
    try:
        ports = tuple(int(part) for part in text.split(","))
    except ValueError:
        ports = ()
    if len(ports) != 3 or not all(0 < port < 65536 for port in ports):
        raise argparse.ArgumentTypeError(f"expected three ports, e.g. 47001,47002,47003, not {text!r}")
    return ports


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command")

    run = commands.add_parser("serve", help="run the servers")
    run.add_argument("--api-key", help="the device API key the verification server accepts (default: random)")
    run.add_argument("--health-authority-id", default="enbeacon-test",
                     help="healthAuthorityID the key server knows (default enbeacon-test)")
    run.add_argument("--issuer", default="enbeacon-test-verification", help="iss of tokens and certificates")
    run.add_argument("--audience", default="enbeacon-test-keyserver", help="aud of certificates")
    run.add_argument("--region", default="US", help="region of the exports (default US)")
    run.add_argument("--key-id", default="enbeacon-test", help="verification_key_id the exports name")
    run.add_argument("--key-version", default="v1", help="verification_key_version the exports name")
    run.add_argument("--signing-key", help="PEM EC P-256 private key for exports (default: a fresh one)")
    run.add_argument("--state-dir", help="where exports and export-public.pem go (default: a temporary folder, "
                                         "removed at exit)")
    run.add_argument("--now", type=parse_time, help="start the servers' clock here (default: the wall clock)")
    run.add_argument("--token-lifetime", type=duration, default=24 * 3600.0, help="default 24h")
    run.add_argument("--certificate-lifetime", type=duration, default=15 * 60.0, help="default 15m")
    run.add_argument("--max-keys", type=int, default=30, help="MAX_KEYS_ON_PUBLISH (default 30)")
    run.add_argument("--request-log", help="append one JSON line per request (no bodies) to this file")
    run.add_argument("--ports", type=port_triple, metavar="V,K,C",
                     help="listen on these ports (verification, key server, control) instead of bind(0)'s, for a "
                          "badge configured before the server starts")
    run.add_argument("--keep-records", action="store_true",
                     help="keep codes, tokens, signing keys, stored keys and revision tokens in STATE_DIR across "
                          "restarts (needs --state-dir)")
    run.add_argument("--seconds", type=float, default=3600.0,
                     help="exit after this many seconds, a safety net for callers that die (default 3600)")

    def client(name, help_text):
        sub = commands.add_parser(name, help=help_text)
        sub.add_argument("--control", help="the control URL the server printed")
        sub.add_argument("--state-dir", help="the server's --state-dir (its ready.json names the control URL)")
        return sub

    issue = client("issue-code", "issue a verification code and print it")
    issue.add_argument("--test-type", default="confirmed", choices=["confirmed", "likely", "negative", "user-report"])
    issue.add_argument("--expires-in", type=duration, help="default 15m (short codes) or 24h (--long)")
    issue.add_argument("--long", action="store_true", help="16 letters and digits instead of 8 digits")
    issue.add_argument("--symptom-date", help="YYYY-MM-DD")
    issue.add_argument("--test-date", help="YYYY-MM-DD")
    issue.add_argument("--code", help="this code instead of a random one")
    issue.add_argument("--json", action="store_true", help="print the code, test type and expiry as JSON")
    state = issue.add_mutually_exclusive_group()
    state.add_argument("--used", action="store_true", help="the code is already used")
    state.add_argument("--expired", action="store_true", help="the code has already expired")

    code_state = client("code-state", "mark a code used or expired")
    code_state.add_argument("code")
    code_state.add_argument("state", choices=["used", "expired"])

    client("expire-tokens", "every token issued so far lapses")

    fault = client("fault", "inject a failure (see README.md); prints its id")
    fault.add_argument("--server", required=True, choices=["verification", "keyserver"])
    fault.add_argument("--kind", required=True,
                       choices=["unreachable", "status", "reset", "hang", "delay", "certificate-rejected",
                                "partial-failure"])
    fault.add_argument("--path", help="only requests to this path (e.g. /api/certificate)")
    fault.add_argument("--count", type=int, help="only the next N requests")
    fault.add_argument("--seconds", type=duration, help="only for this long (real time)")
    fault.add_argument("--status", type=int, help="status faults: the HTTP status")
    fault.add_argument("--error-code", help="status faults: the errorCode / code in the answer")
    fault.add_argument("--retry-after", type=int, help="status faults: a Retry-After header")
    fault.add_argument("--drop", type=int, help="partial-failure: how many keys are dropped (default 1)")
    fault.add_argument("--delay", type=duration, help="delay faults: seconds before the request is served")

    client("clear-faults", "remove every injected failure")

    clock_command = client("clock", "show or move the servers' clock")
    clock_command.add_argument("--set", type=parse_time)
    clock_command.add_argument("--advance", type=duration)

    listing = client("requests", "print the requests received, one JSON line each")
    listing.add_argument("--server", choices=["verification", "keyserver"])
    listing.add_argument("--since", type=int, default=0, help="only those after this sequence number")

    client("published", "print the stored keys and the index")
    client("export", "run the export worker now; print the new index line, if any")

    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["serve", *argv]  # serve is the default command
    args = parser.parse_args(argv)
    if args.command == "serve":
        if args.keep_records and not args.state_dir:
            parser.error("--keep-records needs --state-dir: the records are kept there")
        return serve(args)
    if args.command == "issue-code":
        issue_code(args)
    elif args.command == "code-state":
        call(args, "POST", "/_test/code-state", {"code": args.code, "state": args.state})
    elif args.command == "expire-tokens":
        print(call(args, "POST", "/_test/tokens/expire", {})["expired"])
    elif args.command == "fault":
        add_fault(args)
    elif args.command == "clear-faults":
        print(call(args, "POST", "/_test/faults/clear", {})["cleared"])
    elif args.command == "clock":
        clock(args)
    elif args.command == "requests":
        requests(args)
    elif args.command == "published":
        print(json.dumps(call(args, "GET", "/_test/published"), indent=1))
    elif args.command == "export":
        print(call(args, "POST", "/_test/export", {})["file"] or "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
