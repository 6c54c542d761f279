"""Small-feature reduction (issue 14), through the real binary, decoded with mapbox-vector-tile and shapely.

A generated field of 3,000 small, randomly turned square "lakes" (10-60 m across, a few hundred m² to a few thousand) and 3,000
short "ditches" (20-120 m) east of Uppsala, converted at z3-z12. At the zooms where they are below the small-feature
size (2 x 2 tile units), per tile:

- the lakes' area drawn (clipped to the tile, buffers not counted twice) is within 20 % of the source area in that
  tile (from the source polygons, reprojected to Web Mercator and clipped to the same tile), and the ditches' length
  within 20 % of theirs;
- without it, simplified one by one (--no-shared-borders, as before issue 14), the lakes vanish at z3-z7, and
  unsimplified (shared borders) the grid's rounding keeps them as 1.5-3 times as many sub-pixel pieces;
- most of what is drawn as a square at z is drawn at z + 1 (no blinking), and the report's
  zooms[].smallFeatures counts match the squares in the tiles.
"""
import collections
import hashlib
import json
import math
import pathlib
import random
import subprocess

import pytest

from conftest import HALF_WORLD, decode_tile, polygons_from_rings, read_pmtiles, run_convert

TOLERANCE = 0.20
EXTENT = 4096
MIN_ZOOM, MAX_ZOOM = 3, 12


def write_geojson_shp(path: pathlib.Path, features) -> pathlib.Path:
    src = path.with_suffix(".geojson")
    src.write_text(json.dumps({"type": "FeatureCollection", "features": features}))
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", str(path), str(src)], check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def small_field(tmp_path_factory):
    """Lakes (polygons) and ditches (lines) in 17.0-17.8 E, 59.8-60.2 N, in WGS84."""
    r = random.Random(14)
    d = tmp_path_factory.mktemp("small")
    lakes, ditches = [], []
    for i in range(3000):
        lon, lat = r.uniform(17.0, 17.8), r.uniform(59.8, 60.2)
        side, turn = r.uniform(10, 60), r.uniform(0, math.pi / 2)  # metres on the ground, rotated
        ring = []
        for k in range(5):
            a = turn + (k % 4) * math.pi / 2
            ring.append([lon + side * 0.7071 * math.cos(a) / (111_320 * math.cos(math.radians(lat))),
                         lat + side * 0.7071 * math.sin(a) / 111_320])
        lakes.append({"type": "Feature", "properties": {"n": i}, "geometry": {"type": "Polygon",
                                                                              "coordinates": [ring]}})
    for i in range(3000):
        lon, lat = r.uniform(17.0, 17.8), r.uniform(59.8, 60.2)
        length, angle = r.uniform(20, 120), r.uniform(0, math.pi)
        dlat = length * math.sin(angle) / 111_320
        dlon = length * math.cos(angle) / (111_320 * math.cos(math.radians(lat)))
        ditches.append({"type": "Feature", "properties": {"n": i}, "geometry": {
            "type": "LineString", "coordinates": [[lon, lat], [lon + dlon / 2, lat + dlat / 2],
                                                  [lon + dlon, lat + dlat]]}})
    return write_geojson_shp(d / "lakes.shp", lakes), write_geojson_shp(d / "ditches.shp", ditches)


def mercator(lon, lat):
    x = lon * HALF_WORLD / 180
    y = math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * HALF_WORLD / math.pi
    return x, y


def source_in_tile_units(shp: pathlib.Path, z: int):
    """Source geometries (shapely) in the tile units of zoom z on the world grid (x east, y south)."""
    import shapely
    src = json.loads(shp.with_suffix(".geojson").read_text())
    scale = (1 << z) * EXTENT / (2 * HALF_WORLD)
    out = []
    for f in src["features"]:
        pts = [mercator(lon, lat) for lon, lat in
               (f["geometry"]["coordinates"][0] if f["geometry"]["type"] == "Polygon"
                else f["geometry"]["coordinates"])]
        pts = [((x + HALF_WORLD) * scale, (HALF_WORLD - y) * scale) for x, y in pts]
        out.append(shapely.Polygon(pts) if f["geometry"]["type"] == "Polygon" else shapely.LineString(pts))
    return out


def drawn_per_tile(pmtiles: pathlib.Path, layer: str):
    """(z, x, y) -> list of (feature id, shapely geometry in world tile units of z, clipped to the tile)."""
    import shapely
    out = collections.defaultdict(list)
    for (z, x, y), blob in read_pmtiles(pmtiles).tiles.items():
        layers = decode_tile(blob, f"{z}/{x}/{y}")
        if layer not in layers:
            continue
        box = shapely.box(0, 0, EXTENT, EXTENT)
        for f in layers[layer].features:
            if f.type == 3:
                g = shapely.union_all(polygons_from_rings(f.parts, f.areas))
            else:
                g = shapely.MultiLineString(f.parts)
            g = shapely.affinity.translate(g.intersection(box), x * EXTENT, y * EXTENT)
            out[(z, x, y)].append((f.id, g, f))
    return out


