"""Coalescing thinned features into kept neighbours (--coalesce, issue 14), through the real binary, decoded with
mapbox-vector-tile and measured with shapely.

A thinned coverage leaves holes: with --max-tile-features 200 a 2,013-stand coverage keeps a tenth of its area at
z8-z11. With --coalesce every stand thinning leaves out is merged into a kept stand it shares a border with (or
reaches through other left-out stands), so the tiles cover what the unthinned ones cover, every polygon is valid,
the tile limits hold, the same features are kept (ids and attributes as without coalescing, nested across zooms),
the report counts the merged features as `coalesced`, and the bytes do not depend on threads or spilling. A
street grid made of one feature per block edge keeps its whole length the same way (lines merge where they share
an end point). Points are never coalesced.
"""
import collections
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest
import shapely
from shapely.geometry import box
from shapely.ops import unary_union

from conftest import ROOT, decode_tile, polygons_from_rings, read_pmtiles, run_convert

THINNED = range(8, 12)  # the zooms every stand is thinned at (z12 is the max zoom)
ZOOMS = ["--min-zoom", "8", "--max-zoom", "12"]


@pytest.fixture(scope="module")
def stands(tmp_path_factory) -> pathlib.Path:
    d = tmp_path_factory.mktemp("coalesce")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "make-stands.py"), "--count", "2000",
                           "--out", str(d / "stands")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return d / "stands.shp"


@pytest.fixture(scope="module")
def streets(tmp_path_factory) -> pathlib.Path:
    """A 30 x 30 street grid near 18°E 59°N, one line feature per block edge (1,740 features)."""
    d = tmp_path_factory.mktemp("streets")
    step, feats = 0.002, []
    for i in range(30):
        for j in range(30):
            x, y = 18 + i * step, 59 + j * step
            for dx, dy in ((step, 0), (0, step)):
                if (dx and i < 29) or (dy and j < 29):
                    feats.append({"type": "Feature", "properties": {"n": len(feats)},
                                  "geometry": {"type": "LineString", "coordinates": [[x, y], [x + dx, y + dy]]}})
    src = d / "streets.geojson"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": feats}))
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", str(d / "streets.shp"), str(src)], check=True,
                   capture_output=True)
    return d / "streets.shp"


def tiles(path: pathlib.Path) -> dict:
    """(z, x, y) -> (stored bytes, {layer: MVTLayer})."""
    archive = read_pmtiles(path)
    return {zxy: (blob, decode_tile(blob, "%d/%d/%d" % zxy)) for zxy, blob in archive.tiles.items()}


def covered_area(decoded: dict, layer: str) -> dict:
    """Per zoom: the area the layer's polygons cover inside their tiles (tile units²), and invalid features."""
    area, invalid = collections.defaultdict(float), []
    for (z, x, y), (_, layers) in decoded.items():
        if layer not in layers:
            continue
        L = layers[layer]
        geoms = []
        for f in L.features:
            g = shapely.MultiPolygon(polygons_from_rings(f.parts, f.areas))
            if not g.is_valid:
                invalid.append(((z, x, y), f.id, shapely.is_valid_reason(g)))
            geoms.append(g)
        area[z] += unary_union(geoms).intersection(box(0, 0, L.extent, L.extent)).area
    return area, invalid


def drawn_length(decoded: dict) -> dict:
    out = collections.defaultdict(float)
    for (z, _, _), (_, layers) in decoded.items():
        for L in layers.values():
            for f in L.features:
                out[z] += shapely.MultiLineString(f.parts).intersection(box(0, 0, L.extent, L.extent)).length
    return out


def features_by_zoom(decoded: dict) -> dict:
    """Per zoom: {id: properties} of every feature."""
    out = collections.defaultdict(dict)
    for (z, _, _), (_, layers) in decoded.items():
        for L in layers.values():
            for f in L.features:
                out[z][f.id] = f.properties
    return out


