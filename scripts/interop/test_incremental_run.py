"""A nightly `run` re-encodes only the tiles whose features changed and copies the others from the previous
package (issue 37), and the package is byte-identical to a full build of the same inputs (`run --full`).

Each case builds a night (a full build: there is no package yet), edits the export as a GIS would — one stand, 1 %
of the stands, a feature deleted and one added, a stylesheet rule, a layer's CRS (.prj), the whole export in
another record order — and builds the next night twice: incrementally, then with `--full`. The bytes must be equal,
and the report must say how many tiles were re-encoded, copied and removed, or why the build was full. Cases run
on the sample forest plan (thinned: a tile keeps at most 40 features below the max zoom) and on ~20k generated
stands (scripts/bench/make-stands.py)."""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from shapefile_edit import ShapefileSet
from shapefile_shuffle import shuffle_shapefile

FOREST = ROOT / "SampleData" / "forest"
STYLE = ROOT / "SampleData" / "forest.kss"
LAYERS = ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"]


def sha(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def forest_export(tmp_path_factory) -> pathlib.Path:
    """The sample forest plan with an OBJID per record, as a GIS export has."""
    root = tmp_path_factory.mktemp("forest-export")
    for layer in LAYERS:
        subprocess.run(["ogr2ogr", "-q", "-dialect", "sqlite", "-nln", layer, str(root / f"{layer}.shp"),
                        str(FOREST / f"{layer}.shp"), "-sql", f"SELECT *, rowid + 1 AS OBJID FROM {layer}"],
                       check=True, timeout=120)
    shutil.copyfile(STYLE, root / "forest.kss")
    return root


@pytest.fixture(scope="module")
def stands_export(tmp_path_factory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("stands-export")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "make-stands.py"), "--count", "20000", "--out",
                    str(root / "stands")], check=True, timeout=300, capture_output=True)
    return root


class Night:
    """A copy of an export with a pipeline building out/plan.pmtiles from it."""

    def __init__(self, kartpack: str, export: pathlib.Path, folder: pathlib.Path, spec: dict):
        shutil.copytree(export, folder)
        (folder / "out").mkdir()
        self.kartpack, self.folder = kartpack, folder
        self.plan = folder / "plan.json"
        self.plan.write_text(json.dumps(spec))
        self.package = folder / "out" / "plan.pmtiles"
        # More environment for every build (e.g. KARTPACK_NO_WHOLE_ZOOMS).
        self.env: dict = {}

    def run(self, *args: str, checked: bool = True) -> dict:
        report = self.folder / "report.json"
        # Every tile whose signature the build would take from the index unmade is signed all the same, and the
        # build fails if that signature is not last night's (TileReuse.unsignedRule); every piece is read, and the
        # build fails if a tile no change touched changed (LazyPieces). Unchecked, those tiles are copied unread.
        env = {**os.environ, **self.env}
        env.pop("KARTPACK_CHECK_UNSIGNED", None)
        if checked:
            env["KARTPACK_CHECK_UNSIGNED"] = "1"
        subprocess.run([self.kartpack, "run", str(self.plan), "--quiet", "--report", str(report), *args], check=True,
                       timeout=900, env=env)
        return json.loads(report.read_text())

    def layer(self, name: str) -> ShapefileSet:
        return ShapefileSet.load(self.folder / f"{name}.shp")

    def shuffle_layers(self, layers) -> None:
        """Rewrites each of `layers` in place in another record order (a re-export of the same data)."""
        for i, layer in enumerate(layers):
            src = self.folder / f"{layer}.shp"
            shuffled = self.folder / "shuffled" / f"{layer}.shp"
            shuffle_shapefile(src, shuffled, seed=i + 1)
            for ext in (".shp", ".shx", ".dbf"):
                shutil.copyfile(shuffled.with_suffix(ext), src.with_suffix(ext))

    def next_night(self, *args: str) -> dict:
        """Builds incrementally (checked, then again from last night's files unchecked: the pieces that stay in the
        store unread), then in full; asserts the bytes are equal and returns the unchecked incremental report."""
        out, before = self.folder / "out", self.folder / "out.before"
        shutil.rmtree(before, ignore_errors=True)
        shutil.copytree(out, before)
        checked = self.run("--force", *args)
        built = sha(self.package)
        shutil.rmtree(out)
        before.rename(out)
        incremental = self.run("--force", *args, checked=False)
        assert sha(self.package) == built, "the unchecked incremental build differs from the checked one"
        # (A zoom thinned tonight but not last night sends only the unchecked build back to a full one.)
        if not incremental["incremental"]["full"]:
            for key in ("tilesReencoded", "tilesCopied", "tilesRemoved", "full", "reason"):
                assert incremental["incremental"].get(key) == checked["incremental"].get(key), key
        full = self.run("--full", *args)
        assert full["incremental"]["full"] is True and full["incremental"]["reason"] == "--full was given"
        assert sha(self.package) == built, "the incremental build differs from the full build"
        assert full["incremental"]["tilesCopied"] == 0
        inc = incremental["incremental"]
        assert inc["tilesReencoded"] + inc["tilesCopied"] == full["incremental"]["tilesReencoded"]
        assert inc["tilesReencoded"] + inc["tilesCopied"] == full["conversion"]["tiles"]
        return inc


