#!/usr/bin/env python3
"""Writes the microcontroller image's case file (the line format VectorCheck.swift reads) from the official GAEN
test vectors (Tests/Fixtures/gaen/test_vectors.json):

- the key schedule: the RPIK and AEMK of the vectors' TEK, each of its 144 RPIs and AEMs;
- the beacon payload: each RPI and AEM as the 31-byte advertisement (Flags, the 0xFD6F UUID, the service data),
  laid out here from the Bluetooth and GAEN specifications' fields, not by the code under test;
- a matcher case: a day's sightings (two per interval, three of them the vectors' own RPIs and AEMs, the rest
  random) and a batch of diagnosis keys (random TEKs of the same day, the vectors' TEK among them), streamed to
  the matcher; exactly the vectors' key matches, with one hit for each of its three sightings. Random TEKs match
  nothing (a chance of about 2^-128 * keys * RPIs); a broken HKDF, AES or index matches nothing and fails.
- the risk-scoring cases of risk_cases.py (v1 exposures and scores, v2 windows and daily summaries), whose
  expected values that script computes from the published rules;
- the sighting store's cases of store_cases.py, on the image's flash part (a fill, and power cuts at every flash
  operation of a flush).

Usage: vectors.py TEST_VECTORS_JSON [--keys N] > cases.txt
"""
import argparse
import json
import random
import sys

import risk_cases
import store_cases

FLAGS = "02011a"           # length 2, Flags, LE General Discoverable | simultaneous LE/BR-EDR bits
UUID_LIST = "03036ffd"     # length 3, Complete List of 16-bit UUIDs, 0xFD6F little-endian
SERVICE_DATA = "17166ffd"  # length 23, Service Data - 16-bit UUID, 0xFD6F, then RPI (16) and AEM (4)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vectors")
    parser.add_argument("--keys", type=int, default=500, help="diagnosis keys in the matcher case (default 500)")
    args = parser.parse_args()
    with open(args.vectors) as f:
        v = json.load(f)
    tek, start, metadata = v["tek"], v["en_interval_number_of_generated_key"], v["ble_metadata"]
    data = v["advertised_data"]
    if len(data) != v["tek_rolling_period"]:
        sys.exit(f"vectors.py: {len(data)} advertised data, not {v['tek_rolling_period']}")
    out = [f"# from {args.vectors}: the official GAEN vectors (v1.2), and a matcher case built on them",
           f"rpik {tek} {v['rpik']}", f"aemk {tek} {v['aemk']}"]
    for d in data:
        out.append(f"rpi {tek} {d['en_interval_number']} {d['rpi']}")
        out.append(f"aem {tek} {d['en_interval_number']} {metadata} {d['aem']}")
        out.append(f"payload {d['rpi']} {d['aem']} {FLAGS}{UUID_LIST}{SERVICE_DATA}{d['rpi']}{d['aem']}")

    # The matcher case: fixed seed, so the file is the same at every build.
    rng = random.Random(41)
    seen = {30: None, 77: None, 140: None}  # intervals of the day where the vectors' key was seen
    sightings = []
    for j in range(v["tek_rolling_period"]):
        at = (start + j) * 600
        for k in range(2):
            if k == 0 and j in seen:
                rpi, aem = data[j]["rpi"], data[j]["aem"]
            else:
                rpi, aem = rng.randbytes(16).hex(), rng.randbytes(4).hex()
            sightings.append(f"sighting {rpi} {aem} {at + 60 + 200 * k} {-60 - rng.randrange(30)}")
    now = (start + 144 + 12) * 600 + 86400  # a day after the key's embargo ended
    out.append(f"matcher {now} {len(sightings)}")
    out += sightings
    position = args.keys // 2
    for i in range(args.keys):
        key = tek if i == position else rng.randbytes(16).hex()
        out.append(f"key {key} {start} 144")
    out.append(f"matches 1 {len(seen)}")
    out += risk_cases.lines()
    out += store_cases.lines()
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
