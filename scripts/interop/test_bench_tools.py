"""The benchmark tooling (scripts/bench): generators give the same bytes every run and inputs that GDAL reads as
intended (an exact coverage of valid stands, a road network of exactly N vertices), kartpack converts them
without rejecting anything, and the issue-10 target checks in summarize.py judge fabricated numbers right."""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import shapely
from shapely.geometry import shape

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "scripts" / "bench"
sys.path.insert(0, str(BENCH))
import summarize  # noqa: E402


def run_generator(script, args, out):
    subprocess.run([sys.executable, str(BENCH / script), *args, "--out", str(out)], check=True,
                   capture_output=True, text=True)


def digest(base):
    return {ext: hashlib.sha256(pathlib.Path(f"{base}.{ext}").read_bytes()).hexdigest()
            for ext in ("shp", "shx", "dbf", "prj", "cpg")}


def gdal_features(shp):
    out = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", str(shp)], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["features"]


def shpstats(shp):
    out = subprocess.run([sys.executable, str(BENCH / "shpstats.py"), str(shp)], check=True, capture_output=True,
                         text=True).stdout.split()
    return int(out[0]), int(out[1])


@pytest.fixture(scope="module")
def stands(tmp_path_factory):
    d = tmp_path_factory.mktemp("stands")
    run_generator("make-stands.py", ["--count", "2500"], d / "a")
    run_generator("make-stands.py", ["--count", "2500"], d / "b")
    return d


@pytest.fixture(scope="module")
def roads(tmp_path_factory):
    d = tmp_path_factory.mktemp("roads")
    run_generator("make-roads.py", ["--vertices", "123457"], d / "a")
    run_generator("make-roads.py", ["--vertices", "123457"], d / "b")
    return d


def test_stands_are_byte_identical_across_runs_and_differ_by_seed(stands, tmp_path):
    assert digest(stands / "a") == digest(stands / "b")
    run_generator("make-stands.py", ["--count", "2500", "--seed", "7"], tmp_path / "c")
    assert digest(tmp_path / "c")["shp"] != digest(stands / "a")["shp"]


def test_stands_tile_the_square_exactly_with_valid_polygons(stands):
    feats = gdal_features(stands / "a.shp")
    meta = json.loads((stands / "a.json").read_text())
    geoms = [shape(f["geometry"]) for f in feats]
    assert len(geoms) == meta["features"] > 2500
    assert all(g.is_valid and g.geom_type == "Polygon" for g in geoms)
    side = meta["side_km"] * 1000
    total = sum(g.area for g in geoms)
    assert total == pytest.approx(side * side, rel=1e-9)          # no gaps
    assert shapely.unary_union(geoms).area == pytest.approx(total, rel=1e-9)  # no overlaps
    holes = sum(len(g.interiors) for g in geoms)
    islands = sum(1 for f in feats if f["properties"]["BESTTYP"] == "Myr")
    assert holes == islands > 0
    assert sum(shapely.get_num_coordinates(g) for g in geoms) == meta["vertices"]
    for g, f in zip(geoms, feats):
        assert f["properties"]["AREAL"] == pytest.approx(g.area / 10_000, abs=0.006)


def test_stands_attributes_are_latin1_with_swedish_text(stands):
    raw = (stands / "a.dbf").read_bytes()
    assert "Björk".encode("latin-1") in raw and "Återväxtkontroll".encode("latin-1") in raw
    assert "Björk".encode("utf-8") not in raw
    assert (stands / "a.cpg").read_text() == "ISO-8859-1"
    values = {f["properties"]["ATGARD"] for f in gdal_features(stands / "a.shp")}
    assert "Återväxtkontroll" in values and "Ingen åtgärd" in values


def test_roads_have_the_exact_vertex_count_and_cross(roads):
    assert digest(roads / "a") == digest(roads / "b")
    feats = gdal_features(roads / "a.shp")
    geoms = [shape(f["geometry"]) for f in feats]
    assert sum(shapely.get_num_coordinates(g) for g in geoms) == 123457
    assert shpstats(roads / "a.shp") == (len(feats), 123457)
    assert all(g.is_valid and g.length > 0 for g in geoms)
    assert any(g.geom_type == "MultiLineString" for g in geoms)
    assert max(shapely.get_num_coordinates(g) for g in geoms) > 500  # long highways
    tree = shapely.STRtree(geoms)
    assert tree.query(geoms[:300], predicate="crosses").shape[1] > 0
    lon0, lat0, lon1, lat1 = shapely.total_bounds(geoms)
    assert 10 < lon0 < lon1 < 25 and 55 < lat0 < lat1 < 68
    assert {f["properties"]["KLASS"] for f in feats} >= {"Europaväg", "Länsväg", "Skogsbilväg"}


