"""`kartpack verify` counts every tile of a PMTiles run-length entry and checks the zoom of its last tile against the
catalog (issue 32): a package whose run reaches one zoom past the catalog's `maxZoom` is a mismatch even when its
size and SHA-256 are made to match the catalog (as a planted package that hashes right would)."""
import hashlib
import json
import subprocess

from pmtiles.reader import MmapSource, Reader, all_tiles
from pmtiles.tile import deserialize_directory, zxy_to_tileid
from pmtiles.writer import Writer

from conftest import ROOT

FOREST = ROOT / "SampleData" / "forest"
PIPELINE = ROOT / "Pipelines" / "forest-plan.json"


def test_a_run_past_the_catalogs_zooms_is_a_mismatch(kartpack, tmp_path):
    out = tmp_path / "out"
    subprocess.run([kartpack, "package", str(PIPELINE), "--regions", str(FOREST / "kommuner.shp"), "--id-field",
                    "KOMMUNKOD", "--max-zoom", "9", "-o", str(out), "--quiet"], check=True, timeout=600)
    assert subprocess.run([kartpack, "verify", str(out)], capture_output=True, timeout=300).returncode == 0
    catalog_path = (out / "catalog.json").resolve()
    catalog = json.loads(catalog_path.read_text())
    entry = catalog["regions"][0]
    assert entry["maxZoom"] == 9
    package = (out / entry["file"]).resolve()
    with open(package, "rb") as f:
        source = MmapSource(f)
        header = Reader(source).header()
        metadata = Reader(source).metadata()
        tiles = sorted((zxy_to_tileid(z, x, y), data) for (z, x, y), data in all_tiles(source))

    # The last tile id of zoom 9 and the first of zoom 10 hold the same bytes: one run of two tiles, starting at z9.
    blob = tiles[-1][1]
    last_z9 = zxy_to_tileid(10, 0, 0) - 1
    assert tiles[-1][0] < last_z9
    rewritten = tmp_path / "planted.pmtiles"
    with open(rewritten, "wb") as f:
        writer = Writer(f)
        for tile_id, data in tiles + [(last_z9, blob), (last_z9 + 1, blob)]:
            writer.write_tile(tile_id, data)
        writer.finalize(header, metadata)
    with open(rewritten, "rb") as f:
        source = MmapSource(f)
        h = Reader(source).header()
        runs = [e for e in deserialize_directory(source(h["root_offset"], h["root_length"])) if e.tile_id == last_z9]
    assert runs and runs[0].run_length == 2, "the writer did not make a run across the zooms"

    data = rewritten.read_bytes()
    package.unlink()
    package.write_bytes(data)
    entry["bytes"] = len(data)
    entry["sha256"] = hashlib.sha256(data).hexdigest()
    catalog_path.write_text(json.dumps(catalog))
    v = subprocess.run([kartpack, "verify", str(out)], capture_output=True, text=True, timeout=300)
    assert v.returncode == 65, v.stderr
    assert f"has tiles at zooms {entry['minZoom']}-10, the catalog says {entry['minZoom']}-9" in v.stderr, v.stderr
