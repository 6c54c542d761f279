"""The same features in another record order give the same package bytes (issue 37): a GIS re-exports the same data
every night in another order, and tablets must not download it all again.

Each export is written twice, in two fixed pseudo-random record orders (`shapefile_shuffle`): the sample forest
plan (with the object id a GIS export carries, OBJID), Debian's Natural Earth countries and cities (`name` as id)
and a generated set of ~20k stands (AVDNR). `convert`, `run` and `package` must give byte-identical packages for
both orders, with 1 and 2 threads and a tiny memory budget (so the sort runs and the record spill are used). Two
exports ordered to put another kind of record first check the order of the layers a stylesheet splits one input
into (`layer:`) and which of the records sharing an id `--id-policy skip` keeps."""
import hashlib
import json
import pathlib
import shutil
import struct
import subprocess
import sys

import pytest

from conftest import GEOPANDAS_DATA, ROOT, decode_tile, read_pmtiles
from shapefile_shuffle import shuffle_shapefile

FOREST = ROOT / "SampleData" / "forest"
STYLE = ROOT / "SampleData" / "forest.kss"
LAYERS = ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"]
# Threads and memory budget: one and two workers, and a budget so small that every stage spills.
VARIANTS = [["--threads", "1"], ["--threads", "2"], ["--threads", "2", "--memory-budget", "64K"]]


def sha(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def orders(src: pathlib.Path, out: pathlib.Path) -> list:
    """`src` written in two other record orders, as out/a/NAME.shp and out/b/NAME.shp."""
    paths = []
    for name, seed in (("a", 1), ("b", 2)):
        dst = out / name / src.name
        permutation = shuffle_shapefile(src, dst, seed)
        paths.append(dst)
    assert permutation != sorted(permutation)
    return paths


@pytest.fixture(scope="module")
def forest(tmp_path_factory) -> dict:
    """The sample forest plan with an OBJID per record (as a GIS export has), each layer in two record orders."""
    root = tmp_path_factory.mktemp("forest-orders")
    (root / "src").mkdir()
    for layer in LAYERS:
        with_id = root / "src" / f"{layer}.shp"
        subprocess.run(["ogr2ogr", "-q", "-dialect", "sqlite", "-nln", layer, str(with_id), str(FOREST / f"{layer}.shp"),
                        "-sql", f"SELECT *, rowid + 1 AS OBJID FROM {layer}"], check=True, timeout=120)
        orders(with_id, root)
    return {"a": root / "a", "b": root / "b"}


def pipeline(folder: pathlib.Path) -> pathlib.Path:
    spec = {
        "version": 1,
        "sources": [{"path": f"{layer}.shp", "layer": layer, "idField": "OBJID"} for layer in LAYERS],
        "style": str(STYLE),
        "tiles": {"minZoom": 6, "maxZoom": 14},
        "output": {"format": "pmtiles", "path": "out/plan.pmtiles"},
    }
    (folder / "out").mkdir(exist_ok=True)
    path = folder / "plan.json"
    path.write_text(json.dumps(spec))
    return path


def convert(kartpack, inputs, out: pathlib.Path, *args) -> str:
    """Converts into out/plan.pmtiles (one file name: the package's default name is the file's)."""
    out.mkdir(parents=True, exist_ok=True)
    out = out / "plan.pmtiles"
    cmd = [kartpack, "convert", *map(str, inputs), "-o", str(out), "--force", "--quiet", *args]
    subprocess.run(cmd, check=True, timeout=600)
    return sha(out)


@pytest.mark.smoke
@pytest.mark.parametrize("variant", VARIANTS, ids=["t1", "t2", "t2-64K"])
def test_forest_convert_ignores_record_order(kartpack, forest, tmp_path, variant):
    digests = {}
    for name in ("a", "b"):
        inputs = [forest[name] / f"{layer}.shp" for layer in LAYERS]
        digests[name] = convert(kartpack, inputs, tmp_path / name, "--id-field", "OBJID", "--style",
                                str(STYLE), "--min-zoom", "6", "--max-zoom", "14", "--max-tile-features", "40",
                                "--coalesce", *variant)
    assert digests["a"] == digests["b"]


@pytest.mark.parametrize("variant", VARIANTS, ids=["t1", "t2", "t2-64K"])
def test_forest_run_ignores_record_order(kartpack, forest, variant):
    digests = {}
    for name in ("a", "b"):
        subprocess.run([kartpack, "run", str(pipeline(forest[name])), "--force", "--quiet", *variant], check=True,
                       timeout=600)
        digests[name] = sha(forest[name] / "out" / "plan.pmtiles")
    assert digests["a"] == digests["b"]


def test_forest_package_ignores_record_order(kartpack, forest):
    catalogs = {}
    for name in ("a", "b"):
        out = forest[name] / "regions"
        subprocess.run([kartpack, "package", str(pipeline(forest[name])), "--regions", str(forest[name] / "kommuner.shp"),
                        "--id-field", "KOMMUNKOD", "--max-zoom", "12", "-o", str(out), "--quiet"], check=True,
                       timeout=600)
        catalog = json.loads((out / "catalog.json").read_text())
        for entry in catalog["regions"]:
            assert sha(out / entry["file"]) == entry["sha256"]
        catalogs[name] = catalog
    a, b = catalogs["a"], catalogs["b"]
    assert [e["sha256"] for e in a["regions"]] == [e["sha256"] for e in b["regions"]]
    assert len(a["regions"]) == 4
    # Everything but the build times is the same.
    def timeless(v):
        if isinstance(v, dict):
            return {k: timeless(x) for k, x in v.items() if k not in ("built", "created")}
        return [timeless(x) for x in v] if isinstance(v, list) else v
    assert timeless(a) == timeless(b)


@pytest.mark.parametrize("variant", VARIANTS, ids=["t1", "t2", "t2-64K"])
def test_natural_earth_convert_ignores_record_order(kartpack, tmp_path, variant):
    digests = {}
    sources = [GEOPANDAS_DATA / name / f"{name}.shp" for name in ("naturalearth_lowres", "naturalearth_cities")]
    shuffled = [orders(src, tmp_path / src.stem) for src in sources]
    for k, name in enumerate(("a", "b")):
        digests[name] = convert(kartpack, [s[k] for s in shuffled], tmp_path / name, "--id-field", "name",
                                "--max-zoom", "6", "--max-tile-features", "25", "--max-points", "8", *variant)
    assert digests["a"] == digests["b"]


@pytest.fixture(scope="module")
def stands(tmp_path_factory) -> list:
    """~20k generated stands (scripts/bench/make-stands.py) in two record orders."""
    root = tmp_path_factory.mktemp("stands-orders")
    (root / "src").mkdir()
    subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "make-stands.py"), "--count", "20000", "--out",
                    str(root / "src" / "stands")], check=True, timeout=300, capture_output=True)
    return orders(root / "src" / "stands.shp", root)


