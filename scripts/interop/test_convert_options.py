"""`kartpack convert` options checked on the decoded output: --id-field and --max-tile-features."""
import collections
import hashlib
import json
import subprocess

import pytest

from conftest import SAMPLE_DIR, decode_tile, read_pmtiles, read_source, run_convert, sample_shapefiles


def test_id_field_sets_feature_ids(kartpack, tmp_path, source_dir):
    # AVDNR repeats across properties: the default policy rejects the file, `skip` keeps each number's first stand.
    shp = SAMPLE_DIR / "avdelningar.shp"
    out = tmp_path / "avd.pmtiles"
    refused = run_convert(kartpack, [shp], out, "--min-zoom", "12", "--max-zoom", "14", "--id-field", "AVDNR",
                          expect=65)
    assert not out.exists()
    assert refused.report["inputs"][0]["errorCode"] == "duplicate_id"
    result = run_convert(kartpack, [shp], out, "--min-zoom", "12", "--max-zoom", "14", "--id-field", "AVDNR",
                         "--id-policy", "skip", "--quiet")
    source = read_source(shp, source_dir)
    numbers = [s.properties["AVDNR"] for s in source]
    duplicates = len(numbers) - len(set(numbers))
    assert duplicates > 0
    assert result.report["inputs"][0]["rejected"]["duplicate_id"] == duplicates
    archive = read_pmtiles(out)
    seen = set()
    for zxy, blob in archive.tiles.items():
        for f in decode_tile(blob, "%d/%d/%d" % zxy)["avdelningar"].features:
            assert f.id == f.properties["AVDNR"], (zxy, f.id, f.properties["AVDNR"])
            if zxy[0] == 14:
                seen.add(f.id)
    assert seen == set(numbers)


def convert(kartpack, *args):
    return subprocess.run([kartpack, "convert", *map(str, args)], capture_output=True, text=True, timeout=300)


def test_id_field_that_cannot_give_ids_is_a_usage_error(kartpack, tmp_path):
    out = tmp_path / "f.pmtiles"
    proc = convert(kartpack, SAMPLE_DIR / "avdelningar.shp", "-o", out, "--max-zoom", "14", "--id-field", "AREAL")
    assert proc.returncode == 64, proc.stderr
    assert "AREAL" in proc.stderr and "an id field must be an integer or a character field" in proc.stderr
    assert not out.exists()
    proc = convert(kartpack, SAMPLE_DIR / "fornminnen.shp", "-o", out, "--id-field", "NOPE")
    assert proc.returncode == 64 and "no such field" in proc.stderr
    proc = convert(kartpack, SAMPLE_DIR / "fornminnen.shp", "-o", out, "--id-policy", "skip")
    assert proc.returncode == 64 and "--id-policy needs --id-field" in proc.stderr


def test_record_policy_falls_back_to_record_numbers_for_missing_text_ids(kartpack, tmp_path, source_dir):
    shp = SAMPLE_DIR / "fornminnen.shp"
    out = tmp_path / "f.pmtiles"
    result = run_convert(kartpack, [shp], out, "--min-zoom", "14", "--max-zoom", "14", "--id-field", "NAMN",
                         "--id-policy", "record", "--quiet")
    source = read_source(shp, source_dir)
    expected = {}
    for record, s in enumerate(source, start=1):
        name = s.properties["NAMN"]
        value = (int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") >> 12) | 1 << 52 if name else None
        expected[record] = value
    seen = {}
    archive = read_pmtiles(out)
    for zxy, blob in archive.tiles.items():
        for f in decode_tile(blob, "%d/%d/%d" % zxy)["fornminnen"].features:
            seen[f.id] = f.properties.get("NAMN")
    assert len(seen) == result.report["featuresWritten"] == len(source)
    unnamed = [r for r, v in expected.items() if v is None]
    assert unnamed and all(r in seen and not seen[r] for r in unnamed)
    hashed = {v for v in expected.values() if v is not None}
    assert hashed <= set(seen), "every named monument carries the documented hash of its name"
    assert result.report["warnings"]["missing_id"] == len(unnamed)
    assert json.loads(archive.metadata["kartpack_ids"]) == {
        "fornminnen": {"field": "NAMN", "policy": "record", "scheme": "sha256-52"}}


MIN_ZOOM, MAX_ZOOM, MAX_FEATURES = 8, 14, 20


@pytest.fixture(scope="module")
def feature_limited(kartpack, tmp_path_factory):
    out = tmp_path_factory.mktemp("features") / "forest.pmtiles"
    run = run_convert(kartpack, sample_shapefiles(), out, "--min-zoom", str(MIN_ZOOM), "--max-zoom", str(MAX_ZOOM),
                      "--max-tile-features", str(MAX_FEATURES), "--quiet")
    archive = read_pmtiles(out)
    return run, {zxy: decode_tile(blob, "%d/%d/%d" % zxy) for zxy, blob in archive.tiles.items()}


def test_max_tile_features(feature_limited, sample_decoded):
    run, decoded = feature_limited
    per_zoom = collections.defaultdict(int)
    for (z, _, _), layers in decoded.items():
        n = sum(len(l.features) for l in layers.values())
        per_zoom[z] = max(per_zoom[z], n)
        if z < MAX_ZOOM:
            assert n <= MAX_FEATURES, (z, n)
    assert per_zoom[MAX_ZOOM] > MAX_FEATURES, "max zoom keeps everything, even over the limit"
    zooms = {z["zoom"]: z for z in run.report["zooms"]}
    for z in range(MIN_ZOOM, MAX_ZOOM):
        assert sum(zooms[z]["dropped"].values()) > 0, zooms[z]
    assert zooms[MAX_ZOOM]["tilesOverLimit"] > 0
    assert run.report["warnings"].get("tile_over_limit") == 1
    # Every feature still at max zoom, identical to the unlimited conversion there.
    for zxy, layers in decoded.items():
        if zxy[0] == MAX_ZOOM:
            assert layers == sample_decoded[zxy], zxy


def test_max_tile_features_reports_its_reason(feature_limited):
    run, _ = feature_limited
    for z in run.report["zooms"]:
        if z["zoom"] < 11:   # these zooms only inherit the cut-off lowered at zooms 11-13
            continue
        assert set(z["dropped"]) <= {"dropped_by_feature_limit"}, z


def test_inherited_drops_keep_the_reason(feature_limited):
    run, _ = feature_limited
    for z in run.report["zooms"]:
        assert set(z["dropped"]) <= {"dropped_by_feature_limit"}, z
