#!/usr/bin/env python3
"""The risk-scoring cases of the microcontroller image's case file (the line format is at the top of
Tools/mcu/VectorCheck.swift), with expected values computed here, in exact fractions, from the published rules:
SPEC §5 as docs/behaviour.md gives it (v1's buckets, product and minimum; v2's windows, scan instances, weights,
minimum window score and daily sums) and the definitions enbeacon documents where the specification leaves a
choice (v1: scan instances anchored at their first sighting, halves rounded up, Apple's bucket boundaries and
transmission-risk indexing; v2: Google's reference windows, 30 minutes from a window's first sighting, scan
instances chained 25.5 s apart, minutes since the last scan on whole clock minutes). Nothing here runs or reads
the Swift code under test: a wrong rule on either side shows as a FAIL line.

Scores are written in thousandths, rounded half up; the v2 weights are multiples of 1/8, so every score is a
dyadic fraction that a Double holds exactly and the rounding is the same on both sides.

Used by vectors.py; alone: risk_cases.py > cases.txt
"""
import math
import random
from fractions import Fraction

DAY = 86400


def half_up(x):
    return math.floor(Fraction(x) + Fraction(1, 2))


# ---- v1 (ENExposureConfiguration) ----------------------------------------------------------------------------

ATTENUATION_ABOVE = [73, 63, 51, 33, 27, 15, 10]  # bucket i: A > ATTENUATION_ABOVE[i], first that holds; else 7
DAYS_AT_LEAST = [14, 12, 10, 8, 6, 4, 2, 0]        # bucket i: days >= DAYS_AT_LEAST[i], first that holds
DURATION_AT_MOST = [0, 5, 10, 15, 20, 25, 30]      # bucket i: minutes <= DURATION_AT_MOST[i]; else 7


def attenuation_bucket(a):
    return next((i for i, floor in enumerate(ATTENUATION_ABOVE) if a > floor), 7)


def days_bucket(days):
    return next(i for i, least in enumerate(DAYS_AT_LEAST) if max(days, 0) >= least)


def duration_bucket(minutes):
    return next((i for i, most in enumerate(DURATION_AT_MOST) if minutes <= most), 7)


def v1_seconds(recorded):
    """The time a v1 scan instance stands for: unknown (0) 2 minutes, else whole minutes (at least 1), at most 5."""
    if recorded == 0:
        return 120
    return min(60 * max(1, half_up(Fraction(recorded, 60))), 300)


