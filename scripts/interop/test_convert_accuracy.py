"""Geometry accuracy of `kartpack convert` at max zoom, against the sources read by GDAL (ogr2ogr) and reprojected
independently with pyproj: decoded vertices lie on the source geometry within quantization + simplification, and
polygon areas (tiles clipped to their interiors and unioned per feature) match the source areas within 1 %."""
import collections

import numpy as np
import pytest

from conftest import (SAMPLE_LAYERS, decode_tile, polygons_from_rings, read_pmtiles, read_source, run_convert,
                      sample_shapefiles, tile_box, tile_to_mercator, to_mercator)

SAMPLE_MAX_ZOOM = 14
NYC_MAX_ZOOM = 12
EXTENT = 4096
BUFFER = 80
QUANTIZATION = 1.0      # rounding to the integer grid: at most 0.71 units, allow 1
SIMPLIFICATION = 1.0    # --simplify default, in tile units
SLACK = 0.5             # two PROJ builds (kartpack's libproj, pyproj's wheel) and float noise
MIN_AREA_UNITS = 100    # compare areas only for polygons larger than this many tile units²


def max_zoom_geometries(archive, zoom: int) -> dict:
    """{layer: {id: [(z, x, y, MVTFeature), ...]}} for every feature piece at `zoom`."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for (z, x, y), blob in sorted(archive.tiles.items()):
        if z != zoom:
            continue
        for name, layer in decode_tile(blob, f"{z}/{x}/{y}").items():
            assert layer.extent == EXTENT
            for f in layer.features:
                out[name][f.id].append((z, x, y, f))
    return out


def on_clip_edge(coords: np.ndarray, buffer: float = BUFFER) -> np.ndarray:
    """Vertices on (or within a unit of) the buffered clip rectangle; clipping creates them."""
    lo, hi = -buffer + 1, EXTENT + buffer - 1
    return (coords[:, 0] <= lo) | (coords[:, 0] >= hi) | (coords[:, 1] <= lo) | (coords[:, 1] >= hi)


def check_layer(name: str, pieces: dict, sources: list, crs: str, zoom: int, simplify: float = SIMPLIFICATION,
                buffer: float = BUFFER) -> dict:
    """Checks one layer; returns counts of what was compared (so callers can assert the test really ran)."""
    import shapely
    unit = 2 * 20037508.342789244 / (1 << zoom) / EXTENT
    by_id = {s.id: s for s in sources}
    stats = collections.Counter()
    for fid, parts in sorted(pieces.items()):
        src = by_id.get(fid)
        assert src is not None and src.geometry is not None, f"{name}: id {fid} has no source feature"
        merc = to_mercator(src.geometry, crs)
        kind = parts[0][3].type
        if kind == 1:
            tol = (QUANTIZATION + SLACK) * unit
            for z, x, y, f in parts:
                pts = tile_to_mercator(z, x, y, EXTENT, f.points)
                d = shapely.distance(shapely.points(pts), merc)
                assert d.max() <= tol, f"{name}/{fid} in {z}/{x}/{y}: point {d.max() / unit:.2f} units off"
                stats["points"] += len(pts)
            continue
        target = merc if kind == 2 else merc.boundary
        shapely.prepare(target)
        tol = (QUANTIZATION + simplify + SLACK) * unit
        clipped = []
        for z, x, y, f in parts:
            coords = np.asarray([p for part in f.parts for p in part], dtype=float)
            # Nothing lies beyond the buffered tile.
            assert coords.min() >= -buffer - 1 and coords.max() <= EXTENT + buffer + 1, (name, fid, z, x, y)
            inner = coords[~on_clip_edge(coords, buffer)]
            if len(inner):
                d = shapely.distance(shapely.points(tile_to_mercator(z, x, y, EXTENT, inner)), target)
                worst = int(np.argmax(d))
                assert d[worst] <= tol, (f"{name}/{fid} in {z}/{x}/{y}: vertex {tuple(inner[worst])} is "
                                         f"{d[worst] / unit:.2f} units from the source geometry")
                stats["vertices"] += len(inner)
            if kind == 3:
                box = tile_box(z, x, y)
                for poly in polygons_from_rings(f.parts, f.areas):
                    ring_m = shapely.Polygon(tile_to_mercator(z, x, y, EXTENT, poly.exterior.coords),
                                             [tile_to_mercator(z, x, y, EXTENT, h.coords) for h in poly.interiors])
                    clipped.append(shapely.intersection(shapely.make_valid(ring_m), box))
        if kind == 3:
            assert merc.geom_type in ("Polygon", "MultiPolygon")
            if merc.area >= MIN_AREA_UNITS * unit * unit:
                got = shapely.union_all(clipped).area
                # 1 % at the default tolerance; a coarser --simplify may move the boundary by up to half its
                # tolerance on average, so allow that band along the perimeter too.
                allowed = max(0.01 * merc.area, 0.5 * simplify * unit * merc.length if simplify > 1 else 0)
                assert abs(got - merc.area) <= allowed, (
                    f"{name}/{fid}: area {got:.1f} m² vs source {merc.area:.1f} m² "
                    f"({100 * (got - merc.area) / merc.area:+.2f} %)")
                stats["areas"] += 1
    return stats


@pytest.fixture(scope="module")
def sample_max_zoom(sample_archive):
    return max_zoom_geometries(sample_archive, SAMPLE_MAX_ZOOM)


@pytest.mark.parametrize("layer", SAMPLE_LAYERS)
def test_sample_geometry_accuracy(layer, sample_max_zoom, source_dir):
    shp = next(p for p in sample_shapefiles() if p.stem == layer)
    sources = read_source(shp, source_dir)
    pieces = sample_max_zoom[layer]
    assert set(pieces) == {s.id for s in sources}, f"{layer}: ids at max zoom differ from the source records"
    stats = check_layer(layer, pieces, sources, "EPSG:3006", SAMPLE_MAX_ZOOM)
    if layer == "fornminnen":
        assert stats["points"] >= len(sources)
    else:
        assert stats["vertices"] > 10 * len(sources), stats
    if layer not in ("fornminnen", "vagar"):
        assert stats["areas"] >= 1, stats


@pytest.fixture(scope="module")
def nyc_archive(kartpack, nyc_boroughs, tmp_path_factory):
    out = tmp_path_factory.mktemp("nyc") / "nybb.pmtiles"
    run = run_convert(kartpack, [nyc_boroughs], out, "--min-zoom", "0", "--max-zoom", str(NYC_MAX_ZOOM), "--quiet")
    assert run.report["inputs"][0]["crs"] == "EPSG:2263"
    return read_pmtiles(out)


def test_nyc_boroughs_geometry_accuracy(nyc_archive, nyc_boroughs, source_dir):
    sources = read_source(nyc_boroughs, source_dir)
    assert len(sources) == 5
    pieces = max_zoom_geometries(nyc_archive, NYC_MAX_ZOOM)["nybb"]
    assert set(pieces) == {1, 2, 3, 4, 5}
    stats = check_layer("nybb", pieces, sources, "EPSG:2263", NYC_MAX_ZOOM)
    assert stats["areas"] == 5 and stats["vertices"] > 1000, stats


@pytest.mark.parametrize("simplify,buffer", [(0, 0), (4, 16)], ids=["simplify0-buffer0", "simplify4-buffer16"])
def test_sample_accuracy_follows_simplify_and_buffer(kartpack, tmp_path, source_dir, simplify, buffer):
    """--simplify and --buffer change the result as documented: vertices stay within the tolerance given, and
    nothing reaches beyond the buffer given."""
    layers = ("avdelningar", "kommuner", "vagar")
    shps = [p for p in sample_shapefiles() if p.stem in layers]
    out = tmp_path / "forest.pmtiles"
    run_convert(kartpack, shps, out, "--min-zoom", str(SAMPLE_MAX_ZOOM), "--max-zoom", str(SAMPLE_MAX_ZOOM),
                "--simplify", str(simplify), "--buffer", str(buffer), "--quiet")
    pieces = max_zoom_geometries(read_pmtiles(out), SAMPLE_MAX_ZOOM)
    for shp in shps:
        sources = read_source(shp, source_dir)
        assert set(pieces[shp.stem]) == {s.id for s in sources}, shp.stem
        stats = check_layer(shp.stem, pieces[shp.stem], sources, "EPSG:3006", SAMPLE_MAX_ZOOM, simplify, buffer)
        assert stats["vertices"] > 0, stats
    # Clipping honours the buffer exactly: nothing beyond -buffer .. extent + buffer after rounding.
    coords = np.asarray([c for layer in pieces.values() for parts in layer.values() for *_, f in parts
                         for part in f.parts for c in part], dtype=float)
    assert coords.min() >= -buffer and coords.max() <= EXTENT + buffer, (coords.min(), coords.max())
    # ... and the buffer is used: polygons covering tile edges reach it.
    assert coords.min() == -buffer and coords.max() == EXTENT + buffer, (coords.min(), coords.max())


def test_nyc_polygons_valid_at_every_zoom(nyc_archive):
    import shapely
    rings = 0
    for zxy, blob in nyc_archive.tiles.items():
        for f in decode_tile(blob, "%d/%d/%d" % zxy)["nybb"].features:
            assert f.type == 3 and f.areas[0] > 0, (zxy, f.id)
            for poly in polygons_from_rings(f.parts, f.areas):
                assert shapely.is_valid(poly), (zxy, f.id, shapely.is_valid_reason(poly))
            rings += len(f.parts)
    assert rings > 100


def test_natural_earth_accuracy_at_zoom_5(kartpack, natural_earth, tmp_path, source_dir):
    """Geographic input (EPSG:4326), countries split at the antimeridian, and cities, at max zoom 5."""
    inputs = [natural_earth["naturalearth_lowres"], natural_earth["naturalearth_cities"]]
    out = tmp_path / "ne.pmtiles"
    run_convert(kartpack, inputs, out, "--min-zoom", "5", "--max-zoom", "5", "--quiet")
    pieces = max_zoom_geometries(read_pmtiles(out), 5)
    countries = read_source(inputs[0], source_dir)
    # Antarctica reaches -90°, which has no Web Mercator image (kartpack clips at -85.05°): nothing to compare with.
    antarctica = next(s.id for s in countries if s.properties["name"] == "Antarctica")
    assert antarctica in pieces["naturalearth_lowres"]
    polygons = {fid: p for fid, p in pieces["naturalearth_lowres"].items() if fid != antarctica}
    stats = check_layer("naturalearth_lowres", polygons, countries, "EPSG:4326", 5)
    assert stats["areas"] > 100, stats
    cities = read_source(inputs[1], source_dir)
    stats = check_layer("naturalearth_cities", pieces["naturalearth_cities"], cities, "EPSG:4326", 5)
    assert stats["points"] >= len(cities), stats


def test_nyc_shared_borders_leave_out_collapsed_islets(kartpack, nyc_boroughs, nyc_archive, tmp_path):
    """Shared borders (the default) leave out the rings Douglas-Peucker collapses, as simplifying each feature on
    its own (--no-shared-borders) does. Before, the topology repair kept every sub-pixel islet of the coast as a
    triangle: z3-z11 had 2-3 times the rings of the per-feature path, and the package 5-12 % larger."""
    plain = tmp_path / "plain.pmtiles"
    run_convert(kartpack, [nyc_boroughs], plain, "--min-zoom", "0", "--max-zoom", str(NYC_MAX_ZOOM), "--quiet",
                "--no-shared-borders")

    def rings_and_boroughs(archive):
        rings, boroughs = collections.Counter(), collections.defaultdict(set)
        for zxy, blob in archive.tiles.items():
            for f in decode_tile(blob, "%d/%d/%d" % zxy)["nybb"].features:
                rings[zxy[0]] += len(f.parts)
                boroughs[zxy[0]].add(f.id)
        return rings, boroughs

    independent = read_pmtiles(plain)
    (shared, shared_ids), (alone, _) = rings_and_boroughs(nyc_archive), rings_and_boroughs(independent)
    for z in range(1, NYC_MAX_ZOOM):
        assert shared[z] <= 1.4 * alone[z] + 4, (z, shared[z], alone[z])
        # No borough disappears with its islets (simplified alone, Manhattan is gone at z1).
        assert shared_ids[z] == {1, 2, 3, 4, 5}, z
    shared_bytes = sum(len(b) for b in nyc_archive.tiles.values())
    alone_bytes = sum(len(b) for b in independent.tiles.values())
    assert shared_bytes <= 1.04 * alone_bytes, (shared_bytes, alone_bytes)
