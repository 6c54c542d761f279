"""Tile limits: with a tiny --max-tile-bytes, kartpack drops features below max zoom (consistently across each zoom,
never a feature that a lower zoom kept), keeps every tile within the budget, and keeps every feature at max zoom."""
import collections

import pytest

from conftest import SAMPLE_LAYERS, decode_tile, read_pmtiles, read_source, run_convert, sample_shapefiles

MIN_ZOOM, MAX_ZOOM, LIMIT = 10, 14, 2048


@pytest.fixture(scope="module")
def limited(kartpack, tmp_path_factory):
    out = tmp_path_factory.mktemp("limits") / "forest.pmtiles"
    run = run_convert(kartpack, sample_shapefiles(), out, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                      "--max-tile-bytes", str(LIMIT), "--quiet")
    archive = read_pmtiles(out)
    decoded = {zxy: decode_tile(blob, "%d/%d/%d" % zxy) for zxy, blob in archive.tiles.items()}
    return run, archive, decoded


def ids_by_zoom(decoded) -> dict:
    out = collections.defaultdict(lambda: collections.defaultdict(set))
    for (z, _, _), layers in decoded.items():
        for name, layer in layers.items():
            out[z][name].update(f.id for f in layer.features)
    return out


def test_report_shows_drops_below_max_zoom(limited):
    run, archive, _ = limited
    zooms = {z["zoom"]: z for z in run.report["zooms"]}
    assert sorted(zooms) == list(range(MIN_ZOOM, MAX_ZOOM + 1))
    for z in range(MIN_ZOOM, MAX_ZOOM):
        dropped = sum(zooms[z]["dropped"].values())
        assert dropped > 0, (z, zooms[z])
        assert zooms[z]["keptFraction"] < 1, zooms[z]
        assert zooms[z]["tilesOverLimit"] == 0, zooms[z]
        assert zooms[z]["largestTileBytes"] <= LIMIT, zooms[z]
    assert zooms[MAX_ZOOM]["dropped"] == {}
    # Report numbers agree with the archive.
    for z, entry in zooms.items():
        blobs = [b for (tz, _, _), b in archive.tiles.items() if tz == z]
        assert entry["tiles"] == len(blobs), z
        assert entry["largestTileBytes"] == max(len(b) for b in blobs), z
        assert entry["bytes"] == sum(len(b) for b in blobs), z
    assert run.report["featuresWritten"] == run.report["featuresRead"] == 234


def test_every_tile_below_max_zoom_fits_the_budget(limited):
    _, archive, _ = limited
    below = [(zxy, len(b)) for zxy, b in archive.tiles.items() if zxy[0] < MAX_ZOOM]
    assert below
    over = [(zxy, n) for zxy, n in below if n > LIMIT]
    assert not over, f"tiles over {LIMIT} compressed bytes: {over}"
    # The stored blob really is what the directory says (the limit applies to the compressed tile).
    assert all(b[:2] == b"\x1f\x8b" for b in archive.tiles.values())


def test_every_feature_kept_at_max_zoom(limited, source_dir):
    _, _, decoded = limited
    at_max = ids_by_zoom(decoded)[MAX_ZOOM]
    for shp in sample_shapefiles():
        assert at_max[shp.stem] == {s.id for s in read_source(shp, source_dir)}, shp.stem


def test_dropping_is_zoom_consistent(limited):
    _, _, decoded = limited
    by_zoom = ids_by_zoom(decoded)
    kept_something = False
    for z in range(MIN_ZOOM, MAX_ZOOM):
        for name in SAMPLE_LAYERS:
            lower = by_zoom[z][name]
            kept_something |= bool(lower)
            for z2 in range(z + 1, MAX_ZOOM + 1):
                missing = lower - by_zoom[z2][name]
                assert not missing, f"{name}: ids {sorted(missing)} kept at z{z} but dropped at z{z2}"
    assert kept_something, "the limit dropped everything below max zoom"
    # Some features really were dropped at the lowest zoom.
    assert sum(len(s) for s in by_zoom[MIN_ZOOM].values()) < 234


@pytest.fixture(scope="module")
def unlimited(sample_decoded):
    tiles_of = collections.defaultdict(set)
    for (z, x, y), layers in sample_decoded.items():
        if z >= MIN_ZOOM:
            for name, layer in layers.items():
                for f in layer.features:
                    tiles_of[(z, name, f.id)].add((x, y))
    return tiles_of


def test_kept_features_appear_in_all_their_tiles(limited, unlimited):
    """Dropping is per zoom, not per tile: a kept feature is in every tile it covers (the same tiles as without a
    limit), so density does not jump at tile seams."""
    _, _, decoded = limited
    tiles_of = collections.defaultdict(set)
    for (z, x, y), layers in decoded.items():
        for name, layer in layers.items():
            for f in layer.features:
                tiles_of[(z, name, f.id)].add((x, y))
    checked = 0
    for key, tiles in tiles_of.items():
        assert tiles == unlimited[key], f"{key}: in tiles {sorted(tiles)} but covers {sorted(unlimited[key])}"
        checked += 1
    assert checked > 100
