"""HTTP plumbing of the test servers: one listener per service on 127.0.0.1 (port by bind(0), kept when the
service is taken down and brought back), strict body reading, the record of every request, and the faults a
test can inject.

Every answer closes its connection, so a service taken down ("unreachable") refuses the very next request:
no idle keep-alive connection survives to reach it.
"""

import http.server
import json
import socket
import struct
import threading
import time

from ha_common import MAX_BODY_BYTES

# Bodies larger than the limit are still read (up to this much) before the refusal is sent, so that the
# client sees the answer rather than a connection reset caused by unread data.
_DRAIN_LIMIT = 4 * 1024 * 1024


class Request:
    def __init__(self, method, path, query, headers, body, too_large, body_bytes):
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers  # lower-case names
        self.body = body  # bytes, at most MAX_BODY_BYTES (empty when too_large)
        self.too_large = too_large
        self.body_bytes = body_bytes  # as received, for the record

    def header(self, name):
        return self.headers.get(name.lower(), "")


class Response:
    def __init__(self, status, body=b"", content_type="application/json", headers=None, error_code=None,
                 fault=None):
        self.status = status
        self.body = body if isinstance(body, bytes) else body.encode("utf-8")
        self.content_type = content_type
        self.headers = headers or {}
        self.error_code = error_code  # for the request record
        self.fault = fault  # the injected fault that produced this answer, for the request record


def json_response(status, document, error_code=None, headers=None):
    return Response(status, json.dumps(document, separators=(",", ":")), headers=headers, error_code=error_code)


# Special outcomes of a fault: the connection is cut instead of answered.
RESET = "reset"
HANG = "hang"


class RequestLog:
    """Every request the API services received, in order, with its body and what it was answered. Kept in
    memory for /_test/requests; with a path, also appended (without bodies or headers) as JSON lines, flushed
    at once, so "no request was made" can be checked even after the server is gone."""

    def __init__(self, clock, path=None):
        self._clock = clock
        self._lock = threading.Lock()
        self._records = []
        self._file = open(path, "a", buffering=1) if path else None

    def add(self, service, request):
        with self._lock:
            record = {
                "seq": len(self._records) + 1,
                "time": round(self._clock.now(), 3),
                "server": service,
                "method": request.method,
                "path": request.path,
                "headers": request.headers,
                "bodyBytes": request.body_bytes,
                "body": request.body.decode("utf-8", errors="replace"),
                "chaff": bool(request.header("x-chaff").strip()),
                "status": None,
                "errorCode": None,
                "fault": None,
            }
            self._records.append(record)
            return record

    def finish(self, record, status, error_code=None, fault=None):
        with self._lock:
            record["status"] = status
            record["errorCode"] = error_code
            record["fault"] = fault
            if self._file:
                line = {k: v for k, v in record.items() if k not in ("headers", "body")}
                self._file.write(json.dumps(line) + "\n")

    def records(self, server=None, since=0):
        with self._lock:
            return [dict(r) for r in self._records if r["seq"] > since and (server is None or r["server"] == server)]

    def clear(self):
        with self._lock:
            self._records.clear()


class Fault:
    KINDS = ("unreachable", "status", "reset", "hang", "delay", "certificate-rejected", "partial-failure")

    def __init__(self, spec, fault_id):
        self.id = fault_id
        self.server = spec.get("server")
        self.path = spec.get("path")
        self.kind = spec.get("kind")
        self.count = spec.get("count")
        self.seconds = spec.get("seconds")
        self.status = spec.get("status")
        self.error_code = spec.get("errorCode")
        self.retry_after = spec.get("retryAfter")
        self.drop = spec.get("drop", 1)
        self.delay = spec.get("delay")
        self.created = time.monotonic()
        self.released = threading.Event()  # set when cleared or expired: hung requests let go
        if self.kind not in self.KINDS:
            raise ValueError(f"kind must be one of {', '.join(self.KINDS)}")
        if self.server not in ("verification", "keyserver"):
            raise ValueError("server must be verification or keyserver")
        if self.kind == "delay" and (not isinstance(self.delay, (int, float)) or self.delay <= 0):
            raise ValueError("a delay fault needs delay (seconds before the request is served, > 0)")
        if self.kind == "status" and not isinstance(self.status, int):
            raise ValueError("a status fault needs status (an HTTP status code)")
        if self.count is not None and (not isinstance(self.count, int) or self.count < 1):
            raise ValueError("count must be a positive integer")
        if self.seconds is not None and (not isinstance(self.seconds, (int, float)) or self.seconds <= 0):
            raise ValueError("seconds must be positive")
        if self.kind == "unreachable" and self.count is not None:
            raise ValueError("an unreachable server refuses connections: give seconds (or clear it), not count")
        if self.kind in ("certificate-rejected", "partial-failure") and self.server != "keyserver":
            raise ValueError(f"{self.kind} applies to the keyserver")

    def expired(self):
        return self.seconds is not None and time.monotonic() - self.created >= self.seconds

    def describe(self):
        return {"id": self.id, "server": self.server, "path": self.path, "kind": self.kind, "count": self.count,
                "seconds": self.seconds, "status": self.status}


