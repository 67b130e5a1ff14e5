#!/usr/bin/env python3
"""A Bumble controller behind /dev/vhci (the kernel sees it as hciN) and an independent GAEN peer.

Runs inside the test VM (Tools/vm/run-tests), as root, with the kernel module hci_vhci loaded:

    python3 Tools/vm/bumble_vhci.py [--rpi HEX --aem HEX]

Two Bumble controllers share one virtual radio (a LocalLink):
  - C0 is the kernel's controller: opening /dev/vhci registers a new adapter (hci0 on an otherwise
    empty machine), and the kernel, then enbeacon on `user:hci0`, talk HCI to C0.
  - C1 carries a Bumble host (bumble.device.Device): the peer. It advertises one GAEN payload and
    scans passively, an implementation independent of enbeacon's.

stdout: one JSON object per line, flushed at once; `t` is time.monotonic() of this process.
    {"event": "ready", "index": 0, "peer_address": "..", "peer_rpi": "<32 hex>", "t": ..}
    {"event": "report", "address": "..", "data": "<hex>", "t": ..}   every GAEN report the peer hears
                                                                      (not its own)
    {"event": "command", "name": "LE Set Advertising Enable", "enable": 0|1, "t": ..}
                                         C0's advertising/scan enable commands, as the host sent them
    {"event": "reset", "t": ..}          C0 received HCI_Reset
    {"event": "vanished", "t": ..}       C0's /dev/vhci closed: the kernel removed the adapter
    {"event": "returned", "index": N, "t": ..}  /dev/vhci opened again: a new adapter, a fresh C0
    {"event": "hardware-error", "code": N, "t": ..}
stdin: one command per line: `vanish`, `return`, `hardware-error [CODE]`, `quit`; without stdin
(end of file at once, as under systemd) it runs until it is killed.

With --h4-socket PATH (the arm64 VM, Tools/vm/arm64_vm.py) C0 is not on /dev/vhci but on the host end of
the guest's UART: a Unix socket (QEMU's chardev of a virtio console port) that the guest's hci_uart speaks
H4 on. The guest attaches and detaches the adapter (Tools/vm/h4_attach.c), so `ready` and `returned` carry
index -1; `vanish` and `return` only take C0 off the line and put a fresh one on it.

Two shims over Bumble 0.0.236 (the version pinned in Tools/interop/requirements.txt):
  1. ADV_NONCONN_IND is relayed to linked controllers: Tools/interop/bumble_controllers.py's
     fill-in, reused as it is (without it the peer would never hear a GAEN beacon).
  2. VhciTransport below replaces bumble.transport.vhci: the kernel refuses frames (write(2) fails
     with ENXIO) for an adapter that is down, which it is whenever no host has it open (between
     enbeacon's runs, while enbeacon re-opens it). Bumble's file transport treats that as fatal
     and stops writing for good; a real controller's host-bound packets are simply lost while
     nobody listens, so this transport drops them and counts them.
Also, unlike stock Bumble, C0 stops its legacy advertising and scanning on HCI_Reset, as a
controller does (Vol 4, Part E, 7.3.2): otherwise a host's recovery by reset could not be seen.
"""

import argparse
import asyncio
import errno
import json
import os
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "interop"))

from bumble import hci  # noqa: E402
from bumble.controller import Controller  # noqa: E402
from bumble.device import AdvertisingType, Device  # noqa: E402
from bumble.link import LocalLink  # noqa: E402
from bumble.transport.common import AsyncPipeSink, PacketParser  # noqa: E402

import bumble_controllers  # noqa: E402  (Tools/interop: the ADV_NONCONN_IND fill-in)
from bumble_peer import gaen_payload, random_nrpa  # noqa: E402

GAEN_SERVICE_DATA = bytes.fromhex("6ffd")  # 0xFD6F, little-endian, in the service data AD structure


def emit(event: str, **fields) -> None:
    fields = {"event": event, **fields, "t": round(time.monotonic(), 4)}
    sys.stdout.write(json.dumps(fields, separators=(",", ":")) + "\n")
    sys.stdout.flush()


class VhciTransport:
    """/dev/vhci as a Bumble source and sink (shim 2 above)."""

    VENDOR_PACKET = 0xFF
    PRIMARY_CONTROLLER = 0x00

    def __init__(self, path: str = "/dev/vhci") -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.parser = PacketParser()
        self.index: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.dropped = 0
        asyncio.get_running_loop().add_reader(self.fd, self._readable)
        # Asks the kernel to register a new adapter; it answers with the vendor packet naming its index.
        os.write(self.fd, bytes([self.VENDOR_PACKET, self.PRIMARY_CONTROLLER]))

    # Bumble's source interface: the controller registers itself as the sink of host-bound bytes.
    def set_packet_sink(self, sink) -> None:
        self.parser.set_packet_sink(sink)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        if data and data[0] == self.VENDOR_PACKET and len(data) == 4:
            if not self.index.done():
                self.index.set_result(data[2] << 8 | data[3])
            return
        self.parser.feed_data(data)

    def on_packet(self, packet: bytes) -> None:
        if self.fd < 0:
            return
        try:
            os.write(self.fd, packet)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            self.dropped += 1  # the adapter is down: nobody is listening

    def close(self) -> None:
        if self.fd >= 0:
            asyncio.get_running_loop().remove_reader(self.fd)
            os.close(self.fd)
            self.fd = -1


