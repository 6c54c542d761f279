"""`kartpack query` (KartpackKit) against an independent decode: PyPI pmtiles + mapbox-vector-tile protobuf + our
own command-stream decoder in conftest, shapely for the geometry. Same features, same ids, same attributes,
geometry within a tile unit; --max: count, spread and stability. Real data: the sample forest plan, NYC boroughs
and Natural Earth cities from Debian's geopandas."""
import json
import math
import random
import subprocess

import pytest

from conftest import (HALF_WORLD, decode_tile, polygons_from_rings, read_pmtiles, run_convert, tile_box,
                      tile_to_mercator)


def query(kartpack, pkg, bbox, zoom, *args, expect=0):
    r = subprocess.run([kartpack, "query", str(pkg), "--bbox", ",".join(map(str, bbox)), "--zoom", str(zoom), *args],
                       capture_output=True, text=True)
    assert r.returncode == expect, r.stderr
    return json.loads(r.stdout) if expect == 0 and "text" not in args else r


def merc(lon, lat):
    lat = max(min(lat, 85.0511287798066), -85.0511287798066)
    return (lon * HALF_WORLD / 180, math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) * HALF_WORLD / math.pi)


def region_box(bbox):
    import shapely
    (x0, y0), (x1, y1) = merc(bbox[0], bbox[1]), merc(bbox[2], bbox[3])
    return shapely.box(x0, y0, x1, y1)


