"""`convert --style` writes the stylesheet's classes into the tiles: checked with mapbox-vector-tile, independent of
Kartpack's own decoder. Counts per class at max zoom equal the report's; style zoom ranges hold in real tiles."""
import collections
import gzip

import mapbox_vector_tile
import pytest

from conftest import ROOT, read_pmtiles, run_convert, sample_shapefiles

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

STYLE = ROOT / "SampleData" / "forest.kss"


@pytest.fixture(scope="module")
def styled(kartpack, tmp_path_factory):
    out = tmp_path_factory.mktemp("styled") / "forest.pmtiles"
    run = run_convert(kartpack, sample_shapefiles(), out, "--min-zoom", "9", "--max-zoom", "14", "--style", str(STYLE),
                      "--quiet")
    tiles = {zxy: mapbox_vector_tile.decode(gzip.decompress(blob)) for zxy, blob in read_pmtiles(out).tiles.items()}
    return run, tiles


def classes_at(tiles, zoom):
    """layer -> {feature id: class} at one zoom (a feature in several tiles has one class there)."""
    out = collections.defaultdict(dict)
    for (z, _, _), layers in tiles.items():
        if z != zoom:
            continue
        for name, layer in layers.items():
            for f in layer["features"]:
                cls = f["properties"].get("class")
                previous = out[name].setdefault(f["id"], cls)
                assert previous == cls, (name, f["id"], previous, cls)
    return out


def test_class_counts_match_the_report(styled):
    run, tiles = styled
    at_max = classes_at(tiles, 14)
    for entry in run.report["inputs"]:
        counts = collections.Counter(c for c in at_max[entry["layer"]].values() if c is not None)
        assert dict(counts) == entry["classes"], entry["layer"]
        assert entry["records"] == entry["written"] + sum(entry["rejected"].values())
    # Every hansyn type has its class; the descendant-free sample gives every stand a class.
    assert set(at_max["hansyn"].values()) >= {"natura2000", "national-park", "key-biotope", "conservation-agreement",
                                              "heritage-area", "habitat-protection", "nature-value", "nature-reserve"}
    assert None not in at_max["avdelningar"].values()


def test_style_zoom_ranges_hold_in_tiles(styled):
    _, tiles = styled
    minor = {i for i, c in classes_at(tiles, 14)["vagar"].items() if c == "minor-road"}
    assert minor
    for z in (9, 10):
        assert not minor & set(classes_at(tiles, z)["vagar"]), z
    assert minor <= set(classes_at(tiles, 11)["vagar"])


def test_kept_attributes_and_metadata_classes(styled, tmp_path):
    run, tiles = styled
    for layers in tiles.values():
        for f in layers.get("hansyn", {"features": []})["features"]:
            assert set(f["properties"]) <= {"TYP", "NAMN", "AREAL", "class"}
    import json
    meta = read_pmtiles(run.output).metadata
    summary = json.loads(meta["kartpack"])
    for layer, info in summary["layers"].items():
        assert info["classes"], layer
    fields = {l["id"]: l["fields"] for l in meta["vector_layers"]}
    assert fields["hansyn"].get("class") == "String"


def test_classes_by_zoom_match_the_tiles(styled):
    """`classes_by_zoom` in the metadata counts, per zoom, the distinct features of each class the tiles carry
    (no tile limit is hit on the sample, so nothing is dropped)."""
    import json
    run, tiles = styled
    summary = json.loads(read_pmtiles(run.output).metadata["kartpack"])
    for z in range(9, 15):
        decoded = classes_at(tiles, z)
        for layer, info in summary["layers"].items():
            counts = collections.Counter(c for c in decoded[layer].values() if c is not None)
            assert dict(counts) == info["classes_by_zoom"].get(str(z), {}), (layer, z)
