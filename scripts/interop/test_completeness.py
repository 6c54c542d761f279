"""Issue 12 with independent tools: stable feature ids across a re-export in another record order (GDAL's ogr2ogr
writes the shuffled copy), the missing-layer metadata and per-layer zoom ranges read with the `pmtiles` package.
"""
import hashlib
import json
import pathlib
import subprocess

import pytest

from conftest import SAMPLE_DIR, decode_tile, read_pmtiles, require_tool, run_convert

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

def export(source: pathlib.Path, folder: pathlib.Path, sql: str) -> pathlib.Path:
    """`source` re-exported by GDAL through an OGR SQL statement (e.g. an `ORDER BY`)."""
    ogr2ogr = require_tool("ogr2ogr")
    folder.mkdir(exist_ok=True)
    out = folder / source.name
    subprocess.run([ogr2ogr, "-q", "-lco", "ENCODING=UTF-8", "-nln", source.stem, "-sql", sql, str(out), str(source)],
                   check=True, capture_output=True, text=True, timeout=120)
    return out


def shuffled_copy(tmp_path: pathlib.Path, layer: str, order_by: str, source: pathlib.Path | None = None):
    """The layer re-exported in another record order."""
    return export(source or SAMPLE_DIR / f"{layer}.shp", tmp_path / "shuffled",
                  f"SELECT * FROM {layer} ORDER BY {order_by}")


def features_at(path: pathlib.Path, layer: str, z: int) -> dict:
    """id -> properties of every feature of `layer` in the tiles at zoom `z` (features cut into several tiles
    must agree)."""
    out = {}
    for zxy, blob in read_pmtiles(path).tiles.items():
        if zxy[0] != z:
            continue
        decoded = decode_tile(blob, "%d/%d/%d" % zxy)
        for f in decoded[layer].features if layer in decoded else []:
            assert f.id is not None, f"{zxy}: a feature without id"
            assert out.setdefault(f.id, f.properties) == f.properties, f"id {f.id} names two features"
    return out


def record_order(shp: pathlib.Path, field: str) -> list:
    ogrinfo = require_tool("ogrinfo")
    text = subprocess.run([ogrinfo, "-q", "-al", str(shp)], check=True, capture_output=True, text=True).stdout
    return [line.split("=", 1)[1].strip() for line in text.splitlines() if line.strip().startswith(f"{field} (")]


def string_id(text: str) -> int:
    """The documented hash of a character id (docs/convert.md, "Feature ids")."""
    return (int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 12) | 1 << 52


def test_integer_ids_survive_a_shuffled_reexport(kartpack, tmp_path):
    # AVDNR repeats across properties, so the export gets a unique integer key first (GDAL's FID as UID).
    original = export(SAMPLE_DIR / "avdelningar.shp", tmp_path / "original",
                      "SELECT CAST(FID AS integer) AS UID, * FROM avdelningar")
    shuffled = shuffled_copy(tmp_path, "avdelningar", "AREAL DESC", source=original)
    assert record_order(shuffled, "UID") != record_order(original, "UID"), "not shuffled"
    runs, plain = {}, {}
    for name, shp in (("original", original), ("shuffled", shuffled)):
        out = tmp_path / f"{name}.pmtiles"
        run_convert(kartpack, [shp], out, "--min-zoom", "14", "--max-zoom", "14", "--id-field", "UID", "--quiet")
        runs[name] = features_at(out, "avdelningar", 14)
        # Without --id-field the ids are record numbers, which do change with the order.
        out = tmp_path / f"plain-{name}.pmtiles"
        run_convert(kartpack, [shp], out, "--min-zoom", "14", "--max-zoom", "14", "--quiet")
        plain[name] = features_at(out, "avdelningar", 14)
    assert len(runs["original"]) == 129
    assert runs["original"] == runs["shuffled"]
    assert all(fid == p["UID"] for fid, p in runs["original"].items())
    assert plain["original"] != plain["shuffled"]


