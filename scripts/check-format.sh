#!/usr/bin/env bash
# Fails when a Swift file is not formatted as .swift-format says (swift format, from the toolchain), has a line
# over 120 characters, or (in Sources) is over 400 lines: a file that long holds more than one thing; split it by
# what it holds (docs/architecture.md). Fix the format with: swift format format -i -r Sources Tests Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict -r Sources Tests Package.swift
/usr/bin/python3 - <<'PY'
import pathlib, sys
long = [f"{p}:{n}: {len(l)} characters" for root in ("Sources", "Tests") for p in sorted(pathlib.Path(root).rglob("*.swift"))
        for n, l in enumerate(p.read_text(encoding="utf-8").split("\n"), 1) if len(l) > 120]
long += [f"Package.swift:{n}" for n, l in enumerate(pathlib.Path("Package.swift").read_text().split("\n"), 1) if len(l) > 120]
big = [f"{p}: {n} lines" for p in sorted(pathlib.Path("Sources").rglob("*.swift"))
       if (n := p.read_text(encoding="utf-8").count("\n")) > 400]
if long:
    print("lines over 120 characters:", *long, sep="\n", file=sys.stderr)
if big:
    print("Swift files in Sources over 400 lines (split them by what they hold):", *big, sep="\n", file=sys.stderr)
if long or big:
    sys.exit(1)
PY
