"""kartpack extract across tile compressions and formats, read back with PyPI pmtiles and sqlite3: a .pmtiles part
keeps the source's compression (tiles copied as stored, never decoded), an .mbtiles part holds gzip tiles, an
MBTiles source extracts like a PMTiles one, and raster packages are refused."""
import gzip
import json
import math
import sqlite3
import subprocess

import pytest
from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import Compression, TileType, zxy_to_tileid
from pmtiles.writer import Writer

from conftest import ROOT

FOREST = ROOT / "SampleData" / "forest"
BBOX = (19.55, 63.99, 19.65, 64.03)


def run(kartpack, *args):
    return subprocess.run([kartpack, *map(str, args)], capture_output=True, text=True)


def touches(z, x, y, box=BBOX):
    w, s, e, n = box
    k = 2 ** z
    lat = lambda t: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * t / k))))
    return x / k * 360 - 180 <= e and (x + 1) / k * 360 - 180 >= w and lat(y + 1) <= n and lat(y) >= s


def read_pmtiles(path):
    with open(path, "rb") as f:
        src = MmapSource(f)
        r = Reader(src)
        return r.header(), r.metadata(), {(z, x, y): d for (z, x, y), d in all_tiles(src)}


def read_mbtiles(path):
    db = sqlite3.connect(path)
    meta = dict(db.execute("SELECT name, value FROM metadata"))
    tiles = {(z, x, (1 << z) - 1 - row): bytes(d)
             for z, x, row, d in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}
    db.close()
    return meta, tiles


def rewrite(src, dst, compression, transform=lambda d: d, tile_type=TileType.MVT):
    """`src` (a Kartpack .pmtiles) rewritten by the reference writer with another tile compression or type."""
    header, meta, tiles = read_pmtiles(src)
    with open(dst, "wb") as f:
        w = Writer(f)
        for (z, x, y) in sorted(tiles, key=lambda t: zxy_to_tileid(*t)):
            w.write_tile(zxy_to_tileid(z, x, y), transform(tiles[(z, x, y)]))
        h = dict(header)
        h["tile_compression"] = compression
        h["tile_type"] = tile_type
        w.finalize(h, meta)


@pytest.fixture(scope="module")
def sources(kartpack, tmp_path_factory):
    d = tmp_path_factory.mktemp("extract")
    inputs = [FOREST / "avdelningar.shp", FOREST / "vagar.shp"]
    out = {}
    for ext in ("pmtiles", "mbtiles"):
        out[ext] = d / f"big.{ext}"
        r = run(kartpack, "convert", *inputs, "--min-zoom", 8, "--max-zoom", 12, "-o", out[ext], "--quiet")
        assert r.returncode == 0, r.stderr
    out["none"] = d / "none.pmtiles"
    rewrite(out["pmtiles"], out["none"], Compression.NONE, gzip.decompress)
    # Gzip bytes labelled zstd: extract must copy them untouched without trying to read them.
    out["zstd"] = d / "zstd.pmtiles"
    rewrite(out["pmtiles"], out["zstd"], Compression.ZSTD)
    out["png"] = d / "png.pmtiles"
    rewrite(out["pmtiles"], out["png"], Compression.NONE, tile_type=TileType.PNG)
    out["dir"] = d
    return out


def expected(tiles):
    return {t: d for t, d in tiles.items() if touches(*t)}


def test_uncompressed_pmtiles_stays_uncompressed_in_a_pmtiles_part(kartpack, sources):
    part = sources["dir"] / "none-part.pmtiles"
    r = run(kartpack, "extract", sources["none"], "--bbox", ",".join(map(str, BBOX)), "-o", part)
    assert r.returncode == 0, r.stderr
    assert "none tiles" in r.stdout, r.stdout
    header, meta, tiles = read_pmtiles(part)
    assert header["tile_compression"] == Compression.NONE
    assert header["tile_type"] == TileType.MVT
    _, src_meta, src_tiles = read_pmtiles(sources["none"])
    want = expected(src_tiles)
    assert tiles == want and len(want) > 5
    assert tiles[next(iter(tiles))][:2] != b"\x1f\x8b"
    # Every metadata key of the source (the run summary too) is kept; bounds and zooms are the part's.
    assert meta["kartpack"] == src_meta["kartpack"]
    assert meta["vector_layers"][0]["id"] == src_meta["vector_layers"][0]["id"]


