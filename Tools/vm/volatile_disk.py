"""A disk with a volatile write cache, served to QEMU over NBD, for Tools/vm/power-cuts.

Killing QEMU is not a power cut by itself: whatever QEMU has already written to its image file sits in the
host's page cache and survives, flushed or not, whatever the cache= mode (only cache=unsafe differs, and only
when the host itself crashes). A real card acknowledges writes into its own cache and keeps only what a flush
(or a FUA write) made durable; the rest may be lost, in any subset and any order, and a write may tear.

So the data disk is this NBD server (on a Unix socket; QEMU is the client with `cache.no-flush=off`, the guest's
virtio-blk has `write-cache=on`, so the guest's kernel sends flushes as it would to a card with a cache):
  - reads see every write, flushed or not (the card's cache answers them);
  - a write is pending until the next FLUSH (or a FUA write, which here flushes everything before it too);
  - a FLUSH makes every pending write durable;
  - when the connection drops without NBD_CMD_DISC (QEMU killed: the power cut), each pending write is, by a
    random generator the caller seeds, kept whole, lost whole, or torn (a random subset of its 512-byte
    sectors kept), and applied in order to the durable image; the next boot reads only that.
cache=unsafe on the client would never send a FLUSH: nothing would ever become durable here, and a cut would
lose even what ext4's journal committed, which is why it is the wrong mode.

NBD's fixed newstyle handshake with NBD_OPT_GO (and NBD_OPT_EXPORT_NAME for old clients), simple replies
only; the protocol is the one in NBD's doc/proto.md.
"""

import random
import socket
import struct
import threading

NBD_MAGIC = b"NBDMAGIC"
IHAVEOPT = 0x49484156454F5054
REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES = 1, 2
OPT_EXPORT_NAME, OPT_ABORT, OPT_GO = 1, 2, 7
REP_ACK, REP_INFO, REP_ERR_UNSUP = 1, 3, (1 << 31) + 1
INFO_EXPORT = 0
# Transmission flags: has flags, flush and FUA supported (no trim: ext4 is not mounted with discard).
TRANSMISSION_FLAGS = 1 | 4 | 8
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH = 0, 1, 2, 3
CMD_FLAG_FUA = 1
EINVAL, ENOSPC = 22, 28
SECTOR = 512


class VolatileDisk:
    """The durable image plus the writes acknowledged since the last flush."""

    def __init__(self, image: bytes, ignore_flushes: bool = False) -> None:
        # ignore_flushes: what cache=unsafe does to the guest's flushes, to show that the checks catch it.
        self.ignore_flushes = ignore_flushes
        self.durable = bytearray(image)
        self.view = bytearray(image)        # what reads see: durable + pending
        self.pending: list[tuple[int, bytes]] = []
        self.counters = {"writes": 0, "written_bytes": 0, "flushes": 0, "cuts_lost": 0, "cuts_torn": 0,
                         "cuts_kept": 0}
        self.lock = threading.Lock()

    def size(self) -> int:
        return len(self.durable)

    def write(self, offset: int, data: bytes, fua: bool) -> None:
        with self.lock:
            self.view[offset:offset + len(data)] = data
            self.pending.append((offset, data))
            self.counters["writes"] += 1
            self.counters["written_bytes"] += len(data)
            if fua:
                self._flush()

    def flush(self) -> None:
        with self.lock:
            self._flush()

    def _flush(self) -> None:
        if self.ignore_flushes:
            return
        for offset, data in self.pending:
            self.durable[offset:offset + len(data)] = data
        self.pending.clear()
        self.counters["flushes"] += 1

    def cut(self, rng: random.Random) -> dict:
        """The power goes: each pending write kept, lost or torn; returns what happened to them."""
        with self.lock:
            kept = lost = torn = 0
            for offset, data in self.pending:
                fate = rng.random()
                if fate < 0.4:
                    self.durable[offset:offset + len(data)] = data
                    kept += 1
                elif fate < 0.8 or len(data) <= SECTOR:
                    lost += 1
                else:
                    for start in range(0, len(data), SECTOR):
                        if rng.random() < 0.5:
                            self.durable[offset + start:offset + start + SECTOR] = data[start:start + SECTOR]
                    torn += 1
            self.pending.clear()
            self.view[:] = self.durable
            self.counters["cuts_kept"] += kept
            self.counters["cuts_lost"] += lost
            self.counters["cuts_torn"] += torn
            return {"pending": kept + lost + torn, "kept": kept, "lost": lost, "torn": torn}