def v1_exposures(config, rolling_start, trl, report_type, evaluation_day, sightings):
    """sightings: (time, attenuation, seconds since the previous scan). Returns (duration, attenuation,
    [d0, d1, d2], score) for each exposure, oldest first."""
    if report_type == 5:  # revoked: withdraws the diagnosis
        return []
    ordered = [s for _, s in sorted(enumerate(sightings), key=lambda p: (p[1][0], p[0]))]
    instances = []  # (time, typical attenuation, seconds)
    group = []
    for s in ordered + [None]:
        if group and (s is None or Fraction(s[0] - group[0][0]) > Fraction(51, 2)):
            instances.append((group[0][0], half_up(Fraction(sum(g[1] for g in group), len(group))),
                              v1_seconds(group[0][2])))
            group = []
        if s is not None:
            group.append(s)
    runs = []
    for instance in instances:
        if runs and instance[0] - runs[-1][-1][0] <= 600:
            runs[-1].append(instance)
        else:
            runs.append([instance])
    days = max(0, evaluation_day - rolling_start * 600 // DAY)
    level = min(max(trl, 0), 7)
    t0, t1 = config["thresholds"]
    out = []
    for run in runs:
        seconds = sum(i[2] for i in run)
        duration = 5 * half_up(Fraction(seconds, 300))
        attenuation = half_up(Fraction(sum(i[1] * i[2] for i in run), seconds))
        per_bucket = [0, 0, 0]
        for i in run:
            per_bucket[0 if i[1] <= t0 else 1 if i[1] <= t1 else 2] += i[2]
        durations = [min(5 * half_up(Fraction(b, 300)), 30) for b in per_bucket]
        score = (config["attenuation"][attenuation_bucket(attenuation)] * config["days"][days_bucket(days)]
                 * config["duration"][duration_bucket(duration)] * config["transmission"][level])
        out.append((duration, attenuation, durations, 0 if score < config["minimum"] else score))
    return out


def v1_config_line(c):
    j = lambda v: ",".join(map(str, v))
    return (f"riskv1 {c['minimum']} {j(c['thresholds'])} {j(c['attenuation'])} {j(c['days'])} "
            f"{j(c['duration'])} {j(c['transmission'])}")


def v1_case_line(config, rolling_start, trl, report_type, evaluation_day, sightings):
    found = v1_exposures(config, rolling_start, trl, report_type, evaluation_day, sightings)
    seen = ",".join(f"{t}:{a}:{s}" for t, a, s in sightings)
    want = ",".join(f"{d}:{a}:{b[0]}:{b[1]}:{b[2]}:{score}" for d, a, b, score in found) or "-"
    return f"exposures1 {rolling_start} {trl} {report_type} {evaluation_day} {seen} {want}"


# ---- v2 (ExposureWindow) --------------------------------------------------------------------------------------

def infectiousness(days_since_onset):
    """enbeacon's default map (docs/behaviour.md): -2..2 high, 3..10 standard, other days of -14..14 none;
    no value, or one outside -14..14, standard."""
    if days_since_onset is None or not -14 <= days_since_onset <= 14:
        return "standard"
    if -2 <= days_since_onset <= 2:
        return "high"
    return "standard" if 3 <= days_since_onset <= 10 else "none"


def v2_seconds(time, recorded):
    """Google's: 2 minutes when unknown, else whole clock minutes between the two scans, at most 5."""
    if recorded == 0:
        return 120
    return 60 * min(time // 60 - (time - recorded) // 60, 5)


def v2_windows(config, report_type, days_since_onset, sightings):
    """sightings: (time, attenuation, minimum attenuation, seconds since previous scan, reports, confidence).
    Returns (day, instances, weighted duration, score, confidence) for each window, oldest first."""
    if report_type == 5:
        return []
    level = infectiousness(days_since_onset)
    if level == "none":
        return []
    scored_type = report_type if report_type != 0 else 1  # unknown is scored as a confirmed test
    weight = config["report"][scored_type - 1] * config[level]
    ordered = [s for _, s in sorted(enumerate(sightings), key=lambda p: (p[1][0], p[0]))]
    windows = []  # [first time, confidence, [instance: [time, seconds, attenuation sum, reports, minimum]]]
    previous = None
    for t, a, least, recorded, reports, confidence in ordered:
        opens_window = not windows or t - windows[-1][0] >= 1800
        if opens_window:
            windows.append([t, confidence, []])
        if opens_window or Fraction(t - previous) > Fraction(51, 2):
            windows[-1][2].append([t, v2_seconds(t, recorded), 0, 0, least])
        instance = windows[-1][2][-1]
        instance[2] += a * reports
        instance[3] += reports
        instance[4] = min(instance[4], least)
        previous = t
    out = []
    for first, confidence, instances in windows:
        weighted = Fraction(0)
        for time, seconds, total, reports, least in instances:
            typical = half_up(Fraction(total, reports))
            t0, t1, t2 = config["thresholds"]
            bucket = 0 if typical <= t0 else 1 if typical <= t1 else 2 if typical <= t2 else 3
            weighted += seconds * config["attenuation"][bucket]
        out.append((first // DAY, len(instances), weighted, weighted * weight, confidence))
    return out


def v2_summaries(config, windows):
    """(day, score sum, maximum score, weighted duration sum) for each day with a window at or above the minimum."""
    days = {}
    for day, _, weighted, score, _ in windows:
        if score < config["minimum"]:
            continue
        total, most, duration = days.get(day, (0, 0, 0))
        days[day] = (total + score, max(most, score), duration + weighted)
    return [(day,) + days[day] for day in sorted(days)]


def milli(x):
    return half_up(Fraction(x) * 1000)


def v2_config_line(c):
    j = lambda v: ",".join(str(milli(w)) for w in v)
    return (f"riskv2 {','.join(map(str, c['thresholds']))} {j(c['attenuation'])} {j(c['report'])} "
            f"{milli(c['standard'])} {milli(c['high'])} {milli(c['minimum'])}")


def v2_case_line(config, report_type, days_since_onset, sightings):
    windows = v2_windows(config, report_type, days_since_onset, sightings)
    seen = ",".join(":".join(map(str, s)) for s in sightings)
    want = ",".join(f"{d}:{n}:{milli(w)}:{milli(s)}:{c}" for d, n, w, s, c in windows) or "-"
    days = ",".join(f"{d}:{milli(t)}:{milli(m)}:{milli(w)}" for d, t, m, w in v2_summaries(config, windows)) or "-"
    onset = "-" if days_since_onset is None else str(days_since_onset)
    return f"windows2 {report_type} {onset} {seen} {want} {days}"


# ---- the cases ------------------------------------------------------------------------------------------------

def scans(rng, start, count):
    """Times of `count` sightings: bursts of a few seconds, gaps around the rules' edges (25.5 s, 10 and 30 min)."""
    times, t = [], start
    for _ in range(count):
        times.append(t)
        t += rng.choice([0, 3, 12, 25, 26, 40, 60, 119, 180, 240, 299, 300, 420, 599, 600, 601, 900, 1500, 1799])
    return times


def lines(seed=41, count=60):
    rng = random.Random(seed)
    day = 20_300  # a UTC day (2025-07-31); the rolling start is its first interval
    start = day * DAY
    out = ["# risk scoring: expected values from Tools/mcu/risk_cases.py (the published rules, in fractions)"]

    spec_v1 = {"minimum": 0, "thresholds": [50, 70], "attenuation": list(range(1, 9)), "days": list(range(1, 9)),
               "duration": list(range(1, 9)), "transmission": list(range(1, 9))}
    other_v1 = {"minimum": 60, "thresholds": [42, 61], "attenuation": [0, 1, 2, 3, 5, 6, 8, 8],
                "days": [8, 7, 6, 5, 4, 3, 2, 1], "duration": [0, 2, 4, 5, 6, 7, 8, 8], "transmission": [2, 8, 3, 1, 4, 6, 7, 5]}
    for config in (spec_v1, other_v1):
        out.append(v1_config_line(config))
        # Edges by hand: one sighting (an unknown previous scan), a revoked key, levels outside 0-7, an evaluation
        # day before the key's (a key from the future counts as today), a run split by 601 s but not 600 s.
        out.append(v1_case_line(config, day * 144, 3, 1, day + 1, [(start + 3600, 55, 0)]))
        out.append(v1_case_line(config, day * 144, 3, 5, day + 1, [(start + 3600, 55, 0)]))
        out.append(v1_case_line(config, day * 144, 11, 1, day + 2, [(start + 60, 30, 300), (start + 660, 80, 299)]))
        out.append(v1_case_line(config, day * 144, -2, 2, day - 1, [(start + 60, 30, 300), (start + 661, 80, 299)]))
        for _ in range(count):
            n = rng.randrange(1, 25)
            times = scans(rng, start + rng.randrange(0, DAY - 7200), n)
            sightings = [(t, rng.randrange(5, 100), rng.choice([0, 20, 29, 30, 89, 90, 150, 240, 299, 330, 600]))
                         for t in times]
            rng.shuffle(sightings)  # the code under test must sort them
            out.append(v1_case_line(config, day * 144, rng.randrange(-1, 9), rng.choice([0, 1, 2, 3, 4, 5]),
                                    day + rng.randrange(-1, 17), sightings))

    spec_v2 = {"thresholds": [55, 63, 70], "attenuation": [Fraction(3, 2), 1, Fraction(1, 2), 0],
               "report": [1, 1, Fraction(1, 2), 0], "standard": 1, "high": Fraction(3, 2), "minimum": 0}
    other_v2 = {"thresholds": [40, 58, 73], "attenuation": [Fraction(5, 2), Fraction(9, 8), Fraction(3, 8), Fraction(1, 8)],
                "report": [Fraction(7, 8), 2, Fraction(5, 4), Fraction(1, 2)], "standard": Fraction(5, 8),
                "high": Fraction(17, 8), "minimum": 300}
    for config in (spec_v2, other_v2):
        out.append(v2_config_line(config))
        # Edges by hand: a window at exactly 30 minutes after its first sighting opens a new one (29:59 does not),
        # 25 s after the previous sighting joins its instance and 26 s does not, a window crossing midnight
        # counts on its first day, infectiousness none drops the key.
        edge = [(start + 1000, 50, 48, 0, 2, 3), (start + 1025, 60, 52, 200, 1, 1), (start + 1051, 72, 70, 26, 3, 2),
                (start + 2799, 58, 58, 300, 1, 0), (start + 2800, 64, 60, 61, 1, 2), (start + DAY - 100, 56, 50, 90, 1, 1),
                (start + DAY + 200, 62, 61, 240, 2, 1)]
        for onset in (None, 0, 5, 12, -3, 2014):
            out.append(v2_case_line(config, 1, onset, edge))
        out.append(v2_case_line(config, 0, None, edge))
        out.append(v2_case_line(config, 5, None, edge))
        for _ in range(count):
            n = rng.randrange(1, 25)
            times = scans(rng, start + rng.randrange(0, DAY), n)
            sightings = []
            for t in times:
                a = rng.randrange(20, 100)
                sightings.append((t, a, a - rng.randrange(0, 8), rng.choice([0, 4, 20, 59, 60, 61, 150, 299, 330, 900]),
                                  rng.randrange(1, 5), rng.randrange(0, 4)))
            rng.shuffle(sightings)
            onset = rng.choice([None, rng.randrange(-16, 17), 2000 + rng.randrange(-14, 15)])
            out.append(v2_case_line(config, rng.choice([0, 1, 2, 3, 4, 5]), onset, sightings))
    return out


if __name__ == "__main__":
    print("\n".join(lines()))