def forest_spec(**tiles) -> dict:
    return {
        "version": 1,
        "sources": [{"path": f"{layer}.shp", "layer": layer, "idField": "OBJID"} for layer in LAYERS],
        "style": "forest.kss",
        "tiles": {"minZoom": 6, "maxZoom": 14, "maxTileFeatures": 40, **tiles},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }


@pytest.fixture
def forest_night(kartpack, forest_export, tmp_path) -> Night:
    night = Night(kartpack, forest_export, tmp_path / "night", forest_spec())
    first = night.run()["incremental"]
    assert first["full"] is True and first["reason"] == "there is no previous package"
    assert first["indexBytes"] > 0 and (night.folder / "out" / "plan.pmtiles.tileindex").exists()
    return night


@pytest.mark.smoke
def test_one_stand_edited(forest_night):
    stands = forest_night.layer("avdelningar")
    stands.set_field(3, "AREAL", "99.5")
    stands.save(forest_night.folder / "avdelningar.shp")
    inc = forest_night.next_night()
    assert inc["full"] is False and inc.get("reason") is None
    # The stand's tiles at the zooms that show it: a handful, out of hundreds.
    assert 0 < inc["tilesReencoded"] <= 20 < inc["tilesCopied"]
    assert inc["tilesRemoved"] == 0
    # Above the thinned zooms the unchanged features' pieces stay in the store (identity classes do not span tiles
    # without coalescing).
    assert inc["zoomsUnread"] and inc["featuresUnread"] > 0 and inc["tilesCopiedUnread"] > 0


def test_one_percent_of_the_stands_edited_and_moved(forest_night):
    stands = forest_night.layer("avdelningar")
    count = len(stands.records)
    for i in range(0, count, 100):
        stands.set_field(i, "ALDER", "7")
        stands.move(i + 1, 12.0, -8.0)
    stands.save(forest_night.folder / "avdelningar.shp")
    inc = forest_night.next_night()
    assert inc["full"] is False and inc["tilesReencoded"] > 0 and inc["tilesCopied"] > 0


def test_a_deleted_and_an_added_feature(forest_night):
    stands = forest_night.layer("avdelningar")
    stands.delete(5)
    stands.append_copy(6, dx=400.0, dy=250.0, fields={"OBJID": "900001"})
    stands.save(forest_night.folder / "avdelningar.shp")
    monuments = forest_night.layer("fornminnen")
    monuments.delete(0)
    monuments.save(forest_night.folder / "fornminnen.shp")
    inc = forest_night.next_night()
    assert inc["full"] is False and inc["tilesReencoded"] > 0 and inc["tilesCopied"] > 0


def test_a_changed_stylesheet_rule(forest_night):
    sheet = forest_night.folder / "forest.kss"
    text = sheet.read_text()
    assert "class: clearcut;" in text
    sheet.write_text(text.replace("class: clearcut;", "class: felled-stand;"))
    inc = forest_night.next_night()
    # Only tiles with a clearcut stand change: re-classified, not rebuilt whole.
    assert inc["full"] is False and inc["tilesReencoded"] > 0 and inc["tilesCopied"] > 0


def test_a_changed_crs(forest_night):
    """A .prj with another false easting (50 m): the layer moves, every tile it is in is made again."""
    from pyproj import CRS
    prj = forest_night.folder / "hansyn.prj"
    wkt = CRS.from_wkt(prj.read_text()).to_wkt("WKT1_ESRI")
    assert "500000.0" in wkt
    prj.write_text(wkt.replace("500000.0", "500050.0"))
    inc = forest_night.next_night()
    assert inc["full"] is False and inc["tilesReencoded"] > 0


def test_a_shuffled_export_copies_every_tile(forest_night):
    forest_night.shuffle_layers(LAYERS)
    assert forest_night.run()["upToDate"] is True
    inc = forest_night.next_night()
    assert inc["full"] is False and inc["tilesReencoded"] == 0 and inc["tilesRemoved"] == 0