@pytest.fixture(scope="module")
def runs(kartpack, stands, tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("coalesce-runs")
    limit = ["--max-tile-features", "200"]
    out = {
        "full": run_convert(kartpack, [stands], d / "full.pmtiles", *ZOOMS, "--quiet"),
        "thin": run_convert(kartpack, [stands], d / "thin.pmtiles", *ZOOMS, *limit, "--quiet"),
        "coalesce": run_convert(kartpack, [stands], d / "coal.pmtiles", *ZOOMS, *limit, "--coalesce", "--quiet"),
    }
    return {k: (r, tiles(r.output)) for k, r in out.items()}


def test_coalescing_fills_the_holes_thinning_leaves(runs):
    full, _ = covered_area(runs["full"][1], "stands")
    thin, _ = covered_area(runs["thin"][1], "stands")
    coal, invalid = covered_area(runs["coalesce"][1], "stands")
    assert not invalid, invalid[:5]
    for z in THINNED:
        assert thin[z] / full[z] < 0.2, f"z{z}: thinning alone covers {thin[z] / full[z]:.3f}"
        assert coal[z] / full[z] > 0.999, f"z{z}: coalesced tiles cover {coal[z] / full[z]:.4f} of the mosaic"
    assert coal[12] == pytest.approx(full[12])


def test_coalesced_stands_neither_overlap_nor_leave_gaps(runs, stands):
    """The merged polygons still form a coverage (scripts/quality/coverage_quality.py, as for shared borders)."""
    spec = importlib.util.spec_from_file_location("coverage_quality", ROOT / "scripts" / "quality" /
                                                  "coverage_quality.py")
    cq = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cq)
    rows = cq.measure(str(runs["coalesce"][0].output), "stands", list(THINNED), str(stands))
    for r in rows:
        assert r["invalid"] == 0 and r["overlap_pairs"] == 0 and r["gaps"] == 0, r


def test_coalescing_keeps_the_limits_the_selection_and_the_attributes(runs):
    full = features_by_zoom(runs["full"][1])
    thin = features_by_zoom(runs["thin"][1])
    coal = features_by_zoom(runs["coalesce"][1])
    for (z, x, y), (_, layers) in runs["coalesce"][1].items():
        if z < 12:
            assert sum(len(L.features) for L in layers.values()) <= 200, (z, x, y)
    for z in THINNED:
        assert coal[z].keys() == thin[z].keys(), f"z{z}: coalescing changed which features are kept"
        assert coal[z].keys() <= coal[z + 1].keys(), f"z{z}: a kept feature is gone at z{z + 1}"
        for fid, props in coal[z].items():
            assert props == full[12][fid], f"z{z} id {fid}: the merged feature lost its own attributes"


def test_the_report_counts_coalesced_features_instead_of_dropped(runs):
    thin = {z["zoom"]: z for z in runs["thin"][0].report["zooms"]}
    coal = {z["zoom"]: z for z in runs["coalesce"][0].report["zooms"]}
    assert all("coalesced" not in z for z in thin.values())
    for z in THINNED:
        dropped = thin[z]["dropped"]["dropped_by_feature_limit"]
        left = coal[z]["dropped"].get("dropped_by_feature_limit", 0)
        assert coal[z]["coalesced"] > 0.9 * dropped, (z, coal[z])
        assert coal[z]["coalesced"] + left == dropped, (z, coal[z], dropped)
        assert coal[z]["keptFraction"] == thin[z]["keptFraction"]
    assert coal[12]["coalesced"] == 0


def test_a_byte_limit_is_met_by_merging(kartpack, stands, tmp_path, runs):
    r = run_convert(kartpack, [stands], tmp_path / "bytes.pmtiles", *ZOOMS, "--max-tile-bytes", "6000",
                    "--coalesce", "--quiet")
    decoded = tiles(r.output)
    for (z, x, y), (blob, _) in decoded.items():
        if z < 12:
            assert len(blob) <= 6000, (z, x, y, len(blob))
    full, _ = covered_area(runs["full"][1], "stands")
    coal, invalid = covered_area(decoded, "stands")
    assert not invalid, invalid[:5]
    for z in THINNED:
        assert coal[z] / full[z] > 0.99, (z, coal[z] / full[z])


def test_coalesced_bytes_do_not_depend_on_threads_or_spilling(kartpack, stands, tmp_path, runs):
    reference = runs["coalesce"][0].output.read_bytes()
    for extra in (["--threads", "1"], ["--threads", "2", "--memory-budget", "64K"]):
        # Same file name: the package's name comes from it.
        r = run_convert(kartpack, [stands], tmp_path / "coal.pmtiles", *ZOOMS, "--max-tile-features", "200",
                        "--coalesce", "--quiet", "--force", *extra)
        assert r.output.read_bytes() == reference, extra


