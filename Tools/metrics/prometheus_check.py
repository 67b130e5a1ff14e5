#!/usr/bin/env python3
"""A real Prometheus scraping two badges, as a care home's monitoring would (CI's fleet step).

Two agents on the virtual board write metrics.textfile (each watched by a `ctl live`, which keeps reports coming)
and serve GET /metrics (metrics.listen); a node_exporter per badge reads the textfile with its textfile
collector (one target per badge, as on real boards); Prometheus scrapes the two node_exporters (job enbeacon) and
the two agents themselves (job enbeacon-direct) every 2 s. Checks, through Prometheus' HTTP API: all four
targets `up`, both badges' `enbeacon_build_info` from both jobs, a counter that grew; no TEK, RPI or Bluetooth
address of either badge (fleet.py collects them) in the files, the endpoints or the stored series;
`promtool check metrics` on both files and both endpoints; `promtool check rules` and `promtool test rules` on Board/prometheus.
Prints one line per check and `N passed, M failed`; exit 1 when one failed. Everything listens on 127.0.0.1.

usage: prometheus_check.py --enbeacon PATH
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from fleet import badge_secrets, free_port, query, secrets_in, wait_for  # beside this file

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD = os.path.join(HERE, "..", "..", "Board", "prometheus")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--enbeacon", required=True)
    args = parser.parse_args()
    missing = [tool for tool in ("prometheus", "promtool", "prometheus-node-exporter") if not shutil.which(tool)]
    if missing:
        print(f"SKIP prometheus: {', '.join(missing)} not installed (apt-get install prometheus prometheus-node-exporter)")
        return 0 if os.environ.get("ENBEACON_PROMETHEUS_REQUIRED") != "1" else 3

    work = tempfile.mkdtemp(prefix="enbeacon-prometheus-")
    processes = []
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail else ""), flush=True)

    try:
        exporters = []
        direct = []
        for badge in ("badge-1", "badge-2"):
            direct_port = free_port()
            direct.append((badge, direct_port))
            textfiles = os.path.join(work, badge, "textfile")
            os.makedirs(textfiles)
            log = open(os.path.join(work, badge + ".log"), "w")
            processes.append(subprocess.Popen(
                [args.enbeacon, "run", "--data", os.path.join(work, badge, "data"), "--console", "none",
                 "--seconds", "300", "--set", f"metrics.textfile={textfiles}/enbeacon.prom",
                 "--set", "metrics.interval_seconds=5", "--set", f"metrics.listen=127.0.0.1:{direct_port}"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log))
            port = free_port()
            processes.append(subprocess.Popen(
                ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{port}", "--collector.disable-defaults",
                 "--collector.textfile", f"--collector.textfile.directory={textfiles}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, badge + "-node.log"), "w")))
            exporters.append((badge, port, os.path.join(textfiles, "enbeacon.prom")))

        # Someone watching `live` keeps the radio listening between scan windows: reports, and so
        # enbeacon_gaen_reports_total, grow all the time instead of once every 210-290 s.
        for badge, _, _ in exporters:
            socket_path = os.path.join(work, badge, "data", "console.sock")
            wait_for(f"{badge}'s console socket", lambda: os.path.exists(socket_path), 60)
            processes.append(subprocess.Popen([args.enbeacon, "ctl", "--data", os.path.join(work, badge, "data"), "live"],
                                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

        prometheus_port = free_port()
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 2s\n  evaluation_interval: 2s\n"
                    f"rule_files:\n  - {os.path.abspath(os.path.join(BOARD, 'alerts.yml'))}\n"
                    "scrape_configs:\n  - job_name: enbeacon\n    static_configs:\n")
            for badge, port, _ in exporters:
                f.write(f"      - targets: ['127.0.0.1:{port}']\n        labels: {{badge: {badge}}}\n")
            f.write("  - job_name: enbeacon-direct\n    static_configs:\n")
            for badge, port in direct:
                f.write(f"      - targets: ['127.0.0.1:{port}']\n        labels: {{badge: {badge}}}\n")
        processes.append(subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={work}/tsdb",
             f"--web.listen-address=127.0.0.1:{prometheus_port}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "prometheus.log"), "w")))

        for badge, _, path in exporters:
            wait_for(f"{badge}'s textfile", lambda: os.path.exists(path), 60)
            with open(path, "rb") as f:
                text = f.read()
            lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True)
            problems = (lint.stdout + lint.stderr).decode().strip()
            check(f"promtool check metrics ({badge}'s textfile, {len(text)} bytes)", lint.returncode == 0 and not problems,
                  problems)

        for badge, port in direct:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
                text = answer.read()
                kind = answer.headers.get("Content-Type")
            lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True)
            problems = (lint.stdout + lint.stderr).decode().strip()
            check(f"promtool check metrics ({badge}'s GET /metrics, {kind})", lint.returncode == 0 and not problems, problems)

        def up():
            try:
                series = query(prometheus_port, "up")
            except OSError:
                return None
            return series if len(series) == 4 and all(s["value"][1] == "1" for s in series) else None
        try:
            series = wait_for("all four targets up", up, 90)
            check("Prometheus scraped both badges, through node_exporter and directly (up == 1)", True,
                  ", ".join(sorted(f"{s['metric']['job']}/{s['metric']['badge']}" for s in series)))
        except TimeoutError as error:
            check("Prometheus scraped both badges, through node_exporter and directly (up == 1)", False, str(error))

        info = query(prometheus_port, "enbeacon_build_info")
        check("enbeacon_build_info stored for both badges by both jobs",
              sorted(f"{s['metric'].get('job')}/{s['metric'].get('badge')}" for s in info)
              == ["enbeacon-direct/badge-1", "enbeacon-direct/badge-2", "enbeacon/badge-1", "enbeacon/badge-2"],
              "; ".join(f"{s['metric'].get('badge')}: version {s['metric'].get('version')}, board {s['metric'].get('board')}"
                        for s in info))
        try:
            def grown():
                series = query(prometheus_port,
                               "max_over_time(enbeacon_gaen_reports_total[5m]) > min_over_time(enbeacon_gaen_reports_total[5m])")
                return series if len(series) == 4 else None
            grew = wait_for("a counter that grew on both badges", grown, 90)
            check("enbeacon_gaen_reports_total grew in Prometheus' series", True,
                  ", ".join(f"{s['metric']['job']}/{s['metric']['badge']} now {s['value'][1]}" for s in grew))
        except TimeoutError as error:
            check("enbeacon_gaen_reports_total grew in Prometheus' series", False, str(error))
        on_air = query(prometheus_port, "enbeacon_broadcasting")
        check("both badges on air (enbeacon_broadcasting)", len(on_air) == 4 and all(s["value"][1] == "1" for s in on_air))

        # No TEK, RPI or address in what the fleet reads: both files, both endpoints, and Prometheus' answer with
        # every series it stored of the badges.
        secrets = set()
        for badge, _, _ in exporters:
            secrets |= badge_secrets(args.enbeacon, os.path.join(work, badge, "data"))
        texts = [open(path).read() for _, _, path in exporters]
        for _, port in direct:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
                texts.append(answer.read().decode())
        stored = query(prometheus_port, '{__name__=~"enbeacon_.+"}')
        texts.append(json.dumps(stored))
        leaked = secrets_in("\n".join(texts), secrets)
        check("no TEK, RPI or address in the textfiles, the endpoints or Prometheus' series", not leaked and len(stored) > 40,
              f"{len(secrets)} identifiers searched in {sum(map(len, texts))} bytes, {len(stored)} series"
              + (f"; found {leaked[:3]}" if leaked else ""))

        rules = subprocess.run(["promtool", "check", "rules", os.path.join(BOARD, "alerts.yml")], capture_output=True)
        check("promtool check rules Board/prometheus/alerts.yml", rules.returncode == 0, rules.stdout.decode().strip().replace("\n", " "))
        tests = subprocess.run(["promtool", "test", "rules", "alerts-test.yml"], cwd=BOARD, capture_output=True)
        check("promtool test rules Board/prometheus/alerts-test.yml", tests.returncode == 0,
              (tests.stdout + tests.stderr).decode().strip().replace("\n", " "))
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        if all(results):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"logs: {work}")
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
