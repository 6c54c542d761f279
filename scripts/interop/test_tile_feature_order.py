"""Features sit in each tile's MVT layer by place (docs/convert.md, *Record order*): where a feature's first piece
starts, on a Z-order curve over the tile, then its stable key. Neighbours follow each other, so MVT's delta-coded
cursor moves little and tiles compress better than in key order, and the order still does not depend on the
records' order in the file (test_record_order.py)."""
import pytest

from conftest import decode_tile, read_pmtiles, run_convert


def place(x: int, y: int) -> int:
    """The Z-order (Morton) code of a tile point, offset as Kartpack does (PreparePass.place)."""
    ux, uy = min(max(x + (1 << 20), 0), (1 << 30) - 1), min(max(y + (1 << 20), 0), (1 << 30) - 1)
    code = 0
    for bit in range(30):
        code |= ((ux >> bit) & 1) << (2 * bit) | ((uy >> bit) & 1) << (2 * bit + 1)
    return code


def first_point(feature):
    return feature.points[0] if feature.type == 1 else feature.parts[0][0]


@pytest.mark.smoke
@pytest.mark.parametrize("name, options", [
    ("naturalearth_cities", []),
    # The place is taken before shared borders simplify a polygon (they may move where its ring starts).
    ("naturalearth_lowres", ["--no-shared-borders", "--no-small-features"]),
])
def test_features_follow_their_place_in_every_tile(kartpack, natural_earth, tmp_path, name, options):
    out = tmp_path / f"{name}.pmtiles"
    run_convert(kartpack, [natural_earth[name]], out, "--min-zoom", "0", "--max-zoom", "4", *options)
    checked = 0
    for zxy, blob in sorted(read_pmtiles(out).tiles.items()):
        for layer in decode_tile(blob, f"{zxy}").values():
            places = [place(*first_point(f)) for f in layer.features]
            assert places == sorted(places), f"tile {zxy} layer {layer.name}: features not in Z order"
            checked += len(places) > 1
    assert checked >= 20, "too few tiles with more than one feature to say anything"
