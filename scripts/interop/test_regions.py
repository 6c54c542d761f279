"""kartpack package by property and municipality, read back with PyPI pmtiles and mapbox-vector-tile: every
package opens and matches its catalog, no tile lies outside a region's buffered bounds, and a stand crossing a
property border appears, clipped, in the packages of both properties."""
import gzip
import hashlib
import json
import math
import subprocess

import mapbox_vector_tile
import pytest
from pmtiles.reader import MmapSource, Reader, all_tiles
from shapely.geometry import box, shape

from conftest import ROOT

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

FOREST = ROOT / "SampleData" / "forest"
PIPELINE = ROOT / "Pipelines" / "forest-plan.json"
BUFFER = 50


def tile_bounds(z, x, y):
    k = 2 ** z
    lat = lambda t: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * t / k))))
    return (x / k * 360 - 180, lat(y + 1), (x + 1) / k * 360 - 180, lat(y))


def load(path, tmp, srs="EPSG:4326"):
    """The records of a Shapefile as (properties, shapely geometry) in `srs`, read by GDAL's ogr2ogr."""
    out = tmp / (path.stem + srs.replace(":", "") + ".geojson")
    subprocess.run(["ogr2ogr", "-q", "-f", "GeoJSON", "-t_srs", srs, str(out), str(path)], check=True)
    return [(f["properties"], shape(f["geometry"])) for f in json.loads(out.read_text())["features"]]


def read(path):
    with open(path, "rb") as f:
        src = MmapSource(f)
        header = Reader(src).header()
        meta = Reader(src).metadata()
        tiles = {(z, x, y): d for (z, x, y), d in all_tiles(src)}
    return header, meta, tiles


@pytest.fixture(scope="module")
def props(tmp_path_factory):
    d = tmp_path_factory.mktemp("props")
    path = d / "props.shp"
    subprocess.run(["ogr2ogr", "-q", "-dialect", "sqlite", "-nln", "props", str(path), str(FOREST / "fastigheter.shp"),
                    "-sql", "SELECT geometry, FASTIGHET, 'p' || (rowid + 1) AS PID FROM fastigheter"], check=True)
    return path


def package(kartpack, tmp_path, regions, id_field):
    out = tmp_path / "out"
    subprocess.run([kartpack, "package", str(PIPELINE), "--regions", str(regions), "--id-field", id_field,
                    "--buffer", str(BUFFER), "--max-zoom", "13", "-o", str(out), "--quiet"], check=True)
    return out, json.loads((out / "catalog.json").read_text())


@pytest.mark.parametrize("layer,id_field", [("kommuner", "KOMMUNKOD"), ("props", "PID")])
def test_packages_open_and_stay_inside_their_region(kartpack, tmp_path, props, layer, id_field):
    regions = FOREST / "kommuner.shp" if layer == "kommuner" else props
    records = load(regions, tmp_path)
    out, catalog = package(kartpack, tmp_path, regions, id_field)
    assert len(catalog["regions"]) == len(records)
    for entry in catalog["regions"]:
        path = out / entry["file"]
        data = path.read_bytes()
        assert len(data) == entry["bytes"] and hashlib.sha256(data).hexdigest() == entry["sha256"]
        header, meta, tiles = read(path)
        assert header["min_zoom"] == entry["minZoom"] and header["max_zoom"] == entry["maxZoom"]
        assert tiles, entry["id"]
        region = next(g for p, g in records if str(p[id_field]) == entry["id"])
        # Buffered bounds in degrees (generous at this latitude), plus the tile's own clip buffer.
        w, s, e, n = region.bounds
        pad_lat = BUFFER / 111_000 * 1.5
        pad_lon = pad_lat / math.cos(math.radians((s + n) / 2))
        grown = box(w - pad_lon, s - pad_lat, e + pad_lon, n + pad_lat)
        for (z, x, y), blob in tiles.items():
            tb = box(*tile_bounds(z, x, y))
            bw = (tb.bounds[2] - tb.bounds[0]) * 80 / 4096
            assert tb.buffer(bw).intersects(grown), (entry["id"], z, x, y)
            mapbox_vector_tile.decode(gzip.decompress(blob))


def test_stand_crossing_a_property_border_is_in_both_clipped(kartpack, tmp_path, props):
    path = props
    metric = load(path, tmp_path, "EPSG:3006")
    stands = load(FOREST / "avdelningar.shp", tmp_path, "EPSG:3006")
    crossing = None
    for i, (_, st) in enumerate(stands):
        # The sample's stands nest in their property: one along a shared border crosses the neighbour's buffered
        # border, so it belongs (clipped) to both packages.
        hit = [p["PID"] for p, g in metric if g.buffer(BUFFER).intersection(st).area > 100]
        if len(hit) >= 2:
            crossing = (i, hit[:2])
            break
    assert crossing, "the sample has a stand crossing a buffered property border"
    record, (a, b) = crossing
    out, catalog = package(kartpack, tmp_path, path, "PID")
    stand = load(FOREST / "avdelningar.shp", tmp_path)[record][1]
    props4326 = load(path, tmp_path)
    areas = []
    for pid in (a, b):
        _, _, tiles = read(out / f"{pid}.pmtiles")
        z = 13
        xs, ys = [], []
        for (tz, x, y), blob in tiles.items():
            if tz != z:
                continue
            layers = mapbox_vector_tile.decode(gzip.decompress(blob), default_options={"y_coord_down": True})
            extent = layers.get("avdelningar", {}).get("extent", 4096)
            w, s_, e, n = tile_bounds(z, x, y)
            for f in layers.get("avdelningar", {}).get("features", []):
                if f["id"] != record + 1:  # ids are record numbers, from 1
                    continue
                for px, py in flatten(f["geometry"]["coordinates"]):
                    # Only points inside the tile itself (the tile buffer repeats the neighbours' edges).
                    if 0 <= px <= extent and 0 <= py <= extent:
                        xs.append(w + (e - w) * px / extent)
                        ys.append(n - (n - s_) * py / extent)
        assert xs, (pid, record)
        got = box(min(xs), min(ys), max(xs), max(ys))
        region = next(g for p, g in props4326 if p["PID"] == pid)
        rw, rs, re_, rn = region.bounds
        pad = BUFFER / 111_000 * 3
        grown = box(rw - pad * 2.3, rs - pad, re_ + pad * 2.3, rn + pad)
        # The stand in this package lies inside the property (plus buffer).
        assert grown.contains(got), (pid, got.bounds, grown.bounds)
        areas.append(got.area / box(*stand.bounds).area)
    # Whole in its own property's package, cut to the buffer in the neighbour's.
    assert max(areas) > 0.95 and min(areas) < 0.9, areas


def flatten(coords):
    if coords and isinstance(coords[0], (int, float)):
        yield coords
        return
    for c in coords:
        yield from flatten(c)