def source_per_tile(geoms, z, tiles):
    import shapely
    tree = shapely.STRtree(geoms)
    out = {}
    for (tz, x, y) in tiles:
        if tz != z:
            continue
        box = shapely.box(x * EXTENT, y * EXTENT, (x + 1) * EXTENT, (y + 1) * EXTENT)
        hits = [geoms[i].intersection(box) for i in tree.query(box)]
        out[(x, y)] = sum(h.area if h.geom_type.endswith("Polygon") else h.length for h in hits)
    return out


def is_square(f) -> bool:
    return f.type == 3 and len(f.parts) == 1 and len(f.parts[0]) == 4 and abs(f.areas[0]) == 4


@pytest.fixture(scope="module")
def reduced(kartpack, small_field, tmp_path_factory):
    out = tmp_path_factory.mktemp("small-out") / "small.pmtiles"
    return run_convert(kartpack, list(small_field), out, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                       "--quiet", "--threads", "2", "--name", "small")


def sub_pixel_zooms():
    # 10-60 m squares at 60 N (a Mercator scale of 2): at most 4 units² up to z9 (1 unit = 19 m Mercator).
    return range(MIN_ZOOM, 10)


@pytest.mark.parametrize("layer,kind", [("lakes", "area"), ("ditches", "length")])
def test_small_features_keep_their_total_per_tile(reduced, small_field, layer, kind):
    shp = small_field[0] if layer == "lakes" else small_field[1]
    drawn = drawn_per_tile(reduced.output, layer)
    checked = 0
    for z in sub_pixel_zooms():
        tiles = [t for t in drawn if t[0] == z]
        assert tiles, f"no {layer} tile at z{z}"
        expected = source_per_tile(source_in_tile_units(shp, z), z, tiles)
        for (_, x, y) in tiles:
            want = expected[(x, y)]
            got = sum(g.area if kind == "area" else g.length for _, g, _ in drawn[(z, x, y)])
            if want < (64 if kind == "area" else 32):  # a few squares: rounding dominates
                continue
            assert abs(got - want) <= TOLERANCE * want, (
                f"{layer} z{z}/{x}/{y}: {kind} drawn {got:.1f}, source {want:.1f} (tile units)")
            checked += 1
    assert checked >= 8


def lake_totals(pmtiles, zooms):
    """Per zoom: (lake features, lake area in tile units², buffers included)."""
    out = {z: [0, 0.0] for z in zooms}
    for (z, x, y), feats in drawn_per_tile(pmtiles, "lakes").items():
        if z in out:
            out[z][0] += len(feats)
            out[z][1] += sum(sum(f.areas) for _, _, f in feats)
    return out


def test_without_reduction_small_features_leave_holes_or_dust(kartpack, small_field, reduced, tmp_path):
    zooms = range(MIN_ZOOM, 8)
    ours = lake_totals(reduced.output, zooms)
    # Simplified one by one (as before issue 14), the lakes collapse: nothing is drawn at z3-z6, a third at z7.
    holes = tmp_path / "holes.pmtiles"
    run_convert(kartpack, [small_field[0]], holes, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                "--quiet", "--no-small-features", "--no-shared-borders")
    for z, (n, area) in lake_totals(holes, zooms).items():
        assert area < 0.5 * ours[z][1], f"z{z}: {area:.0f} units² drawn without reduction, {ours[z][1]:.0f} with"
    # Unsimplified (shared borders), the grid's rounding keeps about the area as a dither of its own, in 1.5-3
    # times as many sub-pixel features as the squares.
    dust = tmp_path / "dust.pmtiles"
    run = run_convert(kartpack, [small_field[0]], dust, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                      "--quiet", "--no-small-features")
    for z, (n, area) in lake_totals(dust, zooms).items():
        assert n > 1.5 * ours[z][0], f"z{z}: {n} lake pieces without reduction, {ours[z][0]} with"
    assert all("smallFeatures" not in z for z in run.report["zooms"])


def test_squares_do_not_blink_and_are_counted(reduced):
    drawn = drawn_per_tile(reduced.output, "lakes")
    ids = collections.defaultdict(set)
    squares = collections.defaultdict(set)
    square_pieces = collections.Counter()
    for (z, _, _), feats in drawn.items():
        for fid, _, f in feats:
            ids[z].add(fid)
            if is_square(f):
                squares[z].add(fid)
                square_pieces[z] += 1
    shown, vanished = 0, 0
    for z in range(MIN_ZOOM, MAX_ZOOM):
        shown += len(squares[z])
        vanished += len(squares[z] - ids[z + 1])
    assert shown > 500
    # Nesting is not guaranteed by construction (each tile rounds on its own); measured 2026-12-01: 0 of 2,198.
    assert vanished <= 0.01 * shown, f"{vanished} of {shown} squares vanish one zoom in"
    zooms = {z["zoom"]: z for z in reduced.report["zooms"]}
    for z in sub_pixel_zooms():
        counts = zooms[z]["smallFeatures"]["lakes"]
        assert counts["reduced"] > 0 and counts["keptAsPixel"] > 0
        # The squares the tiles hold (buffers included) are the kept pieces; from z8 on some lakes are 2 x 2
        # squares of their own.
        if z < 8:
            assert counts["keptAsPixel"] == square_pieces[z]
        else:
            assert counts["keptAsPixel"] <= square_pieces[z]
    assert "smallFeatures" not in zooms[MAX_ZOOM]


