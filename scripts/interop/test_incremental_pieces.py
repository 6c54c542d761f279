"""The piece store (issue 37, Pipelines/README.md *Incremental builds: the piece store*): each feature's
feature-phase output is kept next to the package, and the next night a feature whose geometry, style decisions and
settings are unchanged is read back instead of reprojected, repaired and tiled. Every night is byte-identical to
`run --full` (`Night.next_night`); the report says how many features were reused and tiled, and why the store was
not used or not written."""
import struct

from test_incremental_run import LAYERS, Night, forest_export, forest_spec  # noqa: F401 (a fixture)

MAGIC = b"KARTPACK-PIECE-STORE\n"


def store_entries(path) -> list:
    """The key table of a piece store: (offset, length) per feature."""
    data = path.read_bytes()
    assert data.startswith(MAGIC)
    table, count, digests = struct.unpack_from("<QQQ", data, len(data) - 56)
    assert table + 28 * count + 24 * digests + 56 == len(data)  # per digest: 16 bytes, its u32 index by digest, its record's u32
    return [struct.unpack_from("<QI", data, table + 28 * i + 16) for i in range(count)]


def records_read(report: dict) -> int:
    return sum(i["records"] for i in report["conversion"]["inputs"])


def baseline(kartpack, export, tmp_path) -> tuple:
    """A first night, then an unchanged one rebuilt (`--force`): every feature that was tiled and written is reused."""
    night = Night(kartpack, export, tmp_path / "night", forest_spec())
    first = night.run()["incremental"]
    assert first["featuresReused"] == 0
    assert first["pieceStoreUnused"] == "there is no piece store next to the package"
    assert first["pieceStoreBytes"] > 0 and first.get("pieceStoreNotWritten") is None
    assert first["pieceStoreBytesPerFeature"] > 0
    store = night.folder / "out" / "plan.pmtiles.piecestore"
    assert store.stat().st_size == first["pieceStoreBytes"]
    same = night.next_night()
    assert same.get("pieceStoreUnused") is None and same["pieceRecordsDamaged"] == 0
    assert same["featuresReused"] > 200
    # What is tiled on an unchanged night: the features the chain rejects (not stored), nothing else.
    return night, same["featuresTiled"], same["featuresReused"]


def test_unchanged_and_edited_features(kartpack, forest_export, tmp_path):
    night, rejected, reused = baseline(kartpack, forest_export, tmp_path)
    report = night.run("--full")
    assert report["incremental"]["pieceStoreUnused"] == "--full was given"
    assert report["incremental"]["featuresReused"] == 0
    assert report["incremental"]["featuresTiled"] == records_read(report)

    # An attribute edit that does not re-classify the stand: its pieces are reused too.
    stands = night.layer("avdelningar")
    stands.set_field(3, "AREAL", "99.5")
    stands.save(night.folder / "avdelningar.shp")
    inc = night.next_night()
    assert inc["featuresTiled"] == rejected and inc["featuresReused"] == reused

    # Moved stands are tiled again, the others read back.
    stands = night.layer("avdelningar")
    moved = list(range(1, len(stands.records), 50))
    for i in moved:
        stands.move(i, 12.0, -8.0)
    stands.save(night.folder / "avdelningar.shp")
    inc = night.next_night()
    assert inc["featuresTiled"] == rejected + len(moved)
    assert inc["featuresReused"] == reused - len(moved)

    # A deleted stand is not looked up; an added one is tiled.
    stands = night.layer("avdelningar")
    stands.delete(5)
    stands.append_copy(6, dx=400.0, dy=250.0, fields={"OBJID": "900001"})
    stands.save(night.folder / "avdelningar.shp")
    inc = night.next_night()
    assert inc["featuresTiled"] == rejected + 1 and inc["featuresReused"] == reused - 1