def test_smallest_thinning_measures_the_pieces_left_in_the_store(kartpack, stands_export, tmp_path):
    """Thinning by size: the drop order takes the size of a feature whose pieces stay in the store from its
    record's summary, and the night is the full build's."""
    spec = {
        "version": 1,
        "sources": [{"path": "stands.shp", "layer": "stands", "idField": "AVDNR"}],
        "tiles": {"minZoom": 6, "maxZoom": 14, "maxTileFeatures": 300, "thinning": "smallest"},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }
    night = Night(kartpack, stands_export, tmp_path / "night", spec)
    night.run()
    stands = night.layer("stands")
    stands.move(3, 25.0, -10.0)
    stands.save(night.folder / "stands.shp")
    inc = night.next_night()
    assert inc["full"] is False and inc["featuresUnread"] > 0 and inc["tilesCopiedUnread"] > 0


def test_label_points_left_in_the_store(kartpack, stands_export, tmp_path):
    """Stands labelled from zoom 13: a label point's pieces stay in the store with its stand's, a moved stand's
    label moves, a deleted stand's label goes, and the nights are the full build's."""
    spec = {
        "version": 1,
        "sources": [{"path": "stands.shp", "layer": "stands", "idField": "AVDNR"}],
        "style": "stands.kss",
        "tiles": {"minZoom": 6, "maxZoom": 14, "maxTileFeatures": 300},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }
    night = Night(kartpack, stands_export, tmp_path / "night", spec)
    (night.folder / "stands.kss").write_text("stands { class: stand; }\nstands[zoom >= 13] { label: AVDNR; }\n")
    night.run()
    shown = subprocess.run([kartpack, "inspect", str(night.package)], capture_output=True, text=True, check=True)
    assert "stands_labels (zoom 13-14)" in shown.stdout
    stands = night.layer("stands")
    stands.move(3, 40.0, -20.0)
    stands.delete(11)
    stands.save(night.folder / "stands.shp")
    inc = night.next_night()
    assert inc["full"] is False and inc["featuresUnread"] > 0 and inc["tilesCopiedUnread"] > 0
    assert 14 in inc["zoomsUnread"]  # z14 (z13 is thinned here): the labels there stay in the store


def test_coalescing_zooms_are_encoded_whole(kartpack, forest_export, tmp_path):
    """With coalescing, a thinned zoom is encoded whole (what a feature merged into counts once per zoom); the
    other zooms still copy, and the bytes are the full build's."""
    night = Night(kartpack, forest_export, tmp_path / "night", forest_spec(coalesce=True))
    night.run()
    stands = night.layer("avdelningar")
    stands.set_field(3, "AREAL", "99.5")
    stands.save(night.folder / "avdelningar.shp")
    inc = night.next_night()
    assert inc["full"] is False and inc["tilesCopied"] > 0


def test_a_heavily_edited_night_encodes_thinned_zooms_whole(forest_night):
    """Every stand edited: the zooms last night thinned are encoded whole (Pipelines/README.md, *Zooms encoded
    whole*: held batches and deferred last rounds, as a build without an index), the package is the full build's,
    tonight's tile index is the full build's too, and the night after it copies again."""
    stands = forest_night.layer("avdelningar")
    for i in range(len(stands.records)):
        stands.set_field(i, "ALDER", str(11 + i % 7))
        if i % 3 == 0:
            stands.move(i, 6.0, -4.0)
    stands.save(forest_night.folder / "avdelningar.shp")
    index = forest_night.folder / "out" / "plan.pmtiles.tileindex"
    incremental = forest_night.run("--force")
    built, indexed = sha(forest_night.package), index.read_bytes()
    full = forest_night.run("--full")
    assert sha(forest_night.package) == built, "the incremental build differs from the full build"
    assert index.read_bytes() == indexed, "the incremental build's tile index differs from the full build's"
    inc = incremental["incremental"]
    assert inc["full"] is False and inc["tilesCopied"] > 0
    whole = inc["zoomsEncodedWhole"]
    assert whole and all(6 <= z < 14 for z in whole)
    # A full build encodes whole every zoom below the max zoom (that keeps something).
    full_whole = full["incremental"]["zoomsEncodedWhole"]
    assert 13 in full_whole and set(whole) <= set(full_whole)

    stands = forest_night.layer("avdelningar")
    stands.set_field(3, "AREAL", "99.5")
    stands.save(forest_night.folder / "avdelningar.shp")
    light = forest_night.next_night()
    assert light["full"] is False and 0 < light["tilesReencoded"] <= 20 < light["tilesCopied"]