def test_string_ids_survive_a_shuffled_reexport_and_follow_the_documented_hash(kartpack, tmp_path):
    shuffled = shuffled_copy(tmp_path, "fornminnen", "NAMN DESC")
    runs = {}
    for name, shp in (("original", SAMPLE_DIR / "fornminnen.shp"), ("shuffled", shuffled)):
        out = tmp_path / f"{name}.pmtiles"
        run_convert(kartpack, [shp], out, "--min-zoom", "14", "--max-zoom", "14", "--id-field", "RAA_NR", "--quiet")
        runs[name] = features_at(out, "fornminnen", 14)
    assert runs["original"] == runs["shuffled"]
    assert {fid: string_id(p["RAA_NR"]) for fid, p in runs["original"].items()} == {
        fid: fid for fid in runs["original"]}


def test_pipeline_id_field_is_stable_and_recorded_in_the_metadata(kartpack, tmp_path):
    shuffled = shuffled_copy(tmp_path, "fornminnen", "NAMN DESC")
    results = {}
    for name, shp in (("original", SAMPLE_DIR / "fornminnen.shp"), ("shuffled", shuffled)):
        plan = tmp_path / f"{name}.json"
        out = tmp_path / f"{name}.pmtiles"
        plan.write_text(json.dumps({
            "version": 1, "tiles": {"minZoom": 14, "maxZoom": 14}, "output": {"path": str(out)},
            "sources": [{"path": str(shp), "layer": "fornminnen", "idField": "RAA_NR", "idPolicy": "reject"}]}))
        proc = subprocess.run([kartpack, "run", str(plan), "--quiet"], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        results[name] = features_at(out, "fornminnen", 14)
        ids = json.loads(read_pmtiles(out).metadata["kartpack_ids"])
        assert ids == {"fornminnen": {"field": "RAA_NR", "policy": "reject", "scheme": "sha256-52"}}
    assert results["original"] == results["shuffled"]


def test_missing_layers_are_listed_for_an_independent_reader(kartpack, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for layer in ("avdelningar", "vagar"):
        for ext in ("shp", "shx", "dbf", "prj", "cpg"):
            (data / f"{layer}.{ext}").write_bytes((SAMPLE_DIR / f"{layer}.{ext}").read_bytes())
    (data / "vagar.prj").unlink()
    out = tmp_path / "partial.pmtiles"
    refused = run_convert(kartpack, [data / "avdelningar.shp", data / "vagar.shp"], out, "--max-zoom", "10",
                          expect=65)
    assert not out.exists()
    assert refused.report["published"] is False
    run_convert(kartpack, [data / "avdelningar.shp", data / "vagar.shp"], out, "--max-zoom", "10",
                "--allow-partial", expect=65)
    metadata = read_pmtiles(out).metadata
    missing = json.loads(metadata["kartpack_missing_layers"])
    assert [(m["layer"], m["code"]) for m in missing] == [("vagar", "missing_prj")]
    assert missing[0]["file"] == str(data / "vagar.shp")
    assert [l["id"] for l in metadata["vector_layers"]] == ["avdelningar"]


def test_vector_layers_give_each_layer_its_own_zoom_range(kartpack, tmp_path):
    out = tmp_path / "zooms.pmtiles"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({
        "version": 1, "tiles": {"minZoom": 8, "maxZoom": 13}, "output": {"path": str(out)},
        "sources": [{"path": str(SAMPLE_DIR / "kommuner.shp"), "maxZoom": 10},
                    {"path": str(SAMPLE_DIR / "avdelningar.shp"), "minZoom": 11}]}))
    proc = subprocess.run([kartpack, "run", str(plan), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    layers = {l["id"]: (l["minzoom"], l["maxzoom"]) for l in read_pmtiles(out).metadata["vector_layers"]}
    assert layers == {"kommuner": (8, 10), "avdelningar": (11, 13)}