def test_a_changed_rule_and_crs_tile_only_what_they_change(kartpack, forest_export, tmp_path):
    night, rejected, reused = baseline(kartpack, forest_export, tmp_path)
    sheet = night.folder / "forest.kss"
    sheet.write_text(sheet.read_text().replace("class: clearcut;", "class: felled-stand;"))
    inc = night.next_night()
    # Only the re-classified stands (their class is in the key) are tiled.
    assert rejected < inc["featuresTiled"] < rejected + reused // 2
    assert inc["featuresReused"] + inc["featuresTiled"] == reused + rejected

    from pyproj import CRS
    prj = night.folder / "hansyn.prj"
    prj.write_text(CRS.from_wkt(prj.read_text()).to_wkt("WKT1_ESRI").replace("500000.0", "500050.0"))
    hansyn = len(night.layer("hansyn").records)
    inc = night.next_night()
    assert inc["featuresTiled"] >= rejected + hansyn and inc["featuresReused"] >= reused - hansyn - 10


def test_a_shuffled_export_reuses_every_feature(kartpack, forest_export, tmp_path):
    night, rejected, reused = baseline(kartpack, forest_export, tmp_path)
    night.shuffle_layers(LAYERS)
    inc = night.next_night("--force")
    assert inc["featuresTiled"] == rejected and inc["featuresReused"] == reused


def test_a_damaged_store_never_changes_the_bytes(kartpack, forest_export, tmp_path):
    night, rejected, reused = baseline(kartpack, forest_export, tmp_path)
    store = night.folder / "out" / "plan.pmtiles.piecestore"
    # Damaged records (a bit flipped inside each of three): their features are tiled, the bytes stay the full build's.
    data = bytearray(store.read_bytes())
    entries = store_entries(store)
    for offset, length in entries[:3]:
        data[offset + length - 1] ^= 0x40
    store.write_bytes(bytes(data))
    inc = night.next_night()
    assert inc.get("pieceStoreUnused") is None and inc["pieceRecordsDamaged"] == 3
    assert inc["featuresTiled"] == rejected + 3 and inc["featuresReused"] == reused - 3

    # A damaged key table, another format, a store cut short: every feature tiled, said in the report.
    data = bytearray(store.read_bytes())
    data[-60] ^= 0xFF
    store.write_bytes(bytes(data))
    inc = night.next_night()
    assert inc["pieceStoreUnused"] == "the piece store is damaged: its checksum does not match"
    assert inc["featuresReused"] == 0
    data = bytearray(store.read_bytes())
    data[len(MAGIC)] = 9
    store.write_bytes(bytes(data))
    inc = night.next_night()
    assert inc["pieceStoreUnused"] == "the piece store has format 9, this Kartpack reads 4"
    store.write_bytes(store.read_bytes()[:1000])
    assert night.next_night()["pieceStoreUnused"].startswith("the piece store is damaged: ")
    store.unlink()
    assert night.next_night()["pieceStoreUnused"] == "there is no piece store next to the package"
    # Other tiling settings: the store is not read, and tonight's replaces it.
    inc = night.next_night("--set", "tiles.simplify=2")
    assert inc["pieceStoreUnused"] == "the piece store was made with other tiling settings or another Kartpack"
    assert night.next_night("--set", "tiles.simplify=2")["featuresReused"] == reused


def test_a_store_over_its_limit_is_not_written(kartpack, forest_export, tmp_path):
    night, _, _ = baseline(kartpack, forest_export, tmp_path)
    store = night.folder / "out" / "plan.pmtiles.piecestore"
    # Four times a 64 KiB memory budget is less than the sample's store.
    inc = night.next_night("--memory-budget", "64K")
    assert inc["pieceStoreBytes"] == 0 and "larger than its limit of 262144 bytes" in inc["pieceStoreNotWritten"]
    assert not store.exists()
    assert night.next_night()["pieceStoreUnused"] == "there is no piece store next to the package"


def test_a_killed_runs_temporary_store_is_removed(kartpack, forest_export, tmp_path):
    """The store is written into a temporary file during the build; one a killed run left is removed by the next."""
    night, _, _ = baseline(kartpack, forest_export, tmp_path)
    left = night.folder / "out" / "plan.pmtiles.piecestore.tmp-99999-0123abcd"
    left.write_bytes(b"half a store")
    assert night.run("--force")["incremental"]["featuresReused"] > 0
    assert not left.exists()
    assert sorted(p.name for p in (night.folder / "out").iterdir() if ".tmp-" in p.name) == []
