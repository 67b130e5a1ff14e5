#!/usr/bin/env python3
"""Two (or more) linked Bumble virtual controllers, each behind its own H4-over-TCP server on
127.0.0.1, on ports the kernel picks.

Like `python3 -m bumble.apps.controllers tcp-server:_:P1 tcp-server:_:P2`, with two differences that
matter to tests: the listening sockets are bound to the loopback address only (Bumble's `_` host form
binds every interface), and the ports are chosen by bind(port 0) and reported once the sockets
listen, so there is no window between "pick a free port" and "bind it" for another process to steal.

Prints one JSON line on stdout once every server is listening:
    {"ports": [P1, P2]}
then runs until it is killed (or for --seconds N, a safety net for callers that die).

One gap of Bumble 0.0.236's controller is filled here, unless --stock is given: a legacy advertiser
(LE Set Advertising Parameters / Data / Enable) transmits only when its type is ADV_IND; asked for
ADV_NONCONN_IND (what GAEN beacons use) it silently sends nothing at all, so no Bumble host would ever
hear a standards-following GAEN beacon. With the fill-in, ADV_NONCONN_IND (and ADV_SCAN_IND) go on
the virtual link as an ADV_IND PDU, the only legacy PDU Bumble's receiving side understands; the
receiving controller then reports it as connectable (a known, harmless deviation). Advertising sets
(the extended commands) are unaffected: Bumble transmits those whatever their properties.

Requires Bumble (PyPI `bumble`, the version pinned in Tools/interop/requirements.txt).
"""

import argparse
import asyncio
import json
import signal
import socket
import sys

from bumble import hci, ll
from bumble.controller import Controller, LegacyAdvertiser
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket


_TRANSMITTED_LEGACY_TYPES = (
    hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_IND,
    hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_SCAN_IND,
    hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_NONCONN_IND,
)


def _send_undirected_legacy_advertising_data(self: LegacyAdvertiser) -> None:
    if not self.enabled or self.advertising_type not in _TRANSMITTED_LEGACY_TYPES:
        return
    self.controller.send_advertising_pdu(
        ll.AdvInd(advertiser_address=self.address, data=self.advertising_data)
    )


def transmit_all_undirected_legacy_advertising() -> None:
    """Make this process's Bumble controllers transmit ADV_NONCONN_IND / ADV_SCAN_IND too."""
    LegacyAdvertiser.send_advertising_data = _send_undirected_legacy_advertising_data


async def serve(count: int, seconds: float, first_class: type[Controller] = Controller) -> None:
    """Runs `count` linked controllers; the first is a `first_class` (bcm43430_controller.py's stand-in)."""
    link = LocalLink()
    transports = []
    controllers = []
    ports = []
    for index in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        ports.append(sock.getsockname()[1])
        transport = await open_tcp_server_transport_with_socket(sock)
        transports.append(transport)
        controllers.append(
            (first_class if index == 0 else Controller)(
                f"C{index}",
                host_source=transport.source,
                host_sink=transport.sink,
                link=link,
            )
        )
    print(json.dumps({"ports": ports}), flush=True)
    try:
        await asyncio.sleep(seconds)
    finally:
        for transport in transports:
            await transport.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2, help="number of linked controllers (default 2)")
    parser.add_argument(
        "--seconds", type=float, default=600.0, help="exit after this many seconds (default 600)"
    )
    parser.add_argument(
        "--stock",
        action="store_true",
        help="run Bumble's controller unchanged (legacy ADV_NONCONN_IND is then never transmitted)",
    )
    args = parser.parse_args()
    # A parent may start us with termination signals blocked (Foundation's Process, as used by the
    # Swift tests, passes its thread's blocked mask on), and SIGTERM would then never stop us.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    if args.count < 1:
        parser.error("--count must be at least 1")
    if not args.stock:
        transmit_all_undirected_legacy_advertising()
    try:
        asyncio.run(serve(args.count, args.seconds))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