def test_uncompressed_pmtiles_becomes_gzip_in_an_mbtiles_part(kartpack, sources):
    part = sources["dir"] / "none-part.mbtiles"
    r = run(kartpack, "extract", sources["none"], "--bbox", ",".join(map(str, BBOX)), "-o", part)
    assert r.returncode == 0, r.stderr
    _, src_tiles = None, read_pmtiles(sources["none"])[2]
    meta, tiles = read_mbtiles(part)
    want = expected(src_tiles)
    assert set(tiles) == set(want)
    assert all(d[:2] == b"\x1f\x8b" and gzip.decompress(d) == want[t] for t, d in tiles.items())
    assert f"({len(want)} uncompressed tiles gzip-compressed)" in r.stdout, r.stdout
    assert meta["format"] == "pbf"
    assert "kartpack" in json.loads(meta["json"]) or "kartpack" in meta


def test_mbtiles_source_extracts_like_the_pmtiles_one(kartpack, sources):
    box = ",".join(map(str, BBOX))
    from_pm = sources["dir"] / "from-pm.pmtiles"
    from_mb = sources["dir"] / "from-mb.pmtiles"
    from_mb_mb = sources["dir"] / "from-mb.mbtiles"
    for src, dst in ((sources["pmtiles"], from_pm), (sources["mbtiles"], from_mb), (sources["mbtiles"], from_mb_mb)):
        r = run(kartpack, "extract", src, "--bbox", box, "-o", dst, "--max-zoom", 11)
        assert r.returncode == 0, r.stderr
        assert "gzip tiles" in r.stdout and "gzip-compressed" not in r.stdout, r.stdout
    h_pm, m_pm, t_pm = read_pmtiles(from_pm)
    h_mb, m_mb, t_mb = read_pmtiles(from_mb)
    assert h_mb["tile_compression"] == Compression.GZIP
    assert set(t_mb) == set(t_pm) and all(t[0] <= 11 for t in t_mb)
    assert all(gzip.decompress(t_mb[t]) == gzip.decompress(t_pm[t]) for t in t_pm)
    for key in ("name", "vector_layers", "kartpack", "attribution", "description"):
        assert m_mb.get(key) == m_pm.get(key), key
    # Bounds: the box within the source's bounds (MBTiles keeps them as "W,S,E,N" text).
    assert (h_mb["min_lon_e7"], h_mb["max_lat_e7"]) == (h_pm["min_lon_e7"], h_pm["max_lat_e7"])
    _, t_mm = read_mbtiles(from_mb_mb)
    assert set(t_mm) == set(t_pm)


def test_a_compression_kartpack_cannot_read_is_copied_to_pmtiles_and_refused_for_mbtiles(kartpack, sources):
    box = ",".join(map(str, BBOX))
    part = sources["dir"] / "zstd-part.pmtiles"
    r = run(kartpack, "extract", sources["zstd"], "--bbox", box, "-o", part)
    assert r.returncode == 0, r.stderr
    assert "zstd tiles" in r.stdout, r.stdout
    header, _, tiles = read_pmtiles(part)
    assert header["tile_compression"] == Compression.ZSTD
    assert tiles == expected(read_pmtiles(sources["zstd"])[2])
    bad = sources["dir"] / "zstd-part.mbtiles"
    r = run(kartpack, "extract", sources["zstd"], "--bbox", box, "-o", bad)
    assert r.returncode == 73, r.stderr
    assert "zstd" in r.stderr and ".pmtiles" in r.stderr, r.stderr
    assert not bad.exists()


def test_raster_packages_are_refused(kartpack, sources):
    part = sources["dir"] / "png-part.pmtiles"
    r = run(kartpack, "extract", sources["png"], "--bbox", ",".join(map(str, BBOX)), "-o", part)
    assert r.returncode == 65, r.stderr
    assert "png tiles" in r.stderr, r.stderr
    assert not part.exists()
