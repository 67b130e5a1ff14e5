#!/usr/bin/env python3
"""A key server for tests: serves a folder over HTTP (or HTTPS) on 127.0.0.1, with faults on demand.

    keyserver.py --root DIR [--port 0] [--log FILE] [--drop PATH=COUNT]... [--fail PATH=COUNT:STATUS]...
                 [--redirect PATH=LOCATION]... [--wrong-length PATH=DELTA]... [--drip PATH=BYTES_PER_SECOND]...
                 [--cert PEM --key PEM]

Prints "port N" on stdout once it listens. Every request's path is appended to --log (one line each,
flushed at once) so a test can count what a client fetched.

--drop PATH=COUNT  the first COUNT requests of PATH get the headers (with the full Content-Length)
                   and half the body, then the connection is reset: a server dying mid-file.
--fail PATH=COUNT:STATUS  the first COUNT requests of PATH are answered with STATUS and no body.
--redirect PATH=LOCATION  every request of PATH is answered 302 with that Location (absolute or relative).
--wrong-length PATH=DELTA  PATH is served whole with a Content-Length off by DELTA (e.g. +1000, -100),
                   then the connection is closed: a lying server, not a dying one.
--drip PATH=RATE   PATH is sent RATE bytes a second (the headers at once): a server that never finishes.

Processes started from a test may inherit blocked SIGTERM/SIGINT/SIGHUP (the event-loop tests block
them); they are unblocked first so the server can be stopped like any other.
"""

import argparse
import http.server
import os
import signal
import socket
import ssl
import struct
import sys
import threading
import time

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})


def parse_counts(values, with_status=False):
    table = {}
    for value in values or []:
        path, _, rest = value.partition("=")
        if with_status:
            count, _, status = rest.partition(":")
            table[path] = [int(count), int(status)]
        else:
            table[path] = [int(rest), 0]
    return table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log")
    parser.add_argument("--drop", action="append")
    parser.add_argument("--fail", action="append")
    parser.add_argument("--redirect", action="append")
    parser.add_argument("--wrong-length", action="append")
    parser.add_argument("--drip", action="append")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()

    drops = parse_counts(args.drop)
    failures = parse_counts(args.fail, with_status=True)
    redirects = dict(v.partition("=")[::2] for v in args.redirect or [])
    wrong_lengths = {k: int(v) for k, v in (x.partition("=")[::2] for x in args.wrong_length or [])}
    drips = {k: int(v) for k, v in (x.partition("=")[::2] for x in args.drip or [])}
    lock = threading.Lock()
    log = open(args.log, "a", buffering=1) if args.log else None

    def take(table, path):
        """Consumes one fault for path; returns its entry while faults remain."""
        with lock:
            entry = table.get(path)
            if entry and entry[0] > 0:
                entry[0] -= 1
                return entry
            return None

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **kw):
            super().__init__(*a, directory=args.root, **kw)

        def log_message(self, *a):
            pass

        def do_GET(self):
            path = self.path.split("?", 1)[0]
            if log:
                with lock:
                    log.write(path + "\n")
            failure = take(failures, path)
            if failure:
                self.send_response(failure[1])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if take(drops, path):
                self.drop_mid_file(path)
                return
            if path in redirects:
                self.send_response(302)
                self.send_header("Location", redirects[path])
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if path in wrong_lengths:
                self.serve_raw(path, length_delta=wrong_lengths[path])
                return
            if path in drips:
                self.serve_raw(path, rate=drips[path])
                return
            super().do_GET()

        def serve_raw(self, path, length_delta=0, rate=None):
            with open(os.path.join(args.root, path.lstrip("/")), "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(max(0, len(body) + length_delta)))
            self.end_headers()
            self.wfile.flush()
            try:
                if rate is None:
                    self.wfile.write(body)
                else:
                    for start in range(0, len(body), rate):
                        self.wfile.write(body[start:start + rate])
                        self.wfile.flush()
                        time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

        def drop_mid_file(self, path):
            with open(os.path.join(args.root, path.lstrip("/")), "rb") as f:
                body = f.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            # SO_LINGER 0: close with a reset, as a crashed server or a cut link would.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", args.port), Handler)
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"port {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
