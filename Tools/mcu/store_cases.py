#!/usr/bin/env python3
"""The sighting store's cases of the microcontroller image's case file (the line format is at the top of
Tools/mcu/VectorCheck.swift; what each checks is in Tools/mcu/StoreCases.swift).

`storefill` lines carry what the store must hold after its flushes, worked out here from the ring's rules as
docs/architecture.md's store section and Sources/Store's format comments state them, not from the code under
test: a record is a 20-byte header and a payload of 1 + 28 bytes a sighting; a flush of n sightings is one record;
a segment is one flash page of 3,840 data bytes; a record that would take the newest segment past that starts a
new segment; after each flush the oldest segments go while the segments together are over the budget of twelve
pages' data. `storecut` lines name the work before a cut; the image cuts the power at every flash operation of the
flush that follows, so their expectations are the store's promises, checked by the image.

Used by vectors.py; alone: store_cases.py > cases.txt
"""

SEGMENT_BYTES = 3840        # a 4 KB page less its 256-byte header (Tools/mcu/FlashPage.swift)
HEADER, VERSION, ENTRY = 20, 1, 28
MOST = 40                    # sightings in a flush at most (StoreCases.mostInFlush)
BUDGET = 12 * (SEGMENT_BYTES - (HEADER + VERSION + ENTRY * MOST) + 1)  # StoreCases.settings: 32,400 bytes


def filled(batch, flushes):
    """Segments and sightings the store holds after `flushes` flushes of `batch` sightings each."""
    segments = []  # [bytes, sightings] per segment, oldest first
    record = HEADER + VERSION + ENTRY * batch
    for _ in range(flushes):
        if not segments or (segments[-1][0] != 0 and segments[-1][0] + record > SEGMENT_BYTES):
            segments.append([0, 0])
        segments[-1][0] += record
        segments[-1][1] += batch
        while len(segments) > 1 and sum(s[0] for s in segments) > BUDGET:
            segments.pop(0)
    return len(segments), sum(s[1] for s in segments)


def lines():
    out = ["# the sighting store on the flash part"]
    # One page; pages in turn; a page's 58 length words used up (1-sighting flushes: the file moves to a fresh
    # page); the budget reached, the oldest pages erased; a flush of the most that fits a page.
    for batch, flushes in [(1, 10), (40, 12), (1, 70), (33, 40), (40, 60), (7, 300)]:
        segments, sightings = filled(batch, flushes)
        out.append(f"storefill {batch} {flushes} {segments} {sightings}")
    # Cuts in: an append to a page; the first flush (the first page taken); a flush that starts a page; a flush
    # on a page whose length words are used up (a copy to a fresh page); a flush after which the budget erases
    # the oldest page.
    for seed, flushes, most in [(1, 3, 20), (2, 0, 30), (3, 6, 40), (4, 58, 1), (5, 40, 40)]:
        out.append(f"storecut {seed} {flushes} {most}")
    return out


if __name__ == "__main__":
    print("\n".join(lines()))
