#!/usr/bin/env python3
"""Fails when the KartpackKit library (or its MapKit adapter) can reach GEOS, PROJ, shapelib or SQLite.

Two checks over the package's target graph (`swift package dump-package`, or --dump FILE with its JSON):
1. the declared dependency closure of KartpackKit holds no forbidden target and no system library but CZlib;
   (CNettle is allowed only through a dependency conditioned on Linux: Checksum's SHA-256);
2. no Swift file of a target in that closure imports a module outside the closure (SwiftPM on Linux puts every
   built module on one search path, so an undeclared `import SQLiteStore` could compile by accident).
Exit 0 and a one-line summary when clean; exit 1 naming each offending edge or import otherwise.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROOTS = ("KartpackKit", "KartpackKitMapKit")
FORBIDDEN = {"CGEOS", "CProj", "CShapelib", "CSQLite3", "SQLiteStore", "GeometryOps", "Reprojection", "Shapefile",
             "TileArchive", "ConvertEngine", "Publishing", "PipelineFiles", "RegionPackages", "Inspection", "MapStyle",
             "Import", "CFreeType", "CRsvg", "Glyphs", "SVGRaster"}
ALLOWED_SYSTEM = {"CZlib"}
# System libraries the Kit may reach only through a dependency conditioned on Linux (Apple builds see none):
# Nettle, the SHA-256 of Checksum on Linux (Swift alone elsewhere).
LINUX_ONLY_SYSTEM = {"CNettle"}
PLATFORM_MODULES = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization",
                    "MapKit", "CoreGraphics", "CoreLocation", "UIKit", "AppKit", "CryptoKit", "Swift", "os"}
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def dependency_names(target: dict) -> list:
    return [name for name, _ in dependency_edges(target)]


def dependency_edges(target: dict) -> list:
    """(name, platforms) per dependency; platforms is None when the dependency has no platform condition."""
    out = []
    for d in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in d:
                condition = next((c for c in d[kind][1:] if isinstance(c, dict)), None)
                platforms = condition.get("platformNames") if condition else None
                out.append((d[kind][0], sorted(platforms) if platforms else None))
    return out


def check(package: dict, root: pathlib.Path) -> list:
    targets = {t["name"]: t for t in package["targets"]}
    problems = []
    for start in ROOTS:
        if start not in targets:
            if start == "KartpackKit":
                problems.append("no KartpackKit target")
            continue
        closure, stack, parent = set(), [start], {start: None}
        while stack:
            name = stack.pop()
            if name in closure:
                continue
            closure.add(name)
            t = targets.get(name)
            if t is None:
                continue
            for dep in dependency_names(t):
                parent.setdefault(dep, name)
                stack.append(dep)

        def path(name):
            chain = [name]
            while parent.get(chain[-1]):
                chain.append(parent[chain[-1]])
            return " <- ".join(chain)

        for name in sorted(closure):
            t = targets.get(name, {})
            if name in FORBIDDEN:
                problems.append(f"{start} reaches {name}: {path(name)}")
            elif t.get("type") == "system" and name not in ALLOWED_SYSTEM:
                edges = [p for n, u in targets.items() if n in closure
                         for dep, p in dependency_edges(u) if dep == name]
                if name not in LINUX_ONLY_SYSTEM or any(p != ["linux"] for p in edges):
                    problems.append(f"{start} reaches system library {name}: {path(name)}")
        for name in sorted(closure):
            t = targets.get(name)
            if t is None or t.get("type") == "system":
                continue
            folder = root / (t.get("path") or f"Sources/{name}")
            for swift in sorted(folder.rglob("*.swift")):
                for module in IMPORT.findall(swift.read_text(encoding="utf-8", errors="replace")):
                    if module not in closure and module not in PLATFORM_MODULES:
                        problems.append(f"{swift.relative_to(root)} imports {module}, outside {start}'s graph")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dump", help="the JSON of `swift package dump-package` (default: run it)")
    ap.add_argument("--root", default=str(ROOT), help="the package folder (for the import scan)")
    args = ap.parse_args()
    if args.dump:
        text = pathlib.Path(args.dump).read_text()
    else:
        text = subprocess.run(["swift", "package", "dump-package"], cwd=args.root, check=True,
                              capture_output=True, text=True).stdout
    problems = check(json.loads(text), pathlib.Path(args.root))
    for p in problems:
        print(f"check-kit-graph: {p}", file=sys.stderr)
    if problems:
        return 1
    print("check-kit-graph: KartpackKit reaches no GEOS, PROJ, shapelib or SQLite (system libraries: CZlib; CNettle on Linux only)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