def test_a_pipeline_coalesces_like_the_command_line(kartpack, stands, tmp_path, runs):
    spec = tmp_path / "pipe.json"
    spec.write_text(json.dumps({
        "version": 1, "sources": [{"path": str(stands)}],
        "tiles": {"minZoom": 8, "maxZoom": 12, "maxTileFeatures": 200, "coalesce": True},
        "output": {"path": str(tmp_path / "pipe.pmtiles")}}))
    proc = subprocess.run([kartpack, "run", str(spec), "--quiet"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert features_by_zoom(tiles(tmp_path / "pipe.pmtiles")) == features_by_zoom(runs["coalesce"][1])
    covered, _ = covered_area(tiles(tmp_path / "pipe.pmtiles"), "stands")
    expected, _ = covered_area(runs["coalesce"][1], "stands")
    assert covered == pytest.approx(expected)


def test_a_street_grid_keeps_its_length(kartpack, streets, tmp_path):
    args = ["--min-zoom", "8", "--max-zoom", "14", "--max-tile-features", "100", "--quiet"]
    full = drawn_length(tiles(run_convert(kartpack, [streets], tmp_path / "full.pmtiles", *args[:4],
                                          "--quiet").output))
    thin = drawn_length(tiles(run_convert(kartpack, [streets], tmp_path / "thin.pmtiles", *args).output))
    r = run_convert(kartpack, [streets], tmp_path / "coal.pmtiles", *args, "--coalesce")
    coal = drawn_length(tiles(r.output))
    for z in range(8, 12):
        assert thin[z] / full[z] < 0.1, (z, thin[z] / full[z])
        assert coal[z] / full[z] > 0.999, (z, coal[z] / full[z])
    zooms = {z["zoom"]: z for z in r.report["zooms"]}
    assert all(zooms[z]["coalesced"] > 0 for z in range(8, 12))


def test_a_stylesheet_coalesces_one_layer_only(kartpack, stands, streets, tmp_path, runs):
    sheet = tmp_path / "coalesce.kss"
    sheet.write_text("stands { coalesce: true; }\n")
    args = [*ZOOMS, "--max-tile-features", "200", "--quiet"]
    both = run_convert(kartpack, [stands, streets], tmp_path / "both.pmtiles", *args, "--style", str(sheet))
    plain = run_convert(kartpack, [stands, streets], tmp_path / "plain.pmtiles", *args)
    decoded, reference = tiles(both.output), tiles(plain.output)
    full, _ = covered_area(runs["full"][1], "stands")
    covered, invalid = covered_area(decoded, "stands")
    assert not invalid
    street_length = drawn_length({k: (b, {"streets": L["streets"]}) for k, (b, L) in decoded.items()
                                  if "streets" in L})
    plain_length = drawn_length({k: (b, {"streets": L["streets"]}) for k, (b, L) in reference.items()
                                 if "streets" in L})
    for z in THINNED:
        assert covered[z] / full[z] > 0.999, (z, covered[z] / full[z])
        assert street_length[z] == pytest.approx(plain_length[z]), f"z{z}: the streets were coalesced too"
    assert any(z["coalesced"] > 0 for z in both.report["zooms"])
    assert all("coalesced" not in z for z in plain.report["zooms"])


def test_points_are_not_coalesced(kartpack, tmp_path):
    src = tmp_path / "pts.geojson"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"n": i}, "geometry": {"type": "Point",
                                                                "coordinates": [18 + (i % 40) * 0.001,
                                                                                59 + (i // 40) * 0.001]}}
        for i in range(1600)]}))
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", str(tmp_path / "pts.shp"), str(src)], check=True,
                   capture_output=True)
    r = run_convert(kartpack, [tmp_path / "pts.shp"], tmp_path / "pts.pmtiles", "--min-zoom", "8", "--max-zoom",
                    "12", "--max-tile-features", "100", "--coalesce", "--quiet")
    for z in r.report["zooms"]:
        if z["zoom"] < 12:
            assert z["coalesced"] == 0 and z["dropped"]["dropped_by_feature_limit"] > 0, z
    for (z, _, _), (_, layers) in tiles(r.output).items():
        assert all(len(f.points) == 1 for L in layers.values() for f in L.features if f.type == 1), z


def test_help_and_docs_name_the_option(kartpack):
    proc = subprocess.run([kartpack, "convert", "--help"], capture_output=True, text=True)
    assert "--coalesce" in proc.stdout + proc.stderr
    assert "--coalesce" in (ROOT / "docs" / "convert.md").read_text()
