"""`kartpack convert` → PMTiles, checked with independent readers: tippecanoe-decode, the `pmtiles` package,
mapbox-vector-tile (and a strict decoder of its raw protobuf), and the sources read by GDAL's ogr2ogr."""
import json
import subprocess

import pytest

from conftest import (SAMPLE_DIR, SAMPLE_LAYERS, assert_properties_match, dbf_logical_fields, polygons_from_rings,
                      read_source, require_tool, sample_shapefiles, venv_tool)

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

MAX_ZOOM = 14


def test_tippecanoe_decode_reads_whole_archive(sample_pmtiles, sample_archive):
    proc = subprocess.run([venv_tool("tippecanoe-decode"), str(sample_pmtiles.output)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", f"tippecanoe-decode complained:\n{proc.stderr[:2000]}"
    doc = json.loads(proc.stdout)
    assert doc["type"] == "FeatureCollection"
    # One FeatureCollection per tile, each with one FeatureCollection per layer.
    tiles = {(t["properties"]["zoom"], t["properties"]["x"], t["properties"]["y"]): t for t in doc["features"]}
    assert set(tiles) == set(sample_archive.tiles)
    seen_layers = set()
    for t in tiles.values():
        for layer in t["features"]:
            seen_layers.add(layer["properties"]["layer"])
            for f in layer["features"]:
                assert f["geometry"]["type"] in {"Point", "MultiPoint", "LineString", "MultiLineString",
                                                 "Polygon", "MultiPolygon"}
    assert seen_layers == set(SAMPLE_LAYERS)
    # tippecanoe-decode prints the archive metadata too.
    assert doc["properties"]["generator"].startswith("kartpack")


def test_header(sample_archive, sample_pmtiles):
    from pmtiles.tile import Compression, TileType
    h = sample_archive.header
    assert h["version"] == 3
    assert h["tile_type"] == TileType.MVT
    assert h["tile_compression"] == Compression.GZIP
    assert h["internal_compression"] == Compression.GZIP
    assert h["clustered"] is True
    assert (h["min_zoom"], h["max_zoom"]) == (0, MAX_ZOOM)
    assert h["root_offset"] == 127
    assert h["root_offset"] + h["root_length"] <= 16384, "header + root directory must fit in 16 KiB"
    # Counts agree with the directories.
    entries = sample_archive.entries
    addressed = sum(e.run_length for e in entries)
    contents = len({e.offset for e in entries})
    assert h["addressed_tiles_count"] == addressed == len(sample_archive.tiles)
    assert h["tile_entries_count"] == len(entries)
    assert h["tile_contents_count"] == contents
    assert h["addressed_tiles_count"] >= h["tile_entries_count"] >= h["tile_contents_count"] > 0
    # The report agrees with the archive.
    assert sample_pmtiles.report["tiles"] == addressed
    assert sample_pmtiles.report["tileContents"] == contents
    assert sample_pmtiles.report["bytes"] == len(sample_archive.raw)
    # Clustered: tile data is written in TileID order, each new blob continuing where the last one ended.
    ids = [e.tile_id for e in entries]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    end = 0
    for e in entries:
        assert e.offset <= end, "clustered archive: a blob may only continue or point back"
        end = max(end, e.offset + e.length)
    assert end == h["tile_data_length"]
    assert h["tile_data_offset"] + h["tile_data_length"] == len(sample_archive.raw)
    # Distinct offsets really are distinct blobs (dedup by content, not by accident).
    blobs = {}
    for e in entries:
        blobs.setdefault(e.offset, sample_archive.raw[h["tile_data_offset"] + e.offset:][:e.length])
    assert len(set(blobs.values())) == len(blobs)
    # Bounds: the sample lies in northern Sweden (about 19.4..19.9 E, 63.9..64.1 N).
    lon0, lat0 = h["min_lon_e7"] / 1e7, h["min_lat_e7"] / 1e7
    lon1, lat1 = h["max_lon_e7"] / 1e7, h["max_lat_e7"] / 1e7
    assert 19.3 < lon0 < lon1 < 20.0 and 63.8 < lat0 < lat1 < 64.2, (lon0, lat0, lon1, lat1)
    assert lon0 <= h["center_lon_e7"] / 1e7 <= lon1 and lat0 <= h["center_lat_e7"] / 1e7 <= lat1
    assert 0 <= h["center_zoom"] <= MAX_ZOOM


def test_metadata(sample_archive, sample_pmtiles):
    m = sample_archive.metadata
    h = sample_archive.header
    assert m["name"] == "forest"
    assert m["generator"].startswith("kartpack")
    assert m["type"] in ("overlay", "baselayer")
    # Zooms, bounds and center live in the PMTiles header; where the JSON repeats them they must agree.
    if "minzoom" in m or "maxzoom" in m:
        assert int(m["minzoom"]) == 0 and int(m["maxzoom"]) == MAX_ZOOM
    expected = [h["min_lon_e7"] / 1e7, h["min_lat_e7"] / 1e7, h["max_lon_e7"] / 1e7, h["max_lat_e7"] / 1e7]
    if "bounds" in m:
        bounds = [float(v) for v in (m["bounds"].split(",") if isinstance(m["bounds"], str) else m["bounds"])]
        assert all(abs(a - b) < 1e-6 for a, b in zip(bounds, expected)), (bounds, expected)
    if "center" in m:
        center = [float(v) for v in (m["center"].split(",") if isinstance(m["center"], str) else m["center"])]
        assert expected[0] <= center[0] <= expected[2] and expected[1] <= center[1] <= expected[3]
    # The bounds cover every source feature: compare with GDAL's extent reprojected by pyproj.
    import pyproj
    t = pyproj.Transformer.from_crs("EPSG:3006", "EPSG:4326", always_xy=True)
    for shp in sample_shapefiles():
        ext = ogr_extent(shp)
        lon0, lat0, lon1, lat1 = t.transform_bounds(*ext, densify_pts=21)
        assert expected[0] <= lon0 + 1e-6 and expected[1] <= lat0 + 1e-6, (shp.stem, expected, (lon0, lat0))
        assert expected[2] >= lon1 - 1e-6 and expected[3] >= lat1 - 1e-6, (shp.stem, expected, (lon1, lat1))
    layers = m["vector_layers"]
    assert [l["id"] for l in layers] == list(SAMPLE_LAYERS)
    for layer, shp in zip(layers, sample_shapefiles()):
        assert layer["fields"], layer["id"]
        assert set(layer["fields"].values()) <= {"Number", "String", "Boolean"}, layer
        assert 0 <= layer.get("minzoom", 0) <= layer.get("maxzoom", MAX_ZOOM) <= MAX_ZOOM
        # Fields are the DBF columns, typed like GDAL types them.
        gdal = ogr_field_types(shp)
        assert list(layer["fields"]) == list(gdal), layer["id"]
        for name, t in layer["fields"].items():
            expected_type = {"Integer": "Number", "Integer64": "Number", "Real": "Number", "Date": "String",
                             "String": "String"}[gdal[name]]
            if gdal[name] == "String" and t == "Boolean":
                continue  # GDAL 3.6 reports DBF logical (L) columns as String(1)
            assert t == expected_type, (layer["id"], name, t, gdal[name])


def ogr_extent(shp) -> list:
    import re
    text = subprocess.run([require_tool("ogrinfo"), "-ro", "-al", "-so", str(shp)], check=True, capture_output=True,
                          text=True).stdout
    m = re.search(r"^Extent: \(([-\d.e+]+), ([-\d.e+]+)\) - \(([-\d.e+]+), ([-\d.e+]+)\)$", text, re.M)
    return [float(m.group(i)) for i in range(1, 5)]


def ogr_field_types(shp) -> dict:
    import re
    text = subprocess.run([require_tool("ogrinfo"), "-ro", "-al", "-so", str(shp)], check=True, capture_output=True,
                          text=True).stdout
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([^\s:][^:]*): (String|Integer|Integer64|Real|Date)(?:\(\w+\))? \(\d+\.\d+\)$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def test_every_tile_decodes(sample_archive, sample_decoded):
    import mapbox_vector_tile
    import gzip
    for zxy, blob in sample_archive.tiles.items():
        decoded = mapbox_vector_tile.decode(gzip.decompress(blob), default_options={"y_coord_down": True})
        ours = sample_decoded[zxy]
        assert set(decoded) == set(ours), zxy
        for name, layer in decoded.items():
            assert layer["version"] == 2 and layer["extent"] == 4096, (zxy, name)
            assert len(layer["features"]) == len(ours[name].features)
            for theirs, mine in zip(layer["features"], ours[name].features):
                assert theirs["id"] == mine.id
                assert theirs["properties"] == mine.properties
    for zxy, layers in sample_decoded.items():
        z, x, y = zxy
        assert 0 <= x < (1 << z) and 0 <= y < (1 << z)
        for layer in layers.values():
            assert layer.version == 2 and layer.extent == 4096
            ids = [f.id for f in layer.features]
            assert None not in ids, (zxy, layer.name)
            assert len(set(ids)) == len(ids), f"{zxy}/{layer.name}: an id twice in one tile"


def test_polygon_winding_and_validity(sample_decoded):
    import shapely
    polygons = 0
    for zxy, layers in sample_decoded.items():
        for layer in layers.values():
            for f in layer.features:
                if f.type != 3:
                    continue
                polygons += 1
                where = f"{zxy}/{layer.name}/id {f.id}"
                assert f.areas[0] > 0, f"{where}: the first ring must be an exterior (positive area)"
                assert all(a != 0 for a in f.areas), f"{where}: zero-area ring"
                for poly in polygons_from_rings(f.parts, f.areas):
                    assert shapely.is_valid(poly), f"{where}: {shapely.is_valid_reason(poly)}"
                    # Exterior positive in y-down coordinates; shapely's signed area agrees with ours.
                    assert shapely.Polygon(poly.exterior).area > 0
    assert polygons > 100


def test_every_source_id_at_max_zoom(sample_decoded, sample_pmtiles, source_dir):
    found = {name: set() for name in SAMPLE_LAYERS}
    for (z, _, _), layers in sample_decoded.items():
        if z == MAX_ZOOM:
            for name, layer in layers.items():
                found[name].update(f.id for f in layer.features)
    for shp in sample_shapefiles():
        n = len(read_source(shp, source_dir))
        assert found[shp.stem] == set(range(1, n + 1)), shp.stem
    # Ids are stable: the same id never carries different properties in different tiles.
    props = {}
    for zxy, layers in sample_decoded.items():
        for name, layer in layers.items():
            for f in layer.features:
                assert props.setdefault((name, f.id), f.properties) == f.properties, (zxy, name, f.id)
    assert sample_pmtiles.report["featuresRead"] == sample_pmtiles.report["featuresWritten"] == sum(
        len(s) for s in found.values())


def test_properties_equal_source_attributes(sample_decoded, source_dir):
    decoded = {}
    for (z, _, _), layers in sample_decoded.items():
        if z == MAX_ZOOM:
            for name, layer in layers.items():
                for f in layer.features:
                    decoded.setdefault((name, f.id), f.properties)
    checked = 0
    assert dbf_logical_fields(SAMPLE_DIR / "avdelningar.shp") == {"CERTIFIER"}
    for shp in sample_shapefiles():
        for src in read_source(shp, source_dir):
            assert_properties_match(src.properties, decoded[(shp.stem, src.id)], f"{shp.stem}/{src.id}",
                                    dbf_logical_fields(shp))
            checked += 1
    assert checked == 234
    # Swedish characters survive the ISO-8859-1 → UTF-8 trip.
    names = {p.get("NAMN") for (layer, _), p in decoded.items()}
    owners = {p.get("FASTIGHET") for p in decoded.values()}
    assert any(n and "Å" in n or n and "ä" in n or n and "ö" in n for n in names | owners), names
    assert any("Ålhult" in s for s in (names | owners) - {None}), sorted(s for s in names | owners if s)


@pytest.mark.parametrize("layer", SAMPLE_LAYERS)
def test_layer_geometry_types(layer, sample_decoded):
    expected = {"fornminnen": {1}, "vagar": {2}}.get(layer, {3})
    types = {f.type for layers in sample_decoded.values() if layer in layers for f in layers[layer].features}
    assert types == expected


def test_value_types_match_vector_layers(sample_decoded, sample_archive):
    """Every value of a key has the type vector_layers declares (MapLibre's == is strictly typed)."""
    declared = {l["id"]: l["fields"] for l in sample_archive.metadata["vector_layers"]}
    seen = set()
    for zxy, layers in sample_decoded.items():
        for name, layer in layers.items():
            for f in layer.features:
                for key, value in f.properties.items():
                    kind = ("Boolean" if isinstance(value, bool) else "Number" if isinstance(value, (int, float))
                            else "String")
                    assert declared[name].get(key) == kind, (zxy, name, key, value, declared[name].get(key))
                    seen.add((name, key))
    assert seen == {(name, key) for name, fields in declared.items() for key in fields}, "declared but never used"


def test_reference_decoder_on_spec_vectors():
    """The command-stream decoder these tests use, on the MVT 2.1 spec's worked examples (and a bad stream)."""
    from conftest import decode_geometry, ring_area
    assert decode_geometry(1, [9, 50, 34]) == ([(25, 17)], [])
    assert decode_geometry(1, [17, 10, 14, 3, 9]) == ([(5, 7), (3, 2)], [])
    assert decode_geometry(2, [9, 4, 4, 18, 0, 16, 16, 0]) == ([], [[(2, 2), (2, 10), (10, 10)]])
    _, rings = decode_geometry(3, [9, 6, 12, 18, 10, 12, 24, 44, 15])
    assert rings == [[(3, 6), (8, 12), (20, 34)]] and ring_area(rings[0]) == 19  # 38 before halving
    # Multipolygon with a hole (spec 4.3.5.7): exterior, exterior, hole.
    stream = [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15, 9, 4, 13, 26, 0, 8, 8,
              0, 0, 7, 15]
    _, rings = decode_geometry(3, stream)
    assert [ring_area(r) > 0 for r in rings] == [True, True, False]
    for bad in ([9, 4, 4, 18, 0, 0], [9, 6, 12, 18, 10, 12, 24, 44], [10, 6, 12]):
        with pytest.raises(AssertionError):
            decode_geometry(2 if len(bad) == 6 else 3, bad)