def test_when_the_build_falls_back_to_full(forest_night):
    index = forest_night.folder / "out" / "plan.pmtiles.tileindex"
    index.unlink()
    assert forest_night.run("--force")["incremental"]["reason"] == "no tile index next to the package"
    data = bytearray(index.read_bytes())
    data[200] ^= 0xFF
    index.write_bytes(bytes(data))
    reason = forest_night.run("--force")["incremental"]["reason"]
    assert reason == "the tile index is damaged: its checksum does not match"
    data = bytearray(index.read_bytes())
    data[20] = 9
    index.write_bytes(bytes(data))
    assert forest_night.run("--force")["incremental"]["reason"] == \
        "the tile index has format 9, this Kartpack reads 4"
    other = forest_night.run("--set", "tiles.maxTileFeatures=50")["incremental"]
    assert other["full"] is True and "options" in other["reason"]
    # A package replaced by another (a restore from backup): its index no longer describes it.
    with forest_night.package.open("ab") as f:
        f.write(b"\0")
    assert forest_night.run("--force", "--set", "tiles.maxTileFeatures=50")["incremental"]["reason"] == \
        "the package is not the one its tile index describes"
    # And after each fall-back the index is the new package's: the next night is incremental again.
    again = forest_night.run("--force", "--set", "tiles.maxTileFeatures=50")["incremental"]
    assert again["full"] is False and again["tilesReencoded"] == 0


def test_twenty_thousand_stands(kartpack, stands_export, tmp_path):
    spec = {
        "version": 1,
        "sources": [{"path": "stands.shp", "layer": "stands", "idField": "AVDNR"}],
        "tiles": {"minZoom": 6, "maxZoom": 14, "maxTileFeatures": 300},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }
    night = Night(kartpack, stands_export, tmp_path / "night", spec)
    first = night.run()
    features = first["conversion"]["featuresWritten"]
    assert features > 19000
    # The index's size per feature (docs/run.md): a few bytes, since a tile holds many stands.
    assert 0 < first["incremental"]["indexBytesPerFeature"] < 20

    stands = night.layer("stands")
    stands.set_field(1234, "ATGARD", "Gallring")
    stands.save(night.folder / "stands.shp")
    one = night.next_night()
    assert one["full"] is False and 0 < one["tilesReencoded"] <= 20
    # Every stand but the edited one is unchanged: above the thinned zooms their pieces stay in the store and the
    # tiles the edit does not touch are copied unread.
    assert one["featuresUnchanged"] == features - 1 and one["featuresUnread"] == features - 1
    assert one["zoomsUnread"] and one["zoomsUnread"][-1] == 14 and one["tilesCopiedUnread"] > 0

    stands = night.layer("stands")
    for i in range(0, len(stands.records), 100):
        stands.set_field(i, "ALDER", "55")
    stands.delete(77)
    stands.append_copy(78, dx=0.0, dy=-40000.0, fields={"AVDNR": "9999999"})
    stands.save(night.folder / "stands.shp")
    some = night.next_night()
    assert some["full"] is False and some["tilesCopied"] > 0 and some["tilesReencoded"] > 0

    # A fifth of the stands moved under a small memory budget: the pieces read back from the store after the
    # feature phase spill to sort runs as the feature phase's do, and the bytes stay the full build's.
    stands = night.layer("stands")
    for i in range(0, len(stands.records), 5):
        stands.move(i, 6.0, 0.0)
    stands.save(night.folder / "stands.shp")
    moved = night.next_night("--memory-budget", "4M")
    assert moved["full"] is False and moved["tilesCopiedUnread"] > 0

    shuffle_shapefile(night.folder / "stands.shp", night.folder / "shuffled" / "stands.shp", seed=3)
    for ext in (".shp", ".shx", ".dbf"):
        shutil.copyfile((night.folder / "shuffled" / "stands").with_suffix(ext), (night.folder / "stands").with_suffix(ext))
    shuffled = night.next_night()
    assert shuffled["tilesReencoded"] == 0 and shuffled["tilesRemoved"] == 0
    assert shuffled["featuresUnchanged"] == features and shuffled["tilesCopiedUnread"] > 0

    # Five hundred stands added in one place: a zoom above last night's thinned zooms is over the limit tonight,
    # so the pieces left in the store are needed after all; the night is built again in full.
    stands = night.layer("stands")
    for k in range(500):
        stands.append_copy(78 + k % 5, dx=2.0 * (k // 5), dy=3.0 * (k % 5), fields={"AVDNR": str(8000000 + k)})
    stands.save(night.folder / "stands.shp")
    piled = night.next_night()
    assert piled["full"] is True and piled["reason"].startswith("zoom ")
    assert piled["reason"].endswith(" is thinned tonight and was not last night")


def test_the_benchmark_script_compares_with_a_full_build(kartpack, tmp_path):
    """scripts/bench/incremental-run.py (docs/benchmarks.md, *Incremental run*) on a few hundred stands: one row
    per case, each saying the incremental package is the full build's."""
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "incremental-run.py"), "--count", "400",
                        "--edits", "1,10", "--work", str(tmp_path), "--kartpack", kartpack, "--threads", "1"],
                       capture_output=True, text=True, check=True, timeout=600)
    rows = [line for line in p.stdout.splitlines() if line.startswith(("| 1 |", "| 10 |"))]
    assert len(rows) == 2 and all(row.endswith("| yes |") for row in rows), p.stdout