def reference(archive, bbox, zoom):
    """{(layer, id): (shapely geometry in metres cut to tile and region, properties)} from the raw tiles."""
    import shapely
    z = min(zoom, archive.header["max_zoom"])
    n = 1 << z
    (x0, y0), (x1, y1) = merc(bbox[0], bbox[3]), merc(bbox[2], bbox[1])
    size = 2 * HALF_WORLD / n
    tx0, tx1 = int((x0 + HALF_WORLD) // size), min(n - 1, int((x1 + HALF_WORLD) // size))
    ty0, ty1 = int((HALF_WORLD - y0) // size), min(n - 1, int((HALF_WORLD - y1) // size))
    region = region_box(bbox)
    pieces, props = {}, {}
    for tx in range(tx0, tx1 + 1):
        for ty in range(ty0, ty1 + 1):
            blob = archive.tiles.get((z, tx, ty))
            if blob is None:
                continue
            box = tile_box(z, tx, ty)
            for name, layer in decode_tile(blob).items():
                for f in layer.features:
                    if f.type == 1:
                        pts = [p for p in f.points if 0 <= p[0] < layer.extent and 0 <= p[1] < layer.extent]
                        if not pts:
                            continue
                        g = shapely.MultiPoint(tile_to_mercator(z, tx, ty, layer.extent, pts))
                    elif f.type == 2:
                        g = shapely.MultiLineString([tile_to_mercator(z, tx, ty, layer.extent, p) for p in f.parts])
                    else:
                        rings = [tile_to_mercator(z, tx, ty, layer.extent, r) for r in f.parts]
                        g = shapely.MultiPolygon(polygons_from_rings(rings, f.areas))
                        g = polygonal(shapely.make_valid(g))
                    g = g.intersection(box).intersection(region) if f.type != 1 else g.intersection(region)
                    if f.type == 3:
                        g = polygonal(g)
                    if g.is_empty or (f.type == 3 and g.area == 0) or (f.type == 2 and g.length == 0):
                        continue
                    pieces.setdefault((name, f.id), []).append(g)
                    props[(name, f.id)] = f.properties
    return {k: (shapely.unary_union(v), props[k]) for k, v in pieces.items()}


def to_metres(g):
    import numpy as np
    import shapely

    def f(c):
        lon, lat = c[:, 0], np.clip(c[:, 1], -85.0511287798066, 85.0511287798066)
        return np.column_stack([lon * HALF_WORLD / 180,
                                np.log(np.tan(np.pi / 4 + np.radians(lat) / 2)) * HALF_WORLD / np.pi])
    return shapely.transform(g, f)


def polygonal(g):
    """The areas of a geometry (Sutherland–Hodgman leaves zero-width edges along the cut, which are no area)."""
    import shapely
    parts = [p for p in getattr(g, "geoms", [g]) if p.geom_type in ("Polygon", "MultiPolygon")]
    return shapely.unary_union(parts) if parts else shapely.Polygon()


def ours(collection):
    import shapely
    out = {}
    for f in collection["features"]:
        g = to_metres(shapely.geometry.shape(f["geometry"]))
        if g.geom_type.endswith("Polygon"):
            # What a renderer fills (even-odd): each exterior minus its holes. Rings cut at a tile edge may touch
            # along it, which shapely calls invalid; they are valid drawing input.
            def filled(p):
                area = polygonal(shapely.make_valid(shapely.Polygon(p.exterior)))
                for hole in p.interiors:
                    area = area.difference(polygonal(shapely.make_valid(shapely.Polygon(hole))))
                return area
            g = shapely.unary_union([filled(p) for p in getattr(g, "geoms", [g])])
        key = (f["properties"]["layer"], f.get("id"))
        assert key not in out, f"{key} twice: pieces are not joined by id"
        out[key] = (g, f["properties"])
    return out


def compare(kartpack, pkg, bbox, zoom):
    archive = read_pmtiles(pkg)
    ref = reference(archive, bbox, zoom)
    got = ours(query(kartpack, pkg, bbox, zoom))
    assert ref, "the reference holds no features: the test region is wrong"
    unit = 2 * HALF_WORLD / (1 << min(zoom, archive.header["max_zoom"])) / 4096
    missing = set(ref) - set(got)
    assert not missing, f"features the tiles hold but query lacks: {sorted(missing)[:5]}"
    for key in set(got) - set(ref):   # only slivers along the region's edge may be extra
        g = got[key][0]
        assert g.area <= 4 * unit * g.length + unit * unit or g.length <= 2 * unit, f"extra feature {key}"
    for key, (g, props) in ref.items():
        mine, my_props = got[key]
        assert {k: v for k, v in my_props.items() if k != "layer"} == pytest.approx(props), key
        if g.geom_type.endswith("Polygon"):
            # Within a tile unit: the areas differ by at most a band one unit wide along the boundary.
            off = g.symmetric_difference(mine).area
            assert off <= unit * g.length + unit * unit, f"{key}: {off} m² differ (boundary {g.length} m)"
        else:
            assert g.hausdorff_distance(mine) <= 1.5 * unit, f"{key}: geometry off by {g.hausdorff_distance(mine)} m"
    return got


def test_sample_query_matches_the_tiles(kartpack, sample_pmtiles):
    got = compare(kartpack, sample_pmtiles.output, (19.50, 63.90, 19.80, 64.02), 12)
    assert {layer for layer, _ in got} >= {"avdelningar", "fastigheter", "fornminnen", "vagar"}


def test_sample_query_overzoom_and_low_zoom(kartpack, sample_pmtiles):
    compare(kartpack, sample_pmtiles.output, (19.60, 63.95, 19.70, 64.00), 16)
    compare(kartpack, sample_pmtiles.output, (19.0, 63.5, 20.5, 64.5), 9)


@pytest.fixture(scope="session")
def nybb_pmtiles(kartpack, nyc_boroughs, tmp_path_factory):
    out = tmp_path_factory.mktemp("kit-nybb") / "nybb.pmtiles"
    return run_convert(kartpack, [nyc_boroughs], out, "--min-zoom", "0", "--max-zoom", "12", "--quiet").output


def test_nyc_boroughs_query_matches_the_tiles(kartpack, nybb_pmtiles):
    got = compare(kartpack, nybb_pmtiles, (-74.05, 40.60, -73.85, 40.80), 11)
    assert len(got) >= 3
    whole = query(kartpack, nybb_pmtiles, (-74.3, 40.45, -73.65, 40.95), 10)
    assert len(whole["features"]) == 5, "five boroughs, each once"


@pytest.fixture(scope="session")
def cities_pmtiles(kartpack, natural_earth, tmp_path_factory):
    out = tmp_path_factory.mktemp("kit-cities") / "cities.pmtiles"
    return run_convert(kartpack, [natural_earth["naturalearth_cities"]], out, "--min-zoom", "0", "--max-zoom", "4",
                       "--quiet").output


def positions(collection):
    return [merc(*f["geometry"]["coordinates"]) for f in collection["features"]]


def min_distance(pts):
    return min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1:])


