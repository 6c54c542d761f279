#!/usr/bin/python3
"""Prints the timing table of a scripts/test.sh run from its logs folder (docs/testing.md).

Usage: scripts/test-timing.py LOGS   (LOGS = .build/test-logs)

Reads LOGS/steps.tsv (step, seconds, ok|FAILED), the Swift Testing console log LOGS/swift-test.log and the
pytest JUnit file LOGS/interop.xml (the browser tests run inside the interop step).

Swift suites are listed by their span, "Suite X passed after N seconds": from their first test's start to their
last test's end. Suites overlap (Swift Testing runs them in parallel), so a span is not a cost, but the longest
spans are the run's long poles: a `.serialized` suite's span is the sum of its tests, and the Swift step cannot end
before it does. (Per-test times are no better: they include the wait for a free thread.)
Standard library only: it runs with Debian's python3 before the venv exists.
"""

import collections
import pathlib
import re
import sys
import xml.etree.ElementTree as ET

SUITE = re.compile(r'^[✔✘] Suite "?([^" ]+)"? (?:passed|failed) after ([0-9.]+) seconds')
RUN = re.compile(r'^[✔✘] Test run with (\d+) tests? (?:in (\d+) suites? )?(?:passed|failed)')


def minutes(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


def junit_cases(path: pathlib.Path) -> list:
    """(seconds, test id, outcome) of every test case in a pytest JUnit file."""
    if not path.exists():
        return []
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        outcome = "ok"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "FAILED"
            elif child.tag == "skipped" and outcome == "ok":
                outcome = "skipped"
        name = f"{case.get('file') or case.get('classname')}::{case.get('name')}"
        cases.append((float(case.get("time") or 0), name, outcome))
    return cases


def main() -> int:
    logs = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".build/test-logs")
    out = ["", "== timing (wall clock; load average at the end: " + load() + ")", ""]
    out.append(f"| {'step':<62} | {'time':>6} | result |")
    out.append(f"|{'-' * 64}|{'-' * 8}|--------|")
    steps = logs / "steps.tsv"
    for line in steps.read_text().splitlines() if steps.exists() else []:
        name, seconds, result = line.split("\t")
        out.append(f"| {name:<62} | {minutes(float(seconds)):>6} | {result:<6} |")

    swift_log = logs / "swift-test.log"
    if swift_log.exists():
        suites = []
        for line in swift_log.read_text(errors="replace").splitlines():
            if m := SUITE.match(line):
                suites.append((float(m.group(2)), m.group(1)))
            elif m := RUN.match(line):
                out += ["", f"Swift tests: {m.group(1)} tests in {m.group(2) or '?'} suites"]
        if suites:
            out += ["", "10 longest Swift suites (span from first start to last end; suites overlap):"]
            out += [f"  {s:8.1f} s  {name}" for s, name in sorted(suites, reverse=True)[:10]]

    cases = junit_cases(logs / "interop.xml")
    if cases:
        browser = [c for c in cases if "test_maplibre_browser" in c[1]]
        if browser:
            out += ["", f"browser (MapLibre GL JS in headless Chromium, inside the interop step): {len(browser)} "
                    f"tests, {sum(c[0] for c in browser):.0f} s of one worker"]
        counts = {o: sum(1 for c in cases if c[2] == o) for o in ("ok", "skipped", "FAILED")}
        out += ["", f"interop: {len(cases)} tests ({counts['ok']} passed, {counts['skipped']} skipped, "
                f"{counts['FAILED']} failed); 10 slowest:"]
        out += [f"  {s:8.1f} s  {name}" for s, name, _ in sorted(cases, reverse=True)[:10]]
    print("\n".join(out))
    return 0


def load() -> str:
    try:
        return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
