"""A process's memory as issue 25 measures it, from /proc: the kB fields of status and smaps_rollup (VmRSS,
Private_Dirty, ...), and resident and private dirty kB by mapping (a file's name, [heap], [stack], [anonymous]).
Read through `read_text`, so the VM cases can read the guest's /proc through its shell. Used by guest_cases'
idle-memory case and by Tools/bench/idle-memory."""
import os
from typing import Callable


def memory_figures(read_text: Callable[[str], str], pid: int) -> tuple[dict[str, int], dict[str, list[int]]]:
    fields: dict[str, int] = {}
    for line in (read_text(f"/proc/{pid}/status") + read_text(f"/proc/{pid}/smaps_rollup")).splitlines():
        key, _, value = line.partition(":")
        if value.strip().endswith("kB"):
            fields[key.strip()] = int(value.split()[0])
    by_mapping: dict[str, list[int]] = {}
    current = "?"
    for line in read_text(f"/proc/{pid}/smaps").splitlines():
        words = line.split()
        if words and "-" in words[0] and ":" not in words[0]:
            current = os.path.basename(words[5]) if len(words) > 5 else "[anonymous]"
        elif words and words[0] in ("Rss:", "Private_Dirty:"):
            totals = by_mapping.setdefault(current, [0, 0])
            totals[0 if words[0] == "Rss:" else 1] += int(words[1])
    return fields, by_mapping


def largest_mappings(by_mapping: dict[str, list[int]], count: int = 7) -> str:
    """The `count` largest mappings by resident kB, as "name rss/dirty, ..."."""
    largest = sorted(by_mapping.items(), key=lambda item: -item[1][0])[:count]
    return ", ".join(f"{name} {rss_kb:,}/{dirty_kb:,}" for name, (rss_kb, dirty_kb) in largest)
