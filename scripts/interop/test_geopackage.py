"""GeoPackage input (issue 39), checked against GDAL on real files: GeoPackages are written with `ogr2ogr -f GPKG`
from the Shapefiles the tests already use (SampleData/forest, Debian's geopandas Natural Earth and NYC boroughs) in a
temporary folder, then

- `kartpack inspect --features` of each table gives the same features (records, attributes, vertices) as the
  Shapefile it was written from, and the same feature count and attributes as GDAL's own reading
  (`ogr2ogr -f GeoJSON`);
- the sample pipeline run from one GeoPackage (every input one table) gives the same tiles as from the Shapefiles,
  byte for byte (the done-when of issue 39);
- hostile GeoPackages (SQL in a table name, broken and huge WKB, a wrong SRS id, a pending -wal file) end in clear
  errors or counted skips naming the file, the table and the fid.
"""
import json
import pathlib
import shutil
import sqlite3
import struct
import subprocess
import zipfile

import pytest

from conftest import GEOPANDAS_DATA, ROOT, kartpack_bin, read_pmtiles, require_tool, sample_shapefiles

SAMPLE_PIPELINE = ROOT / "Pipelines" / "forest-plan.json"


def ogr2ogr(*args):
    subprocess.run([require_tool("ogr2ogr"), *map(str, args)], check=True, capture_output=True, text=True)


def to_gpkg(gpkg: pathlib.Path, shp: pathlib.Path, table: str):
    """Appends `shp` to `gpkg` as table `table` (creating the file for the first one)."""
    mode = ["-update"] if gpkg.exists() else []
    ogr2ogr("-f", "GPKG", *mode, "-nln", table, gpkg, shp)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> pathlib.Path:
    return tmp_path_factory.mktemp("gpkg")


def connect(gpkg: pathlib.Path) -> sqlite3.Connection:
    """The file in Python's sqlite3, with stand-ins for the SpatiaLite functions GDAL's R-tree triggers call (the
    tests change attribute or geometry values; the R-tree is not read)."""
    db = sqlite3.connect(gpkg)
    db.create_function("ST_IsEmpty", 1, lambda g: 0)
    for name in ("ST_MinX", "ST_MaxX", "ST_MinY", "ST_MaxY"):
        db.create_function(name, 1, lambda g: 0.0)
    return db


def logical_as_boolean(gpkg: pathlib.Path, table: str, column: str):
    """Makes a column ogr2ogr wrote from a dBASE logical (`L`) field a GeoPackage BOOLEAN again. GDAL's Shapefile
    driver reads `L` fields as one-character strings ('T', 'F', '?' for null), so `ogr2ogr -f GPKG` writes TEXT(1) — other
    data than the Shapefile's booleans, which Kartpack's Shapefile reader reads as booleans. With the column as
    the Shapefile holds it, the GeoPackage holds the same data and must give the same tiles."""
    with sqlite3.connect(gpkg) as db:
        (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        declared = f'"{column}" TEXT(1)'
        assert declared in sql, sql
        db.execute("PRAGMA writable_schema = ON")
        db.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = ?",
                   (sql.replace(declared, f'"{column}" BOOLEAN'), table))
        db.execute("PRAGMA writable_schema = OFF")
    with connect(gpkg) as db:
        db.execute(f"UPDATE \"{table}\" SET \"{column}\" = CASE \"{column}\" WHEN 'T' THEN 1 WHEN 'F' THEN 0 END")


@pytest.fixture(scope="module")
def forest_gpkg(work) -> pathlib.Path:
    """All six sample inputs in one GeoPackage, one table per Shapefile, in the pipeline's order (avdelningar's
    logical CERTIFIER made BOOLEAN again: `logical_as_boolean`)."""
    out = work / "forest.gpkg"
    for shp in sample_shapefiles():
        to_gpkg(out, shp, shp.stem)
    logical_as_boolean(out, "avdelningar", "CERTIFIER")
    return out


def test_ogr2ogr_writes_dbase_logicals_as_text(work):
    """Why `logical_as_boolean` is needed: straight from ogr2ogr, CERTIFIER is text 'T'/'F' where the Shapefile
    reader reads booleans (and GDAL's own Shapefile reading gives the same strings)."""
    out = work / "plain-avdelningar.gpkg"
    to_gpkg(out, sample_shapefiles()[0], "avdelningar")
    layer = inspect(out, "--features")["layers"][0]
    assert {f["name"]: f["type"] for f in layer["fields"]}["CERTIFIER"] == "string"
    assert {f["properties"]["CERTIFIER"] for f in layer["featureDump"]} == {"T", "F", "?"}