def test_kartpack_converts_the_generated_inputs_without_rejections(kartpack, stands, roads, tmp_path):
    for shp, zooms, crs in ((stands / "a.shp", ("6", "11"), None), (roads / "a.shp", ("0", "7"), None)):
        out, rep = tmp_path / f"{shp.parent.name}.pmtiles", tmp_path / f"{shp.parent.name}.json"
        subprocess.run([kartpack, "convert", str(shp), "-o", str(out), "--min-zoom", zooms[0], "--max-zoom",
                        zooms[1], "--quiet", "--report", str(rep)], check=True, capture_output=True)
        report = json.loads(rep.read_text())
        features, _ = shpstats(shp)
        assert report["featuresRead"] == report["featuresWritten"] == features
        assert not report["rejected"]


def test_geopackage_benchmark_runs_and_finds_the_same_tiles(kartpack, tmp_path):
    """scripts/benchmark-geopackage.sh on tiny inputs: both formats convert, the table has a row per format and
    input, and the GeoPackage written by ogr2ogr gives the same tiles as the Shapefile."""
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "benchmark-geopackage.sh"), "--stands", "400", "--points", "2000", "--runs",
         "1", "--kartpack", kartpack, "--workdir", str(tmp_path / "w"), "--out", str(tmp_path / "r.md")],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("|")[1:-1] for line in (tmp_path / "r.md").read_text().splitlines()
            if line.startswith("| stands") or line.startswith("| points")]
    assert [(r[0].strip(), r[3].strip()) for r in rows] == [
        ("stands", "shp"), ("stands", "gpkg"), ("points", "shp"), ("points", "gpkg")]
    assert all(r[-1].strip() == "yes" for r in rows), rows


def fake_results(tmp_path, runs):
    """Writes results.tsv/datasets.tsv from {(dataset, tool): (wall, rss_mib, cpu, bytes)} and one info row each."""
    res = ["dataset\ttool\trun\twall\trss_kb\tuser\tsys\tbytes\ttiles\trc\tload1"]
    for (ds, tool), (wall, rss, cpu, size) in runs.items():
        for run in (1, 2, 3):
            res.append(f"{ds}\t{tool}\t{run}\t{wall}\t{int(rss * 1024)}\t{cpu}\t0\t{size}\t10\t0\t1.0")
    (tmp_path / "results.tsv").write_text("\n".join(res) + "\n")
    info = {"stands-10k": (10_406, 177_308), "stands-100k": (104_009, 1_772_000),
            "stands-1m": (1_039_791, 17_716_238), "roads-10m": (127_622, 10_000_000)}
    lines = ["dataset\tfeatures\tvertices\tminzoom\tmaxzoom\tprepare_s"]
    lines += [f"{ds}\t{f}\t{v}\t6\t14\t1" for ds, (f, v) in info.items()]
    (tmp_path / "datasets.tsv").write_text("\n".join(lines) + "\n")


def test_target_checks_judge_met_not_met_and_missing(tmp_path):
    runs = {
        ("stands-10k", "kp-t1"): (2.0, 80, 1.0, 0), ("stands-10k", "kp-t2"): (1.2, 90, 2.0, 4000),
        ("stands-10k", "tippecanoe"): (5.0, 80, 5.0, 4100),
        ("stands-100k", "kp-t1"): (20.0, 300, 11.0, 0), ("stands-100k", "kp-t2"): (10.0, 400, 18.0, 40_000),
        ("stands-100k", "tippecanoe"): (30.0, 200, 30, 39_000), ("stands-100k", "fgb"): (10.0, 50, 10, "-"),
        ("stands-100k", "ogr2ogr"): (150.0, 100, 150, 50_000),
        ("stands-1m", "kp-t1"): (300.0, 3000, 140.0, 0), ("stands-1m", "kp-t2"): (160.0, 500, 300.0, 1),
        ("roads-10m", "kp-t2"): (30.0, 900, 40.0, 1),
    }
    fake_results(tmp_path, runs)
    text, checks = summarize.report(summarize.load(tmp_path / "results.tsv"), str(tmp_path),
                                    ["stands-10k", "stands-100k", "stands-1m", "roads-10m"])
    got = {(c[0].split()[0] + " " + c[0].split()[-1], c[1]): (c[4], c[5]) for c in checks}
    assert got[("wall shp→fgb", "stands-100k")] == ("0.25×", "met")       # 10 / (30 + 10)
    assert got[("wall ogr2ogr", "stands-100k")] == ("0.07×", "met")
    assert got[("peak MiB", "stands-1m")] == ("0.98×", "met")
    assert got[("peak MiB", "roads-10m")] == ("1.76×", "not met")
    assert got[("peak 1.3", "stands-1m / stands-100k")] == ("1.25×", "met")
    # CPU per vertex, threads 1: 10k 5.64 µs, 100k 6.21 µs (1.10x), 1M 7.90 µs (1.40x)
    assert got[("cost stands)", "stands-100k vs stands-10k")] == ("1.10×", "met")
    assert got[("cost stands)", "stands-1m vs stands-10k")] == ("1.40×", "not met")
    assert got[("output tippecanoe's", "stands-10k")] == ("0.976×", "met")
    assert got[("output tippecanoe's", "stands-100k")] == ("1.026×", "not met")
    assert got[("CPU 2", "stands-100k")][1] == "met"                         # 1.8
    assert got[("CPU 2", "stands-1m")][1] == "met"                           # 1.875
    assert got[("CPU 2", "roads-10m")][1] == "not met"                       # 1.33
    assert ("CPU 2", "stands-10k") not in got                                # under 50k features
    assert "**not met**" in text and "### Targets (issue 10)" in text


