#!/usr/bin/env bash
# Fails when a Swift file is not formatted as .swift-format says (swift format, from the toolchain) or has a line
# over 120 characters. Fix with: swift format format -i -r Sources Tests Package.swift
set -euo pipefail
cd "$(dirname "$0")/.."
swift format lint --strict -r Sources Tests Package.swift
/usr/bin/python3 - <<'PY'
import pathlib, sys
long = [f"{p}:{n}: {len(l)} characters" for root in ("Sources", "Tests") for p in sorted(pathlib.Path(root).rglob("*.swift"))
        for n, l in enumerate(p.read_text(encoding="utf-8").split("\n"), 1) if len(l) > 120]
long += [f"Package.swift:{n}" for n, l in enumerate(pathlib.Path("Package.swift").read_text().split("\n"), 1) if len(l) > 120]
if long:
    print("lines over 120 characters:", *long, sep="\n", file=sys.stderr)
    sys.exit(1)
PY
