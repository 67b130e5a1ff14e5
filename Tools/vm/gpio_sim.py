"""A gpio-sim chip in the guest, and the GPIO character device seen from outside enbeacon.

gpio-sim (configfs): a chip is a folder under /sys/kernel/config/gpio-sim with a bank folder holding
num_lines and one folder per named line; writing 1 to `live` makes it a real gpiochip. Its sysfs
(/sys/devices/platform/<dev_name>/<chip_name>/sim_gpioN/) shows each line's `value` as driven by whoever
holds it, and `pull` (pull-up / pull-down) is the outside world driving an input.

Line info and a line held by another program go through the kernel's uAPI v2 here, packed from the
<linux/gpio.h> layouts written out below, independently of enbeacon's C wrappers.
"""

import fcntl
import os
import struct
import time

CONFIGFS = "/sys/kernel/config"
GPIO_MAX_NAME_SIZE = 32

# enum gpio_v2_line_flag
FLAG_USED, FLAG_ACTIVE_LOW, FLAG_INPUT, FLAG_OUTPUT = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FLAG_EDGE_RISING, FLAG_EDGE_FALLING = 1 << 4, 1 << 5
FLAG_BIAS_PULL_UP, FLAG_BIAS_PULL_DOWN, FLAG_BIAS_DISABLED = 1 << 8, 1 << 9, 1 << 10
FLAG_NAMES = [(FLAG_USED, "used"), (FLAG_ACTIVE_LOW, "active-low"), (FLAG_INPUT, "input"), (FLAG_OUTPUT, "output"),
              (FLAG_EDGE_RISING, "rising"), (FLAG_EDGE_FALLING, "falling"), (FLAG_BIAS_PULL_UP, "pull-up"),
              (FLAG_BIAS_PULL_DOWN, "pull-down"), (FLAG_BIAS_DISABLED, "bias-disabled")]

# struct gpio_v2_line_info: name[32], consumer[32], offset, num_attrs, flags (u64), attrs[10] (16 bytes each:
# id, padding, a u64 union), padding[4] -> 256 bytes.
LINE_INFO = struct.Struct("=32s32sIIQ160s16s")
# struct gpio_v2_line_request: offsets[64], consumer[32], config (flags u64, num_attrs, padding[5], attrs[10] of
# 24 bytes: attribute + mask), num_lines, event_buffer_size, padding[5], fd -> 592 bytes.
LINE_REQUEST = struct.Struct("=64I32sQI20s240sII20si")


# struct gpiochip_info: name[32], label[32], lines.
CHIP_INFO = struct.Struct("=32s32sI")


def _iowr(number: int, size: int, direction: int = 3) -> int:
    return (direction << 30) | (size << 16) | (0xB4 << 8) | number


GPIO_GET_CHIPINFO_IOCTL = _iowr(0x01, CHIP_INFO.size, direction=2)

GPIO_V2_GET_LINEINFO_IOCTL = _iowr(0x05, LINE_INFO.size)
GPIO_V2_GET_LINE_IOCTL = _iowr(0x07, LINE_REQUEST.size)
assert LINE_INFO.size == 256 and LINE_REQUEST.size == 592


def flag_names(flags: int) -> list[str]:
    return [name for bit, name in FLAG_NAMES if flags & bit]


class LineInfo:
    def __init__(self, raw: bytes) -> None:
        name, consumer, self.offset, _, self.flags, _, _ = LINE_INFO.unpack(raw)
        self.name = name.split(b"\0", 1)[0].decode()
        self.consumer = consumer.split(b"\0", 1)[0].decode()

    @property
    def used(self) -> bool:
        return bool(self.flags & FLAG_USED)

    def __repr__(self) -> str:
        return f"{self.offset} {self.name!r} consumer {self.consumer!r} [{', '.join(flag_names(self.flags))}]"


def line_info(device: str, offset: int) -> LineInfo:
    buffer = bytearray(LINE_INFO.size)
    struct.pack_into("=I", buffer, 64, offset)
    fd = os.open(device, os.O_RDWR)
    try:
        fcntl.ioctl(fd, GPIO_V2_GET_LINEINFO_IOCTL, buffer)
    finally:
        os.close(fd)
    return LineInfo(bytes(buffer))


def hold_line(device: str, offset: int, consumer: str) -> int:
    """Requests `offset` as an input for `consumer` (another program holding it); returns the line's fd."""
    offsets = [offset] + [0] * 63
    request = bytearray(LINE_REQUEST.pack(*offsets, consumer.encode(), FLAG_INPUT, 0, bytes(20), bytes(240),
                                          1, 0, bytes(20), -1))
    fd = os.open(device, os.O_RDWR)
    try:
        fcntl.ioctl(fd, GPIO_V2_GET_LINE_IOCTL, request)
    finally:
        os.close(fd)
    return LINE_REQUEST.unpack(bytes(request))[-1]


class SimChip:
    """A gpio-sim chip with named lines, live until `remove`."""

    def __init__(self, name: str, label: str, lines: list[str]) -> None:
        if not os.path.ismount(CONFIGFS):
            os.makedirs(CONFIGFS, exist_ok=True)
            if os.system(f"mount -t configfs none {CONFIGFS}") != 0:
                raise RuntimeError(f"cannot mount configfs on {CONFIGFS}")
        self.folder = f"{CONFIGFS}/gpio-sim/{name}"
        self.bank = f"{self.folder}/bank0"
        os.mkdir(self.folder)
        os.mkdir(self.bank)
        _write(f"{self.bank}/num_lines", str(len(lines)))
        _write(f"{self.bank}/label", label)
        for offset, line in enumerate(lines):
            os.mkdir(f"{self.bank}/line{offset}")
            _write(f"{self.bank}/line{offset}/name", line)
        _write(f"{self.folder}/live", "1")
        self.lines = lines
        self.chip_name = _read(f"{self.bank}/chip_name")
        self.dev_name = _read(f"{self.folder}/dev_name")
        self.device = f"/dev/{self.chip_name}"
        self.sysfs = f"/sys/devices/platform/{self.dev_name}/{self.chip_name}"
        # udev is not running: the device node comes from devtmpfs, which may take a moment.
        deadline = time.monotonic() + 10
        while not os.path.exists(self.device) and time.monotonic() < deadline:
            time.sleep(0.05)

    def chip_info(self) -> tuple[str, str, int]:
        """(name, label, lines) as GPIO_GET_CHIPINFO_IOCTL gives them."""
        buffer = bytearray(CHIP_INFO.size)
        fd = os.open(self.device, os.O_RDWR)
        try:
            fcntl.ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, buffer)
        finally:
            os.close(fd)
        name, label, lines = CHIP_INFO.unpack(bytes(buffer))
        return name.split(b"\0", 1)[0].decode(), label.split(b"\0", 1)[0].decode(), lines

    def value(self, offset: int) -> int:
        return int(_read(f"{self.sysfs}/sim_gpio{offset}/value"))

    def pull(self, offset: int, direction: str) -> None:
        _write(f"{self.sysfs}/sim_gpio{offset}/pull", direction)

    def info(self, offset: int) -> LineInfo:
        return line_info(self.device, offset)

    def remove(self) -> None:
        _write(f"{self.folder}/live", "0")
        for offset in range(len(self.lines)):
            os.rmdir(f"{self.bank}/line{offset}")
        os.rmdir(self.bank)
        os.rmdir(self.folder)


def _read(path: str) -> str:
    with open(path) as f:
        return f.read().strip()


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)
