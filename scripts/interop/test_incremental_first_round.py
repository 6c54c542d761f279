"""The tile index keeps each thinned zoom's first round (issue 37): per tile, its first-round signature, whether it
was over a limit and where it fits, so the next night encodes in that round only the tiles whose first-round
signature changed; and the index survives a rebuild of the same Kartpack (the output format, not the binary, is
compared). Every night is byte-identical to `run --full` (`Night.next_night` in test_incremental_run.py)."""
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import ROOT
from test_incremental_run import Night, forest_export, forest_spec  # noqa: F401 (a fixture)

MAGIC = b"KARTPACK-TILE-INDEX\n"


def read_index(path) -> dict:
    """Parses a tile index (Pipelines/README.md, *Incremental builds: the tile index*)."""
    data = path.read_bytes()
    assert data.startswith(MAGIC)
    at = len(MAGIC)
    version, = struct.unpack_from("<I", data, at)
    at += 4 + 16 + 8 + 16 + 8
    count, = struct.unpack_from("<Q", data, at)
    at += 8
    tiles = []
    for _ in range(count):
        z, x, y = struct.unpack_from("<BII", data, at)
        at += 9 + 16 + 4 + 4 + 16 + 4
        layers = data[at]
        at += 1 + 12 * layers + 4
        tiles.append((z, x, y))
    first, = struct.unpack_from("<Q", data, at)
    at += 8
    rounds = []
    for _ in range(first):
        z, x, y = struct.unpack_from("<BII", data, at)
        flags, rank = struct.unpack_from("<Bi", data, at + 9 + 16)
        rounds.append(((z, x, y), flags, rank))
        at += 30
    assert at == len(data) - 32
    return {"version": version, "tiles": tiles, "firstRounds": rounds}


def stands_export(tmp_path, count: int):
    root = tmp_path / f"stands-{count}"
    root.mkdir()
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "make-stands.py"), "--count", str(count), "--out",
                    str(root / "stands")], check=True, timeout=300, capture_output=True)
    return root


def stands_spec(**tiles) -> dict:
    return {
        "version": 1,
        "sources": [{"path": "stands.shp", "layer": "stands", "idField": "AVDNR"}],
        "tiles": {"minZoom": 6, "maxZoom": 14, **tiles},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }


def test_the_index_keeps_the_first_round_of_each_thinned_zoom(kartpack, forest_export, tmp_path):
    night = Night(kartpack, forest_export, tmp_path / "night", forest_spec())
    first = night.run()
    assert first["incremental"]["firstRoundTilesReplayed"] == 0
    index = read_index(night.folder / "out" / "plan.pmtiles.tileindex")
    assert index["version"] == 4
    zooms = {t[0][0] for t in index["firstRounds"]}
    # The sample keeps at most 40 features a tile below the max zoom: the low zooms are thinned, the max zoom never.
    assert zooms and max(zooms) < 14
    for z in zooms:
        # A thinned zoom's first round saw the tiles its last round made, and some of them were over the limit.
        assert sorted(t for t, _, _ in index["firstRounds"] if t[0] == z) == sorted(t for t in index["tiles"] if t[0] == z)
        assert any(flags & 1 for t, flags, _ in index["firstRounds"] if t[0] == z)
    # Over-limit tiles keep where they fit as a rank among their own features (-1: nothing fits).
    assert all(rank >= -1 for _, flags, rank in index["firstRounds"] if flags & 1)

    stands = night.layer("avdelningar")
    stands.set_field(3, "AREAL", "99.5")
    stands.save(night.folder / "avdelningar.shp")
    inc = night.next_night()
    # The thinned zooms' first rounds were mostly replayed from the index, not encoded; each tile counts once,
    # however many rounds its zoom took.
    assert inc["full"] is False and inc["firstRoundTilesReplayed"] > 0
    thinned_tiles = sum(1 for t in index["firstRounds"])
    assert inc["firstRoundTilesReplayed"] <= thinned_tiles
    assert inc["tilesUnsigned"] <= inc["tilesReencoded"] + inc["tilesCopied"]


@pytest.mark.parametrize("whole_zooms", [True, False])
def test_a_zoom_that_is_no_longer_thinned(kartpack, tmp_path, whole_zooms):
    """Last night a zoom was over the feature limit in its first round; tonight, after deletions, it is not. With
    zooms encoded whole off (`KARTPACK_NO_WHOLE_ZOOMS`), the first round is replayed for the tiles that did not
    change, finds no tile over, and runs again (the replayed tiles were not made); by default the zoom is encoded
    whole. Either way the bytes are the full build's."""
    night = Night(kartpack, stands_export(tmp_path, 400), tmp_path / "night", stands_spec(maxTileFeatures=300))
    if not whole_zooms:
        night.env = {"KARTPACK_NO_WHOLE_ZOOMS": "1"}
    night.run()
    before = read_index(night.folder / "out" / "plan.pmtiles.tileindex")["firstRounds"]
    # About 410 stands: the zooms whose tiles hold more than 300 of them are thinned; at one of them (z12 here)
    # a tile under the limit sits beside one over it.
    assert any(flags & 1 for _, flags, _ in before) and any(not flags & 1 for _, flags, _ in before)
    # The 150 easternmost stands go: no tile is over the limit any more, and the western tiles do not change.
    stands = night.layer("stands")
    east = sorted(range(len(stands.records)), key=lambda i: struct.unpack_from("<d", stands.records[i], 4)[0])
    for i in sorted(east[-150:], reverse=True):
        stands.delete(i)
    stands.save(night.folder / "stands.shp")
    inc = night.next_night()
    # The deletions re-encode at least half the tiles of the zoom above: since the zooms encoded whole (Pipelines/
    # README.md), the thinned zooms below it are encoded as without an index (no first round replayed); the bytes
    # are the full build's all the same.
    assert inc["full"] is False and (inc["firstRoundTilesReplayed"] > 0 or 12 in inc["zoomsEncodedWhole"])
    if not whole_zooms:
        assert inc["firstRoundTilesReplayed"] > 0 and inc["zoomsEncodedWhole"] == []
    assert read_index(night.folder / "out" / "plan.pmtiles.tileindex")["firstRounds"] == []


def test_an_old_index_and_a_rebuilt_binary(kartpack, forest_export, tmp_path):
    night = Night(kartpack, forest_export, tmp_path / "night", forest_spec())
    night.run()
    index = night.folder / "out" / "plan.pmtiles.tileindex"
    data = bytearray(index.read_bytes())
    data[len(MAGIC)] = 1
    index.write_bytes(bytes(data))
    assert night.run("--force")["incremental"]["reason"] == "the tile index has format 1, this Kartpack reads 4"
    # The same Kartpack copied elsewhere (another path, size-preserving but another modification time, as a
    # redeploy of the same source): the index is still used, nothing is re-encoded.
    copy = tmp_path / "bin" / "kartpack"
    copy.parent.mkdir()
    shutil.copyfile(kartpack, copy)
    copy.chmod(0o755)
    again = Night(str(copy), forest_export, tmp_path / "other", forest_spec())
    shutil.copyfile(night.package, again.package)
    shutil.copyfile(index, again.folder / "out" / "plan.pmtiles.tileindex")
    inc = again.run("--force")["incremental"]
    assert inc["full"] is False and inc["tilesReencoded"] == 0 and inc["firstRoundTilesReplayed"] > 0
