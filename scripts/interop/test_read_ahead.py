"""The feature phase reads ahead while one long feature keeps a worker busy (`BatchLookahead`): with one long
polygon first, unreadable numbers spread over the file (read warnings) and rings that cross themselves (repairs),
two threads give the same package, the same log and the same report as one thread."""
import json
import math
import pathlib
import struct
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from shapefile_edit import ShapefileSet  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def long_ring(content: bytearray, vertices: int) -> bytearray:
    """A polygon record with one ring of `vertices` points, a wavy circle inside the record's box."""
    x0, y0, x1, y1 = struct.unpack("<4d", content[4:36])
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, min(x1 - x0, y1 - y0) / 2
    pts = []
    for k in range(vertices - 1):
        a = 2 * math.pi * k / (vertices - 1)
        rr = r * (0.9 + 0.1 * math.sin(a * 400))
        pts.append((cx + rr * math.cos(a), cy - rr * math.sin(a)))  # clockwise: an outer ring
    pts.append(pts[0])
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    out = bytearray(struct.pack("<i4d2ii", 5, min(xs), min(ys), max(xs), max(ys), 1, len(pts), 0))
    for p in pts:
        out += struct.pack("<2d", *p)
    return out


@pytest.fixture(scope="module")
def hostile_stands(tmp_path_factory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("read-ahead")
    subprocess.run([sys.executable, str(ROOT / "scripts/bench/make-stands.py"), "--count", "3000", "--out",
                    str(d / "src")], check=True, capture_output=True)
    s = ShapefileSet.load(d / "src.shp")
    s.records[0] = long_ring(s.records[0], 200_000)
    for i in range(5, len(s.records), 97):
        s.set_field(i, "AREAL", "x9y")
    for i in range(40, len(s.records), 131):
        r = s.records[i]
        parts = struct.unpack("<i", r[36:40])[0]
        a, b = 44 + 4 * parts + 16, 44 + 4 * parts + 32
        r[a:a + 16], r[b:b + 16] = bytes(r[b:b + 16]), bytes(r[a:a + 16])
    s.save(d / "stands.shp")
    return d / "stands.shp"


def test_two_threads_read_ahead_and_give_the_one_thread_package_log_and_report(kartpack, hostile_stands, tmp_path):
    runs = []
    for threads in ("1", "2"):
        out = tmp_path / threads / "stands.pmtiles"
        out.parent.mkdir()
        r = subprocess.run([kartpack, "convert", str(hostile_stands), "-o", str(out), "--min-zoom", "6",
                            "--max-zoom", "12", "--threads", threads, "--report", str(out.parent / "report.json")],
                           capture_output=True, text=True, check=True)
        report = json.loads((out.parent / "report.json").read_text())
        for volatile in ("timings", "seconds", "peakRSSBytes", "threads", "output"):
            report.pop(volatile, None)
        warnings = [line for line in r.stderr.splitlines() if "warning" in line]
        runs.append((out.read_bytes(), warnings, report))
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]
    assert any("is not a number" in w for w in runs[0][1])
    assert runs[0][2] == runs[1][2]
    stands = len(ShapefileSet.load(hostile_stands).records)
    assert runs[0][2]["featuresRead"] == runs[0][2]["featuresWritten"] == stands  # every stand written