class UartTransport:
    """The host end of the guest's H4 UART as a Bumble source and sink, for one plug-in of C0: the
    socket stays connected across plug-ins (it is the cable), a fresh parser for each. What arrives
    while no C0 is plugged in is dropped, as a UART with no controller on it loses it."""

    def __init__(self, line: socket.socket) -> None:
        self.line = line
        self.parser = PacketParser()
        self.index: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        # The guest's kernel numbers the adapter when it attaches the line discipline.
        self.index.set_result(-1)
        self.dropped = 0
        self.fd = line.fileno()
        asyncio.get_running_loop().add_reader(self.fd, self._readable)

    def set_packet_sink(self, sink) -> None:
        self.parser.set_packet_sink(sink)

    def _readable(self) -> None:
        data = self.line.recv(4096)
        if not data:
            asyncio.get_running_loop().remove_reader(self.fd)
            emit("error", message="the guest's UART socket closed")
            return
        self.parser.feed_data(data)

    def on_packet(self, packet: bytes) -> None:
        if self.fd < 0:
            return
        self.line.sendall(packet)

    def close(self) -> None:
        if self.fd >= 0:
            asyncio.get_running_loop().remove_reader(self.fd)
            self.fd = -1


class KernelSideController(Controller):
    """C0: reports the host's radio commands, and stops advertising and scanning on reset."""

    def on_hci_reset_command(self, command):
        emit("reset")
        self.le_legacy_advertiser.stop()
        self.le_scan_enable = False
        return super().on_hci_reset_command(command)

    def on_hci_le_set_advertising_enable_command(self, command):
        emit("command", name="LE Set Advertising Enable", enable=int(command.advertising_enable))
        return super().on_hci_le_set_advertising_enable_command(command)

    def on_hci_le_set_scan_enable_command(self, command):
        emit("command", name="LE Set Scan Enable", enable=int(command.le_scan_enable))
        return super().on_hci_le_set_scan_enable_command(command)


class Rig:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.link = LocalLink()
        self.transport: VhciTransport | None = None
        self.controller: KernelSideController | None = None
        self.serial = 0
        self.line: socket.socket | None = None
        if args.h4_socket:
            self.line = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.line.connect(args.h4_socket)

    async def open_kernel_controller(self) -> int:
        if self.line is not None:
            self.transport = UartTransport(self.line)
        else:
            self.transport = VhciTransport(self.args.vhci)
        self.serial += 1
        # A fresh controller each time, as a replugged one is; a fixed public address per plug-in.
        address = hci.Address(f"F0:E0:00:00:00:{self.serial:02X}", hci.Address.PUBLIC_DEVICE_ADDRESS)
        self.controller = KernelSideController(
            f"C0-{self.serial}", host_source=self.transport, host_sink=self.transport,
            link=self.link, public_address=address)
        return await asyncio.wait_for(self.transport.index, 10)

    def close_kernel_controller(self) -> None:
        if self.controller is not None:
            self.controller.le_legacy_advertiser.stop()
            self.controller.le_scan_enable = False
            self.link.remove_controller(self.controller)
            self.controller.host = None
            self.controller = None
        if self.transport is not None:
            self.transport.close()
            self.transport = None

    async def start_peer(self) -> Device:
        peer_controller = Controller("C1", link=self.link)
        address = random_nrpa()
        device = Device.with_hci("vm-peer", address, peer_controller, AsyncPipeSink(peer_controller))
        own = address.to_string(False)

        def on_report(report) -> None:
            data = bytes(report.data)
            if GAEN_SERVICE_DATA not in data:
                return
            reporter = report.address.to_string(False)
            if reporter == own:
                return
            emit("report", address=reporter, data=data.hex())

        device.host.on("advertising_report", on_report)
        await device.power_on()
        await device.start_advertising(
            advertising_type=AdvertisingType.UNDIRECTED,
            own_address_type=hci.OwnAddressType.RANDOM,
            advertising_data=gaen_payload(self.args.rpi, self.args.aem),
            advertising_interval_min=250,
            advertising_interval_max=250,
        )
        await device.start_scanning(active=False, filter_duplicates=False)
        self.peer_address = own
        return device

    async def commands(self) -> None:
        reader = asyncio.StreamReader()
        await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while True:
            raw = await reader.readline()
            if not raw:
                # No one to take commands from (a systemd service's stdin is /dev/null): run until killed.
                await asyncio.Event().wait()
            line = raw.decode().strip()
            if line == "quit":
                return
            if not line:
                continue
            words = line.split()
            if words[0] == "vanish":
                self.close_kernel_controller()
                emit("vanished")
            elif words[0] == "return":
                index = await self.open_kernel_controller()
                emit("returned", index=index)
            elif words[0] == "hardware-error":
                code = int(words[1], 0) if len(words) > 1 else 0x42
                if self.transport is not None:
                    # HCI_Hardware_Error event (0x10), one parameter: the hardware code.
                    self.transport.on_packet(bytes([hci.HCI_EVENT_PACKET, 0x10, 0x01, code]))
                emit("hardware-error", code=code)
            else:
                emit("error", message=f"unknown command {line!r}")


async def main_async(args: argparse.Namespace) -> None:
    bumble_controllers.transmit_all_undirected_legacy_advertising()
    rig = Rig(args)
    await rig.start_peer()
    index = await rig.open_kernel_controller()
    emit("ready", index=index, peer_address=rig.peer_address, peer_rpi=args.rpi.hex())
    try:
        await rig.commands()
    finally:
        rig.close_kernel_controller()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vhci", default="/dev/vhci")
    parser.add_argument("--h4-socket", help="C0 on this Unix socket (a guest's H4 UART) instead of /dev/vhci")
    parser.add_argument("--rpi", type=bytes.fromhex, default=None, help="the peer's RPI, 32 hex digits")
    parser.add_argument("--aem", type=bytes.fromhex, default=bytes.fromhex("40080000"))
    args = parser.parse_args()
    if args.rpi is None:
        args.rpi = os.urandom(16)
    try:
        asyncio.run(main_async(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