@pytest.mark.parametrize("variant", VARIANTS, ids=["t1", "t2", "t2-64K"])
def test_stands_convert_ignores_record_order(kartpack, stands, tmp_path, variant):
    digests = [convert(kartpack, [s], tmp_path / str(k), "--id-field", "AVDNR", "--max-zoom", "14",
                       "--max-tile-features", "300", *variant) for k, s in enumerate(stands)]
    assert digests[0] == digests[1]


def test_a_reexport_in_another_order_is_up_to_date(kartpack, forest, tmp_path):
    """The nightly fingerprint hashes the records in any order: a shuffled re-export rebuilds nothing, an edited
    record rebuilds."""
    night = tmp_path / "night"
    shutil.copytree(forest["a"], night)
    plan = pipeline(night)

    def run() -> dict:
        report = tmp_path / "report.json"
        subprocess.run([kartpack, "run", str(plan), "--quiet", "--report", str(report)], check=True, timeout=600)
        return json.loads(report.read_text())

    run()
    built = sha(night / "out" / "plan.pmtiles")
    for layer in LAYERS:
        for ext in (".shp", ".shx", ".dbf"):
            shutil.copyfile(forest["b"] / f"{layer}{ext}", night / f"{layer}{ext}")
    assert run()["upToDate"] is True
    assert sha(night / "out" / "plan.pmtiles") == built
    # One letter of one name changed: a real change.
    dbf = bytearray((night / "kommuner.dbf").read_bytes())
    first_row = struct.unpack("<H", dbf[8:10])[0]
    dbf[first_row + 1] = ord("X") if dbf[first_row + 1] != ord("X") else ord("Y")
    (night / "kommuner.dbf").write_bytes(bytes(dbf))
    assert run()["upToDate"] is False