def test_small_feature_reduction_is_deterministic(kartpack, small_field, reduced, tmp_path):
    out = tmp_path / "t1.pmtiles"
    run_convert(kartpack, list(small_field), out, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                "--quiet", "--threads", "1", "--name", "small")
    assert hashlib.sha256(out.read_bytes()).digest() == hashlib.sha256(reduced.output.read_bytes()).digest()


def test_small_feature_options(kartpack, small_field, tmp_path):
    # A larger size draws larger squares (16 units: one screen pixel of a 256-pixel tile).
    out = tmp_path / "big.pmtiles"
    run = run_convert(kartpack, [small_field[0]], out, "--min-zoom", "6", "--max-zoom", "8", "--quiet",
                      "--small-feature-size", "16")
    sides = set()
    for (z, x, y), feats in drawn_per_tile(out, "lakes").items():
        for _, _, f in feats:
            if f.type == 3 and len(f.parts[0]) == 4 and abs(f.areas[0]) == 256:
                sides.add(16)
    assert sides == {16}
    assert run.report["zooms"][0]["smallFeatures"]["lakes"]["keptAsPixel"] > 0
    bad = subprocess.run([kartpack, "convert", str(small_field[0]), "-o", str(tmp_path / "x.pmtiles"),
                          "--no-small-features", "--small-feature-size", "4"], capture_output=True, text=True)
    assert bad.returncode == 64 and "small-feature-size" in bad.stderr


def test_small_features_from_a_pipeline(kartpack, small_field, tmp_path):
    """`"tiles": {"smallFeatures": false}` turns it off, `"smallFeatureSize": 4` draws 4 x 4 squares."""
    def run(tiles, name):
        spec = tmp_path / f"{name}.json"
        spec.write_text(json.dumps({
            "version": 1, "sources": [{"path": str(small_field[0]), "layer": "lakes"}],
            "tiles": {"minZoom": 4, "maxZoom": 8, **tiles}, "output": {"path": str(tmp_path / f"{name}.pmtiles")}}))
        proc = subprocess.run([kartpack, "run", str(spec), "--quiet"], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return lake_totals(tmp_path / f"{name}.pmtiles", range(4, 8))
    off, big = run({"smallFeatures": False}, "off"), run({"smallFeatureSize": 4}, "big")
    for z in range(4, 8):
        assert off[z][0] > big[z][0], (z, off[z], big[z])
    squares = [f for feats in drawn_per_tile(tmp_path / "big.pmtiles", "lakes").values() for _, _, f in feats
               if f.type == 3 and len(f.parts[0]) == 4 and abs(f.areas[0]) == 16]
    assert len(squares) > 50


def test_classes_by_zoom_counts_lakes_drawn_only_as_squares(kartpack, small_field, tmp_path):
    """A class whose features are drawn only as small-feature squares at a zoom is present there in the metadata's
    classes_by_zoom (the client style's per-zoom class list reads it), not left out as collapsed."""
    sheet = tmp_path / "lakes.kss"
    sheet.write_text("lakes { class: lake; fill: #4a90d9; }\n")
    out = tmp_path / "classes.pmtiles"
    run_convert(kartpack, [small_field[0]], out, "--min-zoom", str(MIN_ZOOM), "--max-zoom", "9", "--quiet",
                "--style", str(sheet))
    summary = json.loads(read_pmtiles(out).metadata["kartpack"])
    by_zoom = summary["layers"]["lakes"]["classes_by_zoom"]
    drawn = drawn_per_tile(out, "lakes")
    for z in range(MIN_ZOOM, 9):
        ids = {fid for (tz, _, _), feats in drawn.items() if tz == z for fid, _, _ in feats}
        squares_only = all(is_square(f) for (tz, _, _), feats in drawn.items() if tz == z for _, _, f in feats)
        assert ids, f"no lake drawn at z{z}"
        lakes = by_zoom.get(str(z), {}).get("lake", 0)
        # Every lake drawn is counted (the count also holds the candidates the reduction left out).
        assert lakes >= len(ids), f"z{z}: {len(ids)} lakes drawn, classes_by_zoom says {lakes}"
        if z <= 6:
            assert squares_only, f"z{z}: expected only squares"
    assert by_zoom["9"]["lake"] == 3000
