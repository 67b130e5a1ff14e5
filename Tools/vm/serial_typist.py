"""The host side of the serial-console case: a person at the other end of the guest's ttyS0.

QEMU connects the guest's first 8250 UART to a unix socket on the host (`-chardev socket`). Once the
guest says the agent runs with `--console /dev/ttyS0,115200`, `session` connects, types commands with
line-editing keys as a person would, reads what the agent's line editor echoes and answers, ends with
`quit`, and writes its verdict to WORK/serial-verdict.json, which the guest turns into the case's line.
"""

import json
import os
import re
import socket
import time

PROMPT = b"enbeacon> "
ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.settimeout(0.2)
        self.received = b""
        self.transcript = b""

    def type(self, keys: bytes) -> None:
        # One key at a time, a little apart, as from a keyboard (115200 baud is ~87 µs a byte anyway).
        for byte in keys:
            self.sock.sendall(bytes([byte]))
            time.sleep(0.01)

    def read_until(self, marker: bytes, timeout: float) -> bytes:
        """Everything up to and including the next `marker`; raises TimeoutError with what came."""
        deadline = time.monotonic() + timeout
        while marker not in self.received:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {marker!r} within {timeout:.0f} s; got {self.visible(self.received)!r}")
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                raise TimeoutError(f"the serial line closed; got {self.visible(self.received)!r}")
            self.received += chunk
            self.transcript += chunk
        head, _, self.received = self.received.partition(marker)
        return head + marker

    @staticmethod
    def visible(data: bytes) -> str:
        return ANSI.sub(b"", data).decode(errors="replace")

    def answer(self, keys: bytes, timeout: float = 20) -> str:
        """Types `keys` (ending with Enter) and returns the answer printed before the next prompt."""
        self.type(keys)
        # While a line is edited the editor redraws it from the prompt (CR, prompt, line); Enter ends the
        # line with CR LF, then comes the answer, then a fresh prompt.
        self.read_until(b"\r\n", timeout)
        return self.visible(self.read_until(PROMPT, timeout)[:-len(PROMPT)])


def session(socket_path: str, work: str) -> None:
    verdict = {"ok": False, "reason": "not run"}
    steps = []
    terminal = None
    try:
        terminal = Terminal(socket_path)
        terminal.type(b"\r")
        terminal.read_until(PROMPT, 20)

        # Ctrl-A to the start of the line to put back the missing first letter.
        answer = terminal.answer(b"tatus\x01s\r")
        expect(answer, "controller", "status typed as 'tatus', Ctrl-A, 's'")
        steps.append("Ctrl-A")
        # Tab completes a unique command prefix.
        answer = terminal.answer(b"hci in\t\r")
        expect(answer, "address", "'hci in' + Tab")
        steps.append("Tab")
        # Backspace and Left/Right arrows.
        answer = terminal.answer(b"timx\x7fe\x1b[D\x1b[C\r")
        expect(answer, "trust", "'timx', Backspace, 'e', Left, Right")
        steps.append("Backspace, arrows")
        # Ctrl-U throws the line away; Up recalls the previous command.
        answer = terminal.answer(b"wipe --yes\x15status\r")
        expect(answer, "controller", "'wipe --yes', Ctrl-U, 'status'")
        answer = terminal.answer(b"\x1b[A\r")
        expect(answer, "controller", "Up recalling status")
        steps.append("Ctrl-U, history")
        terminal.type(b"quit\r")
        terminal.read_until(b"stopping", 20)
        steps.append("quit")
        verdict = {"ok": True, "summary": "prompt, " + ", ".join(steps) + " on ttyS0 at 115200 baud"}
    except (OSError, TimeoutError, AssertionError) as error:
        verdict = {"ok": False, "reason": f"{error} (after: {', '.join(steps) or 'nothing'})"}
    finally:
        if terminal is not None:
            with open(os.path.join(work, "serial-transcript.txt"), "wb") as f:
                f.write(terminal.transcript)
        with open(os.path.join(work, "serial-verdict.json.tmp"), "w") as f:
            json.dump(verdict, f)
        os.rename(os.path.join(work, "serial-verdict.json.tmp"), os.path.join(work, "serial-verdict.json"))


def expect(answer: str, text: str, what: str) -> None:
    if text not in answer:
        raise AssertionError(f"{what}: expected {text!r} in the answer, got {answer.strip()[:300]!r}")