@pytest.fixture(scope="module")
def debian_sets(work) -> dict:
    """Debian's geopandas Shapefiles (Natural Earth countries and cities, NYC boroughs) and a GeoPackage of each."""
    sets = {name: GEOPANDAS_DATA / name / f"{name}.shp" for name in ("naturalearth_lowres", "naturalearth_cities")}
    with zipfile.ZipFile(GEOPANDAS_DATA / "nybb_16a.zip") as f:
        f.extractall(work / "nybb")
    sets["nybb"] = work / "nybb" / "nybb.shp"
    out = {}
    for name, shp in sets.items():
        gpkg = work / f"{name}.gpkg"
        to_gpkg(gpkg, shp, name)
        out[name] = (shp, gpkg)
    return out


def inspect(path, *args, expect=0):
    proc = subprocess.run([kartpack_bin(), "inspect", str(path), "--format", "json", *args], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == expect, proc.stderr
    return json.loads(proc.stdout)


def gdal_features(gpkg, table) -> dict:
    """GDAL's reading of a table: fid -> (properties, geometry)."""
    out = gpkg.parent / f"{gpkg.stem}-{table}.geojson"
    ogr2ogr("-f", "GeoJSON", "-preserve_fid", out, gpkg, table)
    doc = json.loads(out.read_text())
    return {f["id"]: (f["properties"], f["geometry"]) for f in doc["features"]}


def vertex_count(g) -> int:
    def count(c):
        return 1 if isinstance(c[0], (int, float)) else sum(count(x) for x in c)
    return count(g["coordinates"]) if g else 0


def same_value(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and abs(float(a) - float(b)) <= 1e-9 * max(1, abs(float(a)))
    return a == b


def compare_with_shapefile_and_gdal(shp, gpkg, table):
    ours_shp = inspect(shp, "--features")["layers"][0]
    layers = {l["name"]: l for l in inspect(gpkg, "--features")["layers"]}
    ours = layers[table]
    assert ours["errors"] == [] and ours_shp["errors"] == []
    # The same features as from the Shapefile: ogr2ogr numbers fids from 1 in record order.
    assert ours["records"] == ours_shp["records"] - ours_shp["nullShapes"] + ours["nullShapes"]
    by_record = {f["record"]: f for f in ours["featureDump"]}
    assert len(by_record) == len(ours_shp["featureDump"]), (table, ours["skipped"], ours_shp["skipped"])
    for f in ours_shp["featureDump"]:
        g = by_record[f["record"]]
        assert g["geometry"] == f["geometry"], (table, f["record"])
        for k, v in f["properties"].items():
            assert same_value(g["properties"].get(k), v), (table, f["record"], k, g["properties"].get(k), v)
    # GDAL's own reading of the GeoPackage: the same fids, attributes and vertex counts (no repairs on this data).
    gdal = gdal_features(gpkg, table)
    assert sorted(gdal) == sorted(by_record), table
    for fid, (props, geom) in gdal.items():
        f = by_record[fid]
        for k, v in props.items():
            assert same_value(f["properties"].get(k), v), (table, fid, k, f["properties"].get(k), v)
        repaired = set(f["codes"]) & {"removed_duplicates", "closed_ring", "dropped_ring", "dropped_sliver"}
        if not repaired:
            assert vertex_count(f["geometry"]) == vertex_count(geom), (table, fid)
    return ours


def test_sample_tables_read_as_their_shapefiles_and_as_gdal_reads_them(forest_gpkg):
    doc = inspect(forest_gpkg)
    assert [l["name"] for l in doc["layers"]] == [p.stem for p in sample_shapefiles()]
    for shp in sample_shapefiles():
        layer = compare_with_shapefile_and_gdal(shp, forest_gpkg, shp.stem)
        assert layer["crs"]["epsg"] == 3006 and layer["recordsSource"] == "gpkg"
        assert layer["path"] == str(forest_gpkg)


@pytest.mark.parametrize("name", ["naturalearth_lowres", "naturalearth_cities", "nybb"])
def test_debian_shapefiles_as_geopackages(debian_sets, name):
    shp, gpkg = debian_sets[name]
    layer = compare_with_shapefile_and_gdal(shp, gpkg, name)
    assert layer["crs"]["epsg"] == {"nybb": 2263}.get(name, 4326)


def pipeline_from(spec: dict, work: pathlib.Path, name: str, gpkg=None) -> pathlib.Path:
    spec = json.loads(json.dumps(spec))
    for s in spec["sources"]:
        shp = (SAMPLE_PIPELINE.parent / s["path"]).resolve()
        s["path"] = str(gpkg) if gpkg else str(shp)
    spec["style"] = str((SAMPLE_PIPELINE.parent / spec["style"]).resolve())
    spec["output"]["path"] = str(work / f"{name}.pmtiles")
    path = work / f"{name}.json"
    path.write_text(json.dumps(spec))
    return path


def run_pipeline(path: pathlib.Path) -> dict:
    report = path.with_suffix(".report.json")
    proc = subprocess.run([kartpack_bin(), "run", str(path), "--report", str(report)], capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return json.loads(report.read_text())


def test_sample_pipeline_from_one_geopackage_gives_the_same_tiles(forest_gpkg, work):
    spec = json.loads(SAMPLE_PIPELINE.read_text())
    from_shp = pipeline_from(spec, work, "from-shp")
    from_gpkg = pipeline_from(spec, work, "from-gpkg", gpkg=forest_gpkg)
    r_shp = run_pipeline(from_shp)
    r_gpkg = run_pipeline(from_gpkg)
    a = read_pmtiles(work / "from-shp.pmtiles")
    b = read_pmtiles(work / "from-gpkg.pmtiles")
    assert len(a.tiles) > 100 and sorted(a.tiles) == sorted(b.tiles)
    differing = [zxy for zxy in a.tiles if a.tiles[zxy] != b.tiles[zxy]]
    assert differing == [], f"{len(differing)} of {len(a.tiles)} tiles differ, first {differing[:5]}"
    # The same records were read, written and rejected per layer.
    def counts(r):
        return [(i["layer"], i["records"], i["written"], i["rejected"]) for i in r["conversion"]["inputs"]]
    assert counts(r_shp) == counts(r_gpkg)


def test_import_finds_a_geopackage_in_a_zip(forest_gpkg, work):
    z = work / "export.zip"
    with zipfile.ZipFile(z, "w") as f:
        f.write(forest_gpkg, "export/forest.gpkg")
    out = work / "imported.pmtiles"
    proc = subprocess.run([kartpack_bin(), "import", str(z), "-o", str(out), "--max-zoom", "10"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    layers = {l["id"] for l in read_pmtiles(out).metadata["vector_layers"]}
    assert {p.stem for p in sample_shapefiles()} <= layers


# ---- hostile GeoPackages ----------------------------------------------------------------------------------------


def copy_gpkg(src: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    shutil.copy(src, dst)
    return dst


def convert(gpkg, out, *args, expect):
    report = out.with_suffix(".report.json")
    proc = subprocess.run([kartpack_bin(), "convert", str(gpkg), "-o", str(out), "--max-zoom", "8", "--report",
                           str(report), *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == expect, proc.stderr
    return proc, (json.loads(report.read_text()) if report.exists() else None)


def test_sql_in_a_table_name_stays_a_name(debian_sets, work):
    hostile = 'x"; DROP TABLE gpkg_contents; --'
    gpkg = work / "sql-name.gpkg"
    to_gpkg(gpkg, debian_sets["naturalearth_cities"][0], hostile)
    proc, report = convert(gpkg, work / "sql-name.pmtiles", expect=0)
    assert report["inputs"][0]["layer"] == hostile and report["inputs"][0]["records"] == 243
    with sqlite3.connect(gpkg) as db:
        assert db.execute("SELECT count(*) FROM gpkg_contents").fetchone()[0] == 1


def rewrite_blob(gpkg, table, fid, blob):
    with connect(gpkg) as db:
        db.execute(f'UPDATE "{table}" SET geom = ? WHERE fid = ?', (blob, fid))


def test_broken_huge_and_wrong_srs_geometries_are_counted_with_fid(debian_sets, work):
    gpkg = copy_gpkg(debian_sets["naturalearth_cities"][1], work / "broken.gpkg")
    head = b"GP\x00\x01" + struct.pack("<i", 4326)
    rewrite_blob(gpkg, "naturalearth_cities", 1, head + b"\x01\x02\x00\x00\x00\xff\xff\xff\x7f")  # 2^31 points
    rewrite_blob(gpkg, "naturalearth_cities", 2, head + b"\x01\x01\x00\x00")  # truncated point
    rewrite_blob(gpkg, "naturalearth_cities", 3, b"GP\x00\x01" + struct.pack("<i", 3006) +
                 b"\x01\x01\x00\x00\x00" + struct.pack("<dd", 18.0, 59.0))
    rewrite_blob(gpkg, "naturalearth_cities", 4, b"not a geometry")
    # Skipped records are counted and warned, the others written (exit 0), as for a Shapefile's broken records.
    proc, report = convert(gpkg, work / "broken.pmtiles", expect=0)
    i = report["inputs"][0]
    assert i["rejected"] == {"bad_wkb": 2, "srs_mismatch": 1, "bad_geometry_blob": 1}
    assert i["records"] == i["written"] + 4
    assert 'broken.gpkg table "naturalearth_cities": record 1: WKB byte 9: 2147483647 points cannot fit in the 0 bytes left' in proc.stderr
    assert "record 3: the geometry says srs_id 3006, its column 4326" in proc.stderr


def test_pending_wal_refuses_the_file_and_names_it(debian_sets, work):
    gpkg = copy_gpkg(debian_sets["naturalearth_cities"][1], work / "wal.gpkg")
    (work / "wal.gpkg-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(28))
    proc, report = convert(gpkg, work / "wal.pmtiles", expect=65)
    assert "wal.gpkg-wal holds 32 bytes of changes not yet written into the file" in proc.stderr
    assert "[gpkg_pending_changes]" in proc.stderr
    proc = subprocess.run([kartpack_bin(), "inspect", str(gpkg)], capture_output=True, text=True)
    assert proc.returncode == 65 and "gpkg_pending_changes" in proc.stderr


def test_unknown_table_and_unknown_srs_are_clear(debian_sets, work):
    gpkg = copy_gpkg(debian_sets["naturalearth_cities"][1], work / "srs.gpkg")
    proc, _ = convert(gpkg, work / "t.pmtiles", "--layer", "lakes", expect=65)
    assert 'srs.gpkg: no feature table "lakes"; the file has "naturalearth_cities" [no_such_table]' in proc.stderr
    with sqlite3.connect(gpkg) as db:
        db.execute("UPDATE gpkg_geometry_columns SET srs_id = 9999")
    proc, report = convert(gpkg, work / "srs.pmtiles", expect=65)
    assert "srs_id 9999 is not in gpkg_spatial_ref_sys [gpkg_unknown_srs]" in proc.stderr
    assert report["inputs"][0]["rejected"] == {"file_rejected": 243}


def test_srs_rows_without_wkt_use_their_epsg_code_or_need_source_crs(debian_sets, work):
    gpkg = copy_gpkg(debian_sets["naturalearth_cities"][1], work / "undefined.gpkg")
    with sqlite3.connect(gpkg) as db:
        db.execute("UPDATE gpkg_spatial_ref_sys SET definition = 'undefined' WHERE srs_id = 4326")
    layer = inspect(gpkg)["layers"][0]
    assert layer["crs"]["epsg"] == 4326 and layer["crs"]["origin"] == "gpkg_spatial_ref_sys"
    with sqlite3.connect(gpkg) as db:
        db.execute("UPDATE gpkg_spatial_ref_sys SET organization = 'NONE' WHERE srs_id = 4326")
    proc, report = convert(gpkg, work / "undefined.pmtiles", expect=65)
    assert "defines no coordinate reference system; pass --source-crs" in proc.stderr
    assert "[gpkg_undefined_srs]" in proc.stderr and report["inputs"][0]["rejected"] == {"file_rejected": 243}
    convert(gpkg, work / "undefined-4326.pmtiles", "--source-crs", "EPSG:4326", expect=0)
    # A definition that is not WKT is untrusted text like a bad .prj: refused by the CRS resolver's child.
    with sqlite3.connect(gpkg) as db:
        db.execute("UPDATE gpkg_spatial_ref_sys SET definition = '+proj=longlat +nadgrids=/dev/zero' "
                   "WHERE srs_id = 4326")
    proc, _ = convert(gpkg, work / "not-wkt.pmtiles", expect=65)
    assert "gpkg_spatial_ref_sys srs_id 4326" in proc.stderr and "[unparseable_prj]" in proc.stderr


def test_max_zoom_auto_chooses_as_for_the_shapefiles(forest_gpkg, work):
    chosen = []
    for name, inputs in (("auto-shp", sample_shapefiles()), ("auto-gpkg", [forest_gpkg])):
        report = work / f"{name}.json"
        proc = subprocess.run([kartpack_bin(), "convert", *map(str, inputs), "-o", str(work / f"{name}.pmtiles"),
                               "--max-zoom", "auto", "--min-zoom", "8", "--report", str(report), "--quiet"],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        chosen.append(json.loads(report.read_text())["maxZoomChosen"])
    assert chosen[0] == chosen[1] and chosen[0]["samples"] > 1000
