#!/usr/bin/env python3
"""Checks the module graph docs/architecture.md declares against Package.swift and the import lines (issue 33).

The doc holds a machine-readable list between `<!-- module-graph:begin -->` and `<!-- module-graph:end -->`: one
line `Target: Dep, Dep` per library and executable target of Sources (tests and fuzzers aside), and one line
`C module -> Wrapper` per C system library naming the one target allowed to import it. The run fails when
1. a target's dependencies in Package.swift (`swift package dump-package`, or --dump FILE) differ from the doc's;
2. a Swift file of a target imports a module its target does not depend on (SwiftPM on Linux puts every built
   module on one search path, so an undeclared import can compile by accident);
3. a C module is imported by any target but its wrapper.
Exit 0 with a one-line summary when all holds; exit 1 naming each difference otherwise.
"""
import argparse
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
PLATFORM = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Dispatch", "Synchronization", "MapKit",
            "CoreGraphics", "CoreLocation", "UIKit", "AppKit", "CryptoKit", "Swift", "os", "Testing", "XCTest"}
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def declared() -> tuple:
    text = DOC.read_text()
    m = re.search(r"<!-- module-graph:begin -->\s*```\n(.*?)```\s*<!-- module-graph:end -->", text, re.S)
    if not m:
        sys.exit(f"{DOC}: no module-graph block")
    deps, wrappers = {}, {}
    for line in m.group(1).splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if "->" in line:
            c, w = (s.strip() for s in line.split("->", 1))
            wrappers[c] = w
        else:
            name, _, rest = line.partition(":")
            deps[name.strip()] = sorted(d.strip() for d in rest.split(",") if d.strip())
    return deps, wrappers


def package(dump: str = None) -> dict:
    data = json.loads(pathlib.Path(dump).read_text() if dump else subprocess.run(
        ["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    out = {}
    for t in data["targets"]:
        names = []
        for d in t.get("dependencies", []):
            for v in d.values():
                names.append(v[0])
        out[t["name"]] = {"type": t["type"], "deps": sorted(set(names)), "path": t.get("path")}
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--dump", help="the JSON of `swift package dump-package` (default: run it)")
    args = p.parse_args()
    deps, wrappers = declared()
    targets = package(args.dump)
    problems = []
    checked = {n: t for n, t in targets.items()
               if t["type"] in ("regular", "executable") and not n.startswith("Fuzz") and n != "KartpackTestSupport"}
    for name in sorted(set(checked) | set(deps)):
        if name not in checked:
            problems.append(f"{name}: in the doc but not a library or executable target of Package.swift")
        elif name not in deps:
            problems.append(f"{name}: a target of Package.swift the doc does not list")
        elif checked[name]["deps"] != deps[name]:
            missing = sorted(set(checked[name]["deps"]) - set(deps[name]))
            extra = sorted(set(deps[name]) - set(checked[name]["deps"]))
            problems.append(f"{name}: Package.swift has {missing} the doc lacks, the doc has {extra} it lacks")
    system = {n for n, t in targets.items() if t["type"] == "system"}
    for c in sorted(system - set(wrappers)):
        problems.append(f"{c}: a C module with no wrapper named in the doc")
    for name, t in sorted(targets.items()):
        if t["type"] in ("system", "test") or name.startswith("Fuzz"):
            continue
        folder = ROOT / (t["path"] or f"Sources/{name}")
        allowed = set(t["deps"]) | PLATFORM | {name}
        for f in sorted(folder.rglob("*.swift")):
            for module in IMPORT.findall(f.read_text()):
                rel = f.relative_to(ROOT)
                if module not in allowed:
                    problems.append(f"{rel}: imports {module}, which {name} does not depend on")
                if module in system and wrappers.get(module) != name:
                    problems.append(f"{rel}: imports the C module {module}; only {wrappers.get(module)} may")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"module graph: {len(checked)} targets and {len(wrappers)} C wrappers match docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