def test_target_checks_say_what_was_not_measured(tmp_path):
    fake_results(tmp_path, {("stands-10k", "kp-t1"): (2.0, 80, 1.0, 0), ("stands-10k", "kp-t2"): (1.2, 90, 2, 1)})
    _, checks = summarize.report(summarize.load(tmp_path / "results.tsv"), str(tmp_path), ["stands-10k"])
    assert {c[5] for c in checks} == {"not measured"}
    assert len(checks) == 8


@pytest.mark.parametrize("args", [["--datasets", "stands-x"], ["--datasets", "lakes"], ["--peers", "qgis"],
                                  ["--runs", "0"], ["--large-runs", "x"]])
def test_benchmark_rejects_bad_options_before_doing_anything(args):
    p = subprocess.run(["bash", str(ROOT / "scripts" / "benchmark.sh"), *args], capture_output=True, text=True)
    assert p.returncode == 64, p.stderr
    assert "benchmark:" in p.stderr


def thread_demand(*command):
    return subprocess.run([sys.executable, str(BENCH / "thread-demand.py"), "--", *command], capture_output=True,
                          text=True, timeout=120)


def test_thread_demand_counts_the_threads_that_want_a_core():
    """One busy thread is about one runnable thread, two busy threads about two (however loaded the machine is:
    a thread waiting for a core counts), and the command's exit status is passed on."""
    loop = "import threading, time\nend = time.time() + 1.5\ndef spin():\n    while time.time() < end: pass\n"
    one = thread_demand(sys.executable, "-c", loop + "spin()")
    # Two processes' threads are not one command's: two threads of one process, each spinning in C (no GIL).
    two = thread_demand("sh", "-c", "exec python3 -c 'import hashlib, threading\n"
                        "def spin():\n    for _ in range(40): hashlib.scrypt(b\"x\", salt=b\"y\", n=2**14, r=8, p=1)\n"
                        "ts = [threading.Thread(target=spin) for _ in range(2)]\n"
                        "[t.start() for t in ts]; [t.join() for t in ts]'")
    mean = lambda out: float(out.split("mean runnable threads ")[1].split(";")[0])  # noqa: E731
    assert one.returncode == 0 and 0.9 <= mean(one.stdout) <= 1.2, one.stdout + one.stderr
    assert two.returncode == 0 and mean(two.stdout) >= 1.6, two.stdout + two.stderr
    assert thread_demand(sys.executable, "-c", "raise SystemExit(65)").returncode == 65


def test_heap_shim_changes_the_heap_and_not_the_bytes(kartpack, stands, tmp_path):
    """scripts/bench/heap-shim.c (docs/benchmarks.md, *System time*) builds and preloads; trims off, mapped
    arrays from 64 KiB and a trim threshold of 0 give the same package bytes as the heap as shipped."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    shim = tmp_path / "heap-shim.so"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(shim),
                    str(BENCH / "heap-shim.c"), "-ldl"], check=True, capture_output=True)
    outputs = []
    calls = tmp_path / "calls.txt"
    for env in ({}, {"LD_PRELOAD": str(shim), "KP_NOTRIM": "1", "KP_MMAP": "65536", "KP_TRIMTH": "0",
                     "KP_SHIM_CALLS": str(calls)},
                {"LD_PRELOAD": str(shim), "KP_TRIMIF": str(1 << 40)}):
        out = tmp_path / "stands.pmtiles"
        subprocess.run([kartpack, "convert", str(stands / "a.shp"), "-o", str(out), "--min-zoom", "6",
                        "--max-zoom", "11", "--quiet", "--force", "--threads", "2"],
                       check=True, capture_output=True, env={**os.environ, **env})
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    noted = calls.read_text().splitlines()
    assert {"mmap threshold set", "trim threshold set", "trim skipped"} <= set(noted), noted