class Faults:
    """Injected failures. Count-limited faults are used up by the requests they hit; timed ones lapse after
    `seconds` of real time; any fault lasts until cleared otherwise."""

    def __init__(self):
        self._lock = threading.Lock()
        self._faults = []
        self._next_id = 1
        self.services = {}  # name -> Service, for unreachable

    def add(self, spec):
        with self._lock:
            fault = Fault(spec, self._next_id)
            self._next_id += 1
            self._faults.append(fault)
        if fault.kind == "unreachable":
            self.services[fault.server].down()
            if fault.seconds is not None:
                timer = threading.Timer(fault.seconds, self._lapse, args=(fault,))
                timer.daemon = True
                timer.start()
        elif fault.seconds is not None:
            timer = threading.Timer(fault.seconds, fault.released.set)
            timer.daemon = True
            timer.start()
        return fault

    def _lapse(self, fault):
        with self._lock:
            if fault not in self._faults:
                return
            self._faults.remove(fault)
        fault.released.set()
        self._restore(fault.server)

    def _restore(self, server):
        with self._lock:
            still_down = any(f.kind == "unreachable" and f.server == server for f in self._faults)
        if not still_down:
            self.services[server].up()

    def clear(self):
        with self._lock:
            cleared, self._faults = self._faults, []
        for fault in cleared:
            fault.released.set()
        for server in {f.server for f in cleared if f.kind == "unreachable"}:
            self._restore(server)
        return len(cleared)

    def take(self, server, path, kinds):
        """Uses up one matching fault of one of `kinds` for a request to `server` `path`, or None."""
        with self._lock:
            for fault in list(self._faults):
                if fault.expired():
                    self._faults.remove(fault)
                    continue
                if fault.server != server or fault.kind not in kinds or (fault.path and fault.path != path):
                    continue
                if fault.count is not None:
                    fault.count -= 1
                    if fault.count == 0:
                        self._faults.remove(fault)
                return fault
            return None

    def describe(self):
        with self._lock:
            return [f.describe() for f in self._faults if not f.expired()]


class Service:
    """One HTTP listener on 127.0.0.1. `handle(request)` returns a Response, RESET or (HANG, fault)."""

    def __init__(self, name, handle, log=None, faults=None, port=0):
        self.name = name
        self.handle = handle
        self.log = log
        self.faults = faults
        self.port = port
        self._lock = threading.Lock()
        self._server = None
        self.up()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def up(self):
        with self._lock:
            if self._server:
                return
            server = _ThreadingServer(("127.0.0.1", self.port), _Handler)
            server.service = self
            self.port = server.server_address[1]
            self._server = server
            threading.Thread(target=server.serve_forever, name=f"{self.name}-http", daemon=True).start()

    def down(self):
        """Stops listening: connections to the port are refused until up()."""
        with self._lock:
            server, self._server = self._server, None
        if server:
            server.shutdown()
            server.server_close()

    @property
    def is_up(self):
        return self._server is not None


class _ThreadingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "enbeacon-test-healthauthority"
    sys_version = ""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self._serve()

    def do_POST(self):
        self._serve()

    def do_PUT(self):
        self._serve()

    def do_DELETE(self):
        self._serve()

    def do_HEAD(self):
        self._serve()

    def _read_body(self):
        """(body, too_large, bytes received). Chunked bodies are decoded; oversized ones drained."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            data = bytearray()
            while True:
                size_line = self.rfile.readline(1024)
                try:
                    size = int(size_line.split(b";")[0].strip(), 16)
                except ValueError:
                    break
                if size == 0:
                    self.rfile.readline(1024)
                    break
                chunk = self.rfile.read(size)
                self.rfile.readline(8)
                if len(data) <= _DRAIN_LIMIT:
                    data += chunk
            received = len(data)
            return (bytes(data), False, received) if received <= MAX_BODY_BYTES else (b"", True, received)
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = 0
        if length <= MAX_BODY_BYTES:
            body = self.rfile.read(length) if length > 0 else b""
            return body, False, len(body)
        remaining = min(length, _DRAIN_LIMIT)
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                break
            remaining -= len(chunk)
        if length > _DRAIN_LIMIT:
            self.close_connection = True
        return b"", True, length

    def _serve(self):
        service = self.server.service
        path, _, query = self.path.partition("?")
        body, too_large, received = self._read_body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = Request(self.command, path, query, headers, body, too_large, received)
        record = service.log.add(service.name, request) if service.log else None
        # A slow service: the request waits, then is served as usual (faults checked after the wait apply).
        delay = service.faults.take(service.name, path, ("delay",)) if service.faults else None
        if delay:
            delay.released.wait(timeout=delay.delay)
        outcome = service.handle(request)
        if outcome == RESET:
            if record:
                service.log.finish(record, None, fault="reset")
            # SO_LINGER 0: the close sends a reset, as a crashed server or a cut link would.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if isinstance(outcome, tuple) and outcome[0] == HANG:
            if record:
                service.log.finish(record, None, fault="hang")
            outcome[1].released.wait(timeout=600)
            self.close_connection = True
            return
        response = outcome
        if record:
            service.log.finish(record, response.status, response.error_code, fault=response.fault)
        self.send_response(response.status)
        self.send_header("Content-Type", response.content_type)
        self.send_header("Content-Length", str(len(response.body)))
        self.send_header("Connection", "close")
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)
        self.close_connection = True
