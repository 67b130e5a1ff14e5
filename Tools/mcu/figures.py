#!/usr/bin/env python3
"""Prints the microcontroller image's figures (Tools/build-mcu): flash and RAM of the image and of the core,
the instructions per TEK matched, and each against its budget (docs/mcu.md).

Usage: figures.py IMAGE.elf IMAGE.map RUN.log

Flash is what the image keeps in flash: code, constants, unwind tables and .data's initial values. The map
file's input sections say where each byte comes from. RAM is .data + .bss + the heap's peak (how far _sbrk
grew) + the stack's peak (the painted stack read back), as the image printed them. Instructions come from
the board's timer under QEMU's -icount shift=0, calibrated by the image against a loop of known length;
instructions are not cycles (a Cortex-M4 takes more than one cycle for loads, branches and multiplies).
"""
import re
import subprocess
import sys

FLASH_SECTIONS = (".text", ".rodata", ".ARM.exidx", ".ARM.extab", ".init_array", ".preinit_array", ".fini_array",
                  ".swift_modhash", ".data")
BUDGET_FLASH, BUDGET_RAM, BUDGET_STACK = 256 * 1024, 64 * 1024, 4 * 1024


def section_sizes(image):
    out = subprocess.run(["arm-none-eabi-size", "-A", image], check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def origin(path):
    name = path.rsplit("/", 1)[-1]
    if name in ("ENCore.o", "SystemIO.o", "Store.o"):
        return "Swift: the core (ENCore, SystemIO's file-system interface, Store) and the stdlib it uses"
    if name == "MCUCheck.o":
        return "Swift: the test program and its flash driver"
    if name == "crc32.o":
        return "zlib's CRC-32"
    if name == "nor_flash.o":
        return "the flash part's model"
    if name in ("aes.o", "sha256.o", "platform_util.o"):
        return "mbedTLS (AES, SHA-256)"
    if name == "openssl_on_mbedtls.o":
        return "libcrypto subset on mbedTLS"
    if name == "startup.o":
        return "start-up and board support"
    if "UnicodeDataTables" in name:
        return "Swift's Unicode tables"
    if "libgcc" in name:
        return "libgcc"
    return "newlib-nano"


def flash_by_origin(map_path):
    """Sums the input sections placed in flash by the object they come from (GNU ld's map format: an output
    section's name at the line's start; an input section's name, address, size and object on one line, or its
    name alone on one and the rest on the next)."""
    totals, in_memory_map, in_flash = {}, False, False
    with open(map_path) as f:
        for line in f:
            if line.startswith("Linker script and memory map"):
                in_memory_map = True
                continue
            if not in_memory_map:
                continue
            output = re.match(r"^(\.\S+)", line)
            if output:
                in_flash = output.group(1) in FLASH_SECTIONS
                continue
            m = re.match(r"^ (?:\.\S+|COMMON)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.(?:o|a\(.*\)))\s*$", line)
            if m and in_flash:
                name = origin(m.group(3))
                totals[name] = totals.get(name, 0) + int(m.group(2), 16)
    return totals


def kb(n):
    return f"{n / 1024:.1f} KB"


def verdict(value, budget):
    return f"within the budget of {kb(budget)}" if value <= budget else f"OVER the budget of {kb(budget)}"


def main():
    image, map_path, log = sys.argv[1:4]
    sizes = section_sizes(image)
    flash = sum(sizes.get(s, 0) for s in FLASH_SECTIONS)
    figures = {}
    with open(log) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0] == "figure":
                figures[parts[1]] = int(parts[2])
    print(f"flash: {flash:,} bytes ({kb(flash)}): text {sizes.get('.text', 0):,}, rodata {sizes.get('.rodata', 0):,}, "
          f"data {sizes.get('.data', 0):,}, other {flash - sizes.get('.text', 0) - sizes.get('.rodata', 0) - sizes.get('.data', 0):,}")
    by_origin = flash_by_origin(map_path)
    for name, size in sorted(by_origin.items(), key=lambda kv: -kv[1]):
        print(f"  {size:>9,}  {name}")
    core_parts = ("Swift: the core (ENCore, SystemIO's file-system interface, Store) and the stdlib it uses",
                  "mbedTLS (AES, SHA-256)", "libcrypto subset on mbedTLS", "zlib's CRC-32")
    core = sum(by_origin.get(part, 0) for part in core_parts)
    print(f"flash of the core alone: {core:,} bytes ({kb(core)}: its Swift modules' objects, mbedTLS and its adapter, "
          f"zlib's CRC-32; not the test program, its flash driver, newlib or the Unicode tables), {verdict(core, BUDGET_FLASH)}")
    if not figures:
        print("RAM and instructions: the image printed no figures (it stopped before its end)")
        return
    static, heap, stack = figures["static-ram-bytes"], figures["heap-peak-bytes"], figures["stack-peak-bytes"]
    ram = static + heap + stack
    print(f"RAM: {ram:,} bytes ({kb(ram)}): data+bss {static:,}, heap peak {heap:,}, stack peak {stack:,} "
          f"(of {figures['stack-size-bytes']:,} painted), over the run (matching {figures['keys']} keys, then "
          f"{figures.get('risk-cases', 0)} risk-scoring cases); {verdict(ram, BUDGET_RAM)}")
    print(f"  of the heap, in use while keys were matched (sightings, matcher, key schedule; newlib's mallinfo): "
          f"{figures['match-heap-in-use-bytes']:,}; the rest of the peak is the matcher's construction (its sorted "
          f"copy of the sightings' RPIs) and what malloc's first fit leaves between blocks")
    print(f"stack on the TEK-to-RPI path (KeyMatcher.match, from the stack's top): {figures['match-stack-bytes']:,} bytes, "
          f"{verdict(figures['match-stack-bytes'], BUDGET_STACK)}")
    per_tick = 1_000_000 / figures["ticks-per-million-instructions"]
    if figures["keys"]:
        per_key = figures["match-ticks"] * per_tick / figures["keys"]
        print(f"instructions per TEK matched: {per_key:,.0f} (HKDF for the RPIK, AES key expansion, 144 blocks, the "
              f"filter and index lookups; {figures['keys']} keys, timer calibrated at {per_tick:.1f} instructions a tick "
              f"under -icount shift=0; instructions, not cycles)")
    if figures.get("risk-cases"):
        per_case = figures["risk-ticks"] * per_tick / figures["risk-cases"]
        print(f"risk scoring: {figures['risk-cases']} cases (v1 exposures and scores; v2 windows, scores and daily "
              f"summaries), deepest stack {figures['risk-stack-bytes']:,} bytes from the stack's top "
              f"(of {figures['stack-size-bytes']:,} painted), {per_case:,.0f} instructions a case "
              f"(one key, 1 to 24 sightings; the scoring calls only, not the parsing of the case line)")
    if figures.get("store-cases"):
        print(f"sighting store on the flash part: {figures['store-cases']} cases, {figures['store-cuts']} of them power "
              f"cuts (a flash operation interrupted halfway); {figures['flash-erases']:,} page erases and "
              f"{figures['flash-programs']:,} word programs in all; deepest stack {figures['store-stack-bytes']:,} bytes, "
              f"heap in use at most {figures['store-heap-in-use-bytes']:,} bytes (the store, the driver and a page read)")


if __name__ == "__main__":
    main()
