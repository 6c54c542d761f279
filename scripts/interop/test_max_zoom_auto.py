"""`--max-zoom auto` (issue 14) through the real binary: the max zoom chosen from the data (MaxZoomGuess).

Rule (docs/convert.md): the lowest zoom at which the median spacing of consecutive vertices of lines and polygons
is at least 8 tile units, and the 10th percentile of point spacing (neighbours in Z order) at least 2 tile units,
within min zoom..16. A tile unit at zoom z is 40,075,016.7 m / 2^z / 4096 (Web Mercator metres).

- Point grids at the equator with a known spacing get the zoom the rule gives (100 m -> z8, 12 m -> z11).
- Natural Earth's low-resolution countries (vertices tens of km apart) get a low zoom (z0: median vertex spacing 89 km).
- The forest sample (median vertex spacing 44 m in Web Mercator, about 20 m on the ground at 60-64° N) gets z11,
  where 8 tile units are 38 m.
- The choice is on stderr (not with --quiet) and in the report; the same for --threads 1 and 2, bytes too.
- A pipeline with "maxZoom": "auto" validates, `run --dry-run` says so, and a run records the choice; `package`
  chooses one zoom for all its regions (Tests/CLITests/PackageMaxZoomAutoTests: equal to `convert --clip`).
"""
import json
import pathlib
import subprocess

import pytest

from conftest import ROOT, read_pmtiles, run_convert

METRES_PER_DEGREE = 40075016.68557849 / 360  # Web Mercator x (and y at the equator)


def point_grid(tmp_path: pathlib.Path, spacing_m: float, n: int = 30) -> pathlib.Path:
    step = spacing_m / METRES_PER_DEGREE
    features = [{"type": "Feature", "properties": {"i": i * n + j},
                 "geometry": {"type": "Point", "coordinates": [10 + i * step, j * step]}}
                for i in range(n) for j in range(n)]
    src = tmp_path / f"grid{int(spacing_m)}.geojson"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    shp = src.with_suffix(".shp")
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", str(shp), str(src)], check=True, capture_output=True)
    return shp


def zooms_of(path: pathlib.Path) -> set:
    return {z for z, _, _ in read_pmtiles(path).tiles}


@pytest.mark.parametrize("spacing,expected", [(100, 8), (12, 11)])
def test_point_grid_gets_the_zoom_of_its_spacing(kartpack, tmp_path, spacing, expected):
    shp = point_grid(tmp_path, spacing)
    out = tmp_path / "grid.pmtiles"
    run = run_convert(kartpack, [shp], out, "--max-zoom", "auto")
    chosen = run.report["maxZoomChosen"]
    assert chosen["zoom"] == expected, chosen
    assert chosen["basis"] == "points"
    assert chosen["spacingMetres"] == pytest.approx(spacing, rel=0.01)
    assert f"max zoom {expected} chosen: point spacing" in run.stderr
    assert max(zooms_of(out)) == expected
    assert read_pmtiles(out).header["max_zoom"] == expected


def test_natural_earth_gets_a_low_zoom(kartpack, natural_earth, tmp_path):
    out = tmp_path / "ne.pmtiles"
    run = run_convert(kartpack, [natural_earth["naturalearth_lowres"]], out, "--max-zoom", "auto", "--quiet")
    chosen = run.report["maxZoomChosen"]
    assert chosen["basis"] == "vertices"
    assert chosen["spacingMetres"] > 10_000, chosen
    assert chosen["zoom"] <= 2, chosen
    assert max(zooms_of(out)) == chosen["zoom"]
    assert "max zoom" not in run.stderr  # --quiet


def test_forest_sample_gets_z11_the_same_for_any_thread_count(kartpack, tmp_path):
    forest = sorted((ROOT / "SampleData" / "forest").glob("*.shp"))
    runs = []
    for threads in ("1", "2"):
        out = tmp_path / f"forest{threads}.pmtiles"
        runs.append(run_convert(kartpack, forest, out, "--max-zoom", "auto", "--min-zoom", "8",
                                "--threads", threads, "--name", "forest"))
    a, b = (r.report["maxZoomChosen"] for r in runs)
    assert a == b
    assert a["zoom"] == 11, a
    assert 38.2 <= a["spacingMetres"] < 76.4, a  # 8 units at z11 .. at z10
    assert a["basis"] == "vertices"
    assert f"max zoom {a['zoom']} chosen: median vertex spacing" in runs[0].stderr
    assert runs[0].output.read_bytes() == runs[1].output.read_bytes()


def test_max_zoom_auto_is_refused_when_misspelled(kartpack, tmp_path, natural_earth):
    out = tmp_path / "x.pmtiles"
    proc = subprocess.run([kartpack, "convert", str(natural_earth["naturalearth_lowres"]), "-o", str(out),
                           "--max-zoom", "automatic"], capture_output=True, text=True)
    assert proc.returncode == 64, proc.stderr
    assert "max-zoom" in proc.stderr


def test_pipeline_max_zoom_auto_validates_dry_runs_and_runs(kartpack, tmp_path, natural_earth):
    spec = {"version": 1, "sources": [{"path": str(natural_earth["naturalearth_lowres"]), "layer": "countries"}],
            "tiles": {"maxZoom": "auto"}, "output": {"path": str(tmp_path / "ne.pmtiles")}}
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps(spec))
    v = subprocess.run([kartpack, "validate", str(path)], capture_output=True, text=True)
    assert v.returncode == 0, v.stdout + v.stderr
    dry = subprocess.run([kartpack, "run", str(path), "--dry-run"], capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "max zoom auto" in dry.stdout + dry.stderr
    report = tmp_path / "run.json"
    r = subprocess.run([kartpack, "run", str(path), "--report", str(report)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    conversion = json.loads(report.read_text())["conversion"]
    assert conversion["maxZoomChosen"]["zoom"] <= 4
    assert "max zoom" in r.stderr
    bad = dict(spec, tiles={"maxZoom": "highest"})
    path.write_text(json.dumps(bad))
    v = subprocess.run([kartpack, "validate", str(path)], capture_output=True, text=True)
    assert v.returncode != 0
    assert "auto" in v.stdout + v.stderr


def test_region_packages_choose_one_max_zoom_from_the_pipeline(kartpack, tmp_path, natural_earth):
    """A pipeline with "maxZoom": "auto" packaged by region: one zoom for all regions, in the log and the report."""
    spec = {"version": 1, "sources": [{"path": str(natural_earth["naturalearth_lowres"]), "layer": "countries"}],
            "tiles": {"maxZoom": "auto"}, "output": {"path": str(tmp_path / "ne.pmtiles")}}
    path = tmp_path / "pipeline.json"
    path.write_text(json.dumps(spec))
    report = tmp_path / "package.json"
    cmd = [kartpack, "package", str(path), "--regions", str(natural_earth["naturalearth_lowres"]),
           "--id-field", "iso_a3", "--where", '[continent = "Oceania"]', "-o", str(tmp_path / "regions"),
           "--report", str(report)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    chosen = json.loads(report.read_text())["maxZoomChosen"]
    assert chosen["basis"] == "vertices" and chosen["zoom"] <= 2, chosen
    assert f"max zoom {chosen['zoom']} chosen for every region" in r.stderr
    catalog = json.loads((tmp_path / "regions" / "catalog.json").read_text())
    assert catalog["regions"], catalog
    assert {c["maxZoom"] for c in catalog["regions"]} == {chosen["zoom"]}