def test_max_is_at_most_n_spread_and_stable(kartpack, cities_pmtiles):
    world = (-180, -85, 180, 85)
    every = query(kartpack, cities_pmtiles, world, 3)
    assert len(every["features"]) > 150
    for n in (5, 20, 60):
        chosen = query(kartpack, cities_pmtiles, world, 3, "--max", str(n))
        assert len(chosen["features"]) == n
        assert chosen == query(kartpack, cities_pmtiles, world, 3, "--max", str(n)), "not deterministic"
        rng = random.Random(n)
        everyone = positions(every)
        randoms = sorted(min_distance(rng.sample(everyone, n)) for _ in range(30))
        assert min_distance(positions(chosen)) > randoms[len(randoms) // 2], "not better spread than random"
        ids = {f["id"] for f in chosen["features"]}
        for bbox in [(-30, -60, 60, 70), (-130, 10, -60, 60), (0, 0, 150, 80), (100, -50, 180, 0)]:
            inner = query(kartpack, cities_pmtiles, bbox, 3, "--max", str(n))
            inner_ids = {f["id"] for f in inner["features"]}
            assert len(inner_ids) <= n
            inside = {f["id"] for f in chosen["features"]
                      if bbox[0] <= f["geometry"]["coordinates"][0] <= bbox[2]
                      and bbox[1] <= f["geometry"]["coordinates"][1] <= bbox[3]}
            assert inside <= inner_ids, f"chosen in the world view but not in {bbox}: {inside - inner_ids}"
        assert ids


def test_query_errors_and_text(kartpack, sample_pmtiles, tmp_path):
    bbox = (19.50, 63.90, 19.80, 64.02)
    assert "no layer" in query(kartpack, sample_pmtiles.output, bbox, 12, "--layer", "nope", expect=64).stderr
    query(kartpack, sample_pmtiles.output, (5, 0, 4, 1), 12, expect=64)
    query(kartpack, tmp_path / "missing.pmtiles", bbox, 12, expect=66)
    junk = tmp_path / "junk.pmtiles"
    junk.write_bytes(b"PMTiles\x03" + b"\xff" * 200)
    query(kartpack, junk, bbox, 12, expect=65)
    text = query(kartpack, sample_pmtiles.output, bbox, 12, "--format", "text", "--layer", "fornminnen")
    lines = text.stdout.splitlines()
    assert lines and all(line.split("\t")[0] == "fornminnen" and line.split("\t")[3] == "point" for line in lines)


def test_library_graph_is_free_of_c_libraries(tmp_path):
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    script = root / "scripts" / "check-kit-graph.py"
    dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                     capture_output=True, text=True).stdout)
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(dump))
    assert subprocess.run(["python3", str(script), "--dump", str(ok)]).returncode == 0
    for t in dump["targets"]:   # the check must fail once KartpackKit reaches SQLite
        if t["name"] == "PMTiles":
            t["dependencies"].append({"byName": ["SQLiteStore", None]})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dump))
    r = subprocess.run(["python3", str(script), "--dump", str(bad)], capture_output=True, text=True)
    assert r.returncode == 1 and "SQLiteStore" in r.stderr
    # Nettle (Checksum's SHA-256) may be reached on Linux only: the same edge without its condition fails.
    dump = json.loads(ok.read_text())
    for t in dump["targets"]:
        if t["name"] == "Checksum":
            assert t["dependencies"] == [{"target": ["CNettle", {"platformNames": ["linux"]}]}]
            t["dependencies"] = [{"byName": ["CNettle", None]}]
    unconditioned = tmp_path / "unconditioned.json"
    unconditioned.write_text(json.dumps(dump))
    r = subprocess.run(["python3", str(script), "--dump", str(unconditioned)], capture_output=True, text=True)
    assert r.returncode == 1 and "CNettle" in r.stderr