def test_without_an_id_field_only_the_ids_follow_the_record_order(kartpack, forest, tmp_path):
    """Without an id field the ids are record numbers; the content key still orders and thins the features, so
    every tile holds the same features, in the same order, with the same geometry and attributes."""
    tiles = {}
    for name in ("a", "b"):
        inputs = [forest[name] / f"{layer}.shp" for layer in LAYERS]
        convert(kartpack, inputs, tmp_path / name, "--style", str(STYLE), "--min-zoom", "6", "--max-zoom", "14",
                "--max-tile-features", "40", "--coalesce")
        archive = read_pmtiles(tmp_path / name / "plan.pmtiles")
        tiles[name] = {
            zxy: {layer: [(f.type, f.properties, f.points, f.parts) for f in mvt.features]
                  for layer, mvt in decode_tile(blob, str(zxy)).items()}
            for zxy, blob in archive.tiles.items()}
    assert tiles["a"].keys() == tiles["b"].keys() and len(tiles["a"]) > 100
    assert tiles["a"] == tiles["b"]


def reordered(src: pathlib.Path, dst: pathlib.Path, order: str, extra: str = "") -> pathlib.Path:
    """`src` rewritten with its records in the order of the SQL `ORDER BY order` (and the columns `extra` added)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["ogr2ogr", "-q", "-dialect", "sqlite", "-nln", src.stem, str(dst), str(src), "-sql",
                    f"SELECT *{extra} FROM {src.stem} ORDER BY {order}"], check=True, timeout=120)
    return dst


def test_layers_a_stylesheet_splits_an_input_into_keep_their_order(kartpack, forest, tmp_path):
    """`layer:` rules route one input to several layers: their order in tiles and metadata is fixed before any
    record is read (the input's own layer, then the `layer:` values in sheet order, each with its label layer),
    not by which record comes first. Two exports, one starting with a clearcut, one with a conifer stand."""
    sheet = tmp_path / "split.kss"
    sheet.write_text('avdelningar { class: stand; keep: AVDNR, BESTTYP; }\n'
                     'avdelningar[BESTTYP = "Barrskog"] { layer: barr; }\n'
                     'avdelningar[BESTTYP = "Hygge"] { layer: hygge; }\n'
                     'avdelningar[zoom >= 13] { label: AVDNR; }\n')
    src = forest["a"] / "avdelningar.shp"
    digests, layers = {}, {}
    for name, first in (("hygge-first", "Hygge"), ("barr-first", "Barrskog")):
        shp = reordered(src, tmp_path / name / "src" / "avdelningar.shp", f"BESTTYP = '{first}' DESC, OBJID")
        digests[name] = convert(kartpack, [shp], tmp_path / name, "--id-field", "OBJID", "--style", str(sheet),
                                "--min-zoom", "10", "--max-zoom", "14")
        meta = read_pmtiles(tmp_path / name / "plan.pmtiles").metadata
        layers[name] = [l["id"] for l in meta["vector_layers"]]
    assert layers["hygge-first"] == ["avdelningar", "avdelningar_labels", "barr", "barr_labels", "hygge",
                                     "hygge_labels"]
    assert layers["barr-first"] == layers["hygge-first"]
    assert digests["hygge-first"] == digests["barr-first"]


def test_id_policy_skip_keeps_the_same_duplicate_in_any_record_order(kartpack, forest, tmp_path):
    """Under `--id-policy skip` the record that keeps a shared id is the one with the smallest content key, not the
    first in the file: two exports with every pair of records sharing an id, in opposite orders, give the same
    bytes."""
    src = forest["a"] / "avdelningar.shp"
    digests, reports = {}, {}
    for name, order in (("up", "OBJID"), ("down", "OBJID DESC")):
        shp = reordered(src, tmp_path / name / "src" / "avdelningar.shp", order, ", (OBJID + 1) / 2 AS PAIR")
        out = tmp_path / name
        digests[name] = convert(kartpack, [shp], out, "--id-field", "PAIR", "--id-policy", "skip", "--max-zoom",
                                "13", "--report", str(out / "report.json"))
        reports[name] = json.loads((out / "report.json").read_text())
    skipped = [r["inputs"][0]["rejected"].get("duplicate_id") for r in reports.values()]
    assert skipped[0] == skipped[1] and skipped[0] >= 60, skipped
    assert digests["up"] == digests["down"]