def _read_exactly(connection: socket.socket, count: int) -> bytes:
    data = bytearray()
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return bytes(data)


class Server:
    """Serves `disk` to one client at a time on the Unix socket `path`; `on_cut` is called with the cut's
    report when a client goes away without saying so (the caller then has the durable image)."""

    def __init__(self, disk: VolatileDisk, path: str, rng: random.Random) -> None:
        self.disk = disk
        self.rng = rng
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(1)
        self.done = threading.Event()
        self.cut_report: dict | None = None
        self.error: str | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.listener.close()

    def wait(self, timeout: float) -> None:
        self.done.wait(timeout)

    def _serve(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            self.done.set()
            return
        clean = False
        try:
            with connection:
                if self._handshake(connection):
                    clean = self._transmission(connection)
        except (ConnectionError, OSError):
            clean = False
        except Exception as error:  # a protocol error is the harness's bug: say it
            self.error = f"nbd server: {error!r}"
        finally:
            if not clean:
                self.cut_report = self.disk.cut(self.rng)
            self.listener.close()
            self.done.set()

    def _handshake(self, connection: socket.socket) -> bool:
        connection.sendall(NBD_MAGIC + struct.pack(">QH", IHAVEOPT, FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES))
        (client_flags,) = struct.unpack(">I", _read_exactly(connection, 4))
        no_zeroes = bool(client_flags & FLAG_NO_ZEROES)
        while True:
            magic, option, length = struct.unpack(">QII", _read_exactly(connection, 16))
            if magic != IHAVEOPT:
                raise ValueError(f"bad option magic {magic:#x}")
            _read_exactly(connection, length)  # the option's data: the export name and what is asked
            if option == OPT_EXPORT_NAME:
                connection.sendall(struct.pack(">QH", self.disk.size(), TRANSMISSION_FLAGS)
                                   + (b"" if no_zeroes else b"\0" * 124))
                return True
            if option == OPT_ABORT:
                self._reply(connection, option, REP_ACK)
                return False
            if option == OPT_GO:
                info = struct.pack(">HQH", INFO_EXPORT, self.disk.size(), TRANSMISSION_FLAGS)
                self._reply(connection, option, REP_INFO, info)
                self._reply(connection, option, REP_ACK)
                return True
            # Structured replies, meta contexts, TLS, lists: not offered; the client falls back.
            self._reply(connection, option, REP_ERR_UNSUP)

    @staticmethod
    def _reply(connection: socket.socket, option: int, kind: int, data: bytes = b"") -> None:
        connection.sendall(struct.pack(">QIII", REPLY_MAGIC, option, kind, len(data)) + data)

    def _transmission(self, connection: socket.socket) -> bool:
        size = self.disk.size()
        while True:
            magic, flags, kind, handle, offset, length = struct.unpack(">IHHQQI", _read_exactly(connection, 28))
            if magic != REQUEST_MAGIC:
                raise ValueError(f"bad request magic {magic:#x}")
            if kind == CMD_DISC:
                self.disk.flush()  # QEMU flushes before it disconnects anyway
                return True
            in_range = offset + length <= size
            if kind == CMD_WRITE:
                data = _read_exactly(connection, length)
                if in_range:
                    self.disk.write(offset, data, bool(flags & CMD_FLAG_FUA))
                connection.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, 0 if in_range else ENOSPC, handle))
            elif kind == CMD_READ:
                if not in_range:
                    connection.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, EINVAL, handle))
                    continue
                with self.disk.lock:
                    data = bytes(self.disk.view[offset:offset + length])
                connection.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, 0, handle) + data)
            elif kind == CMD_FLUSH:
                self.disk.flush()
                connection.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, 0, handle))
            else:
                connection.sendall(struct.pack(">IIQ", SIMPLE_REPLY_MAGIC, EINVAL, handle))
