#!/usr/bin/env python3
"""One guest connection carried to a host port: what QEMU's `guestfwd=...-cmd:` runs for each connection.

    stdio_to_tcp.py PORT

QEMU's user network starts the command once per connection the guest opens, with that connection on stdin and
stdout. The other form, `guestfwd=...-tcp:HOST:PORT`, is a character device opened once at QEMU's start: it
carried the badge's first request (index.txt) and never a second (the export), and the guest's connection never
saw the server close, so the first key sync hung. Bytes go both ways until either side closes; a half-close is
passed on, as an HTTP client's end of request is.
"""

import os
import selectors
import socket
import sys


def main() -> int:
    port = int(sys.argv[1])
    upstream = socket.create_connection(("127.0.0.1", port), timeout=30)
    upstream.settimeout(None)
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, "guest")
    selector.register(upstream, selectors.EVENT_READ, "host")
    # Until the server closes: the guest's end of request only half-closes the server's side.
    while True:
        for key, _ in selector.select():
            if key.data == "guest":
                data = os.read(0, 65536)
                if data:
                    upstream.sendall(data)
                else:
                    selector.unregister(0)
                    upstream.shutdown(socket.SHUT_WR)
            else:
                data = upstream.recv(65536)
                if data:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(1, view):]
                else:
                    # The server is done: the guest's connection ends with it (stdout is that socket).
                    return 0


if __name__ == "__main__":
    sys.exit(main())
