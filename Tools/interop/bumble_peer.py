#!/usr/bin/env python3
"""A GAEN peer written with Bumble's host stack: an implementation independent of enbeacon.

Attaches as a host to a Bumble (or any H4) controller, advertises one Exposure Notification payload
and scans passively at the same time, for --seconds, then exits 0.

    python3 Tools/interop/bumble_peer.py --transport tcp-client:127.0.0.1:P2 \
        --rpi <32 hex> --aem <8 hex> --seconds 60

Advertising data (31 bytes, GAEN Bluetooth spec v1.2):
    02 01 1A | 03 03 6F FD | 17 16 6F FD <RPI 16> <AEM 4>
sent non-connectable and non-scannable (ADV_NONCONN_IND as a legacy PDU) from a random
non-resolvable private address (two most significant bits 00), 250 ms interval, like Android.

stdout, one JSON object per line, flushed at once:
  - first, when advertising and scanning are both running:
        {"ready": true, "address": "AA:BB:CC:DD:EE:FF", "data": "<62 hex>"}
  - then every advertising report the controller delivers, exactly as received (no de-duplication,
    no merging of scan responses):
        {"address": "AA:BB:CC:DD:EE:FF", "address_type": 1, "data": "<hex>", "rssi": -50,
         "event_type": 1, "extended": true, "time": 1760000000.123}
    `address` is written most significant byte first; `event_type` is the raw Event_Type of the
    report: legacy report types 0-4, or the extended report bit field (bit 0 connectable, bit 3 scan
    response, bit 4 legacy PDU) when `extended` is true; `time` is the host's Unix time of reception.
Diagnostics go to stderr. Bumble 0.0.236's controller answers every scan with LE Extended
Advertising Reports and reports each advertisement twice (the second time flagged as a scan
response), always with RSSI -50; consumers must de-duplicate themselves.

Requires Bumble (PyPI `bumble`, the version pinned in Tools/interop/requirements.txt).
"""

import argparse
import asyncio
import json
import signal
import os
import sys
import time

from bumble import hci
from bumble.device import AdvertisingType, Device
from bumble.transport import open_transport


def gaen_payload(rpi: bytes, aem: bytes) -> bytes:
    assert len(rpi) == 16 and len(aem) == 4
    return (
        bytes.fromhex("02011a")  # Flags: LE General Discoverable, BR/EDR not supported
        + bytes.fromhex("03036ffd")  # Complete list of 16-bit service UUIDs: 0xFD6F
        + bytes.fromhex("17166ffd")  # Service Data - 16-bit UUID 0xFD6F, 22 bytes follow
        + rpi
        + aem
    )


def random_nrpa() -> hci.Address:
    """A non-resolvable private address: 46 random bits, the two most significant bits 00,
    neither all zeros nor all ones in those 46 bits."""
    while True:
        raw = bytearray(os.urandom(6))  # little-endian: raw[5] is the most significant byte
        raw[5] &= 0x3F
        value = int.from_bytes(raw, "little")
        if value not in (0, (1 << 46) - 1):
            return hci.Address(bytes(raw), hci.Address.RANDOM_DEVICE_ADDRESS)


def hex_bytes(length: int):
    def parse(text: str) -> bytes:
        try:
            value = bytes.fromhex(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {2 * length} hex digits, got {text!r}")
        if len(value) != length:
            raise argparse.ArgumentTypeError(f"expected {2 * length} hex digits, got {text!r}")
        return value

    return parse


def emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


async def run(args: argparse.Namespace) -> None:
    payload = gaen_payload(args.rpi, args.aem)
    address = random_nrpa() if args.address is None else hci.Address(
        args.address, hci.Address.RANDOM_DEVICE_ADDRESS
    )
    print(f"bumble_peer: opening {args.transport}", file=sys.stderr, flush=True)
    async with await open_transport(args.transport) as (source, sink):
        device = Device.with_hci("enbeacon-interop-peer", address, source, sink)

        def on_report(report) -> None:
            emit(
                {
                    "address": report.address.to_string(False),
                    "address_type": int(report.address.address_type),
                    "data": bytes(report.data).hex(),
                    "rssi": int(report.rssi),
                    "event_type": int(report.event_type),
                    "extended": isinstance(report, hci.HCI_LE_Extended_Advertising_Report_Event.Report),
                    "time": round(time.time(), 3),
                }
            )

        # Every raw report, before Bumble's Device merges scan responses into advertisements.
        device.host.on("advertising_report", on_report)

        await device.power_on()
        # power_on sets the random address given above (LE Set Random Address).
        await device.start_advertising(
            advertising_type=AdvertisingType.UNDIRECTED,
            own_address_type=hci.OwnAddressType.RANDOM,
            advertising_data=payload,
            advertising_interval_min=250,
            advertising_interval_max=250,
        )
        await device.start_scanning(active=False, filter_duplicates=False)
        emit({"ready": True, "address": address.to_string(False), "data": payload.hex()})
        await asyncio.sleep(args.seconds)
        await device.stop_scanning()
        await device.stop_advertising()
    print("bumble_peer: done", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", required=True, help="Bumble transport, e.g. tcp-client:127.0.0.1:9001")
    parser.add_argument("--rpi", required=True, type=hex_bytes(16), help="Rolling Proximity Identifier, 32 hex digits")
    parser.add_argument("--aem", required=True, type=hex_bytes(4), help="Associated Encrypted Metadata, 8 hex digits")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to advertise and scan (default 30)")
    parser.add_argument("--address", help="random address AA:BB:CC:DD:EE:FF to use (default: a fresh NRPA)")
    args = parser.parse_args()
    # A parent may start us with termination signals blocked (Foundation's Process, as used by the
    # Swift tests, passes its thread's blocked mask on), and SIGTERM would then never stop us.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
