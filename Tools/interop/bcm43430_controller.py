#!/usr/bin/env python3
"""A Bumble controller standing in for the Raspberry Pi 3's Broadcom BCM43430A1, so that Linux's own
`hci_uart` Broadcom driver (hci_bcm.c with btbcm.c) brings it up as hciN over a UART.

    python3 Tools/interop/bcm43430_controller.py [--count 2] [--seconds N]

Like Tools/interop/bumble_controllers.py (whose server this is: linked controllers, each behind an
H4-over-TCP server on 127.0.0.1, ports reported as one JSON line `{"ports": [P1, P2, ...]}` once they
listen), except that the first controller is a Bcm43430Controller: QEMU's PL011 (`-M raspi3b`, the
first `-serial tcp:127.0.0.1:P1`) is the Pi 3's Bluetooth UART, and the others are plain Bumble
controllers on the same virtual radio, for independent peers (Tools/interop/bumble_peer.py on
tcp-client:127.0.0.1:P2).

What the driver of Linux 6.1 sends at set-up, and what it checks of each answer (drivers/bluetooth/
btbcm.c btbcm_initialize/btbcm_finalize, hci_bcm.c bcm_setup):
  HCI_Reset; Read Local Version Information (9 bytes; LMP subversion 0x2209 names the chip
  "BCM43430A1" and the firmware file brcm/BCM43430A1.hcd); 0xFC79 Read Verbose Config (7 bytes,
  byte 1 the chip id); 0xFC6E Read Controller Features (9 bytes); Read Local Name (249 bytes).
  Without a .hcd file in the guest the driver logs "firmware Patch file not found" and set-up ends
  there. With one (Debian's bluez-firmware ships brcm/BCM43430A1.hcd) it also sends 0xFC2E Download
  Minidriver, the file's own commands (0xFC4C Write RAM ..., 0xFC4E Launch RAM), the five commands
  above again, 0xFC18 Update UART Baud Rate (to the node's max-speed, 2000000; 0xFC45 Write UART
  Clock Setting first above 3 Mbit/s), Read BD_ADDR, and 0xFC27 Set Sleep Mode where the node has a
  host-wake interrupt (the Pi 3's has none).
Stock Bumble 0.0.236 answers none of the vendor (OGF 0x3F) commands: it logs "Unsupported command"
and sends no event at all, so the driver times out on 0xFC79 (-110) and hciN never comes up. This
controller answers each of them with a Command Complete event of the length the driver checks.
The patch itself is accepted and ignored: the radio is Bumble's; a baud rate means nothing on a TCP
line. 0xFC01 Write BD_ADDR does change the public address, as on the chip.

Every vendor command received is written to stderr (`bcm43430: 0xfc79 Read Verbose Config`), so a
harness can show which ones the kernel sent.

Requires Bumble (PyPI `bumble`, the version pinned in Tools/interop/requirements.txt).
"""

import argparse
import asyncio
import signal
import sys

from bumble import hci
from bumble.controller import Controller

import bumble_controllers  # beside this file: the linked TCP servers and the ADV_NONCONN_IND fill-in

BROADCOM_COMPANY_IDENTIFIER = 0x000F
# The LMP subversion btbcm.c's UART table maps to "BCM43430A1" (001.002.009).
BCM43430A1_LMP_SUBVERSION = 0x2209
# Bluetooth 4.1, what the BCM43430A1 implements.
CORE_4_1 = 0x07
SUCCESS = bytes([hci.HCI_SUCCESS])

# Vendor opcode -> (name, return parameters after the status byte). Only the lengths and the bytes named
# are read by the driver; the chip id 94 and features 0x2e are what a Pi 3's kernel log shows for its chip.
VENDOR_COMMANDS: dict[int, tuple[str, bytes]] = {
    0xFC01: ("Write BD_ADDR", b""),
    0xFC18: ("Update UART Baud Rate", b""),
    0xFC1C: ("Write PCM Int Params", b""),
    0xFC1D: ("Read PCM Int Params", bytes(5)),
    0xFC27: ("Set Sleep Mode", b""),
    0xFC2E: ("Download Minidriver", b""),
    0xFC45: ("Write UART Clock Setting", b""),
    0xFC4C: ("Write RAM", b""),
    0xFC4E: ("Launch RAM", b""),
    0xFC6E: ("Read Controller Features", bytes([0x2E]) + bytes(7)),
    0xFC79: ("Read Verbose Config", bytes([94, 0, 0, 0, 0, 0])),
}


class Bcm43430Controller(Controller):
    """Bumble's controller with the BCM43430A1's identity and answers to the set-up vendor commands."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hci_version = CORE_4_1
        self.lmp_version = CORE_4_1
        self.manufacturer_company_identifier = BROADCOM_COMPANY_IDENTIFIER
        self.lmp_subversion = BCM43430A1_LMP_SUBVERSION
        self.local_name = "BCM43430A1"
        self.vendor_commands_received: list[int] = []

    def on_hci_command_packet(self, command: hci.HCI_Command) -> None:
        known = VENDOR_COMMANDS.get(command.op_code)
        if known is None:
            return super().on_hci_command_packet(command)
        name, parameters = known
        self.vendor_commands_received.append(command.op_code)
        detail = ""
        if command.op_code == 0xFC18 and len(command.parameters) == 6:
            # Two zero bytes, then the rate, little-endian: what the host switches its own UART to next.
            detail = f" {int.from_bytes(command.parameters[2:6], 'little')} baud"
        print(f"bcm43430: 0x{command.op_code:04x} {name}{detail}", file=sys.stderr, flush=True)
        if command.op_code == 0xFC01 and len(command.parameters) == 6:
            self.public_address = hci.Address(bytes(command.parameters), hci.Address.PUBLIC_DEVICE_ADDRESS)
        # Command Complete (0x0E): Num_HCI_Command_Packets, the opcode, then its return parameters.
        body = bytes([1]) + command.op_code.to_bytes(2, "little") + SUCCESS + parameters
        packet = bytes([hci.HCI_EVENT_PACKET, hci.HCI_COMMAND_COMPLETE_EVENT, len(body)]) + body
        if self.host:
            asyncio.get_running_loop().call_soon(self.host.on_packet, packet)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2,
                        help="controllers on the link, the first the BCM43430 (default 2)")
    parser.add_argument("--seconds", type=float, default=3600.0, help="exit after this many seconds (default 3600)")
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    if args.count < 1:
        parser.error("--count must be at least 1")
    bumble_controllers.transmit_all_undirected_legacy_advertising()
    try:
        asyncio.run(bumble_controllers.serve(args.count, args.seconds, first_class=Bcm43430Controller))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
