"""Kartpack reads what GDAL reads (issue 16): a differential test against GDAL 3.6 over every Shapefile set the
tests use — SampleData/forest, every committed case of the hostile corpus, and Debian's geopandas Natural Earth and
NYC boroughs files. test_gdal_differential_corpus.py runs the same comparison over the 336 sets of other readers'
test suites in ../shared/corpus (issue 36), in its own file so that pytest-xdist (`--dist loadfile`) runs the two on
different workers. Every record must be accounted for (features + skipped records = records).

For each set, `kartpack inspect --format json --features` (every feature after the reader's documented repairs,
every skipped record with its reason) is compared with `ogr2ogr -f GeoJSON -preserve_fid` (same CRS: neither
reprojects) on

- files: both read it, or the one that does not says why;
- records: the same records become features (GDAL's FID + 1 = our record number);
- fields: the same names;
- attributes: strings equal after decoding, numbers equal within the field's precision, the same nulls;
- geometry: the same parts and vertices once our documented repairs (duplicate points removed, rings closed,
  degenerate rings and parts dropped), applied only where our reader reports them for that record, are applied to
  GDAL's geometry; ring order, start and orientation do not matter, the grouping of holes into polygons does.

Every difference is classified as (kind, code) — e.g. ("record_skipped", "null_geometry"), ("attribute",
"bad_date"), ("file_rejected", "bad_dbf_header") — where the code is the reason our reader reports for that
record, field or file. The test fails on any difference that the machine-readable list in docs/diagnostics.md
(section "Differences from GDAL") does not document, and on any documented difference that no data set shows any
more (the list must not go stale).
"""
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import zipfile

import pytest

from conftest import GEOPANDAS_DATA, ROOT, kartpack_bin, require_tool

DOCS = ROOT / "docs" / "diagnostics.md"
HOSTILE = ROOT / "SampleData" / "hostile"

# Repairs whose effect on the vertices this test re-applies to GDAL's geometry.
VERTEX_REPAIRS = {"removed_duplicates", "closed_ring", "dropped_ring", "dropped_sliver", "dropped_part",
                  "multipatch_as_polygons"}


# ---- the documented list -------------------------------------------------------------------------------------


def documented_differences() -> dict:
    """The JSON list in docs/diagnostics.md between the `gdal-differences` markers: (kind, code) -> entry."""
    text = DOCS.read_text()
    m = re.search(r"<!-- gdal-differences:begin -->\s*```json\n(.*?)```\s*<!-- gdal-differences:end -->", text, re.S)
    assert m, "docs/diagnostics.md has no machine-readable gdal-differences list"
    entries = json.loads(m.group(1))
    out = {}
    for e in entries:
        assert set(e) >= {"kind", "code", "gdal", "kartpack", "why"}, e
        assert (e["kind"], e["code"]) not in out, f"duplicate entry {e['kind']}/{e['code']}"
        out[(e["kind"], e["code"])] = e
    return out


# ---- the data sets -------------------------------------------------------------------------------------------


def data_sets() -> list:
    sets = [("forest/" + p.stem, p) for p in sorted((ROOT / "SampleData" / "forest").glob("*.shp"))]
    manifest = json.loads((HOSTILE / "manifest.json").read_text())
    for c in manifest["cases"]:
        if "generated" not in c:
            sets.append(("hostile/" + c["name"], HOSTILE / c["input"]))
    for name in ("naturalearth_lowres", "naturalearth_cities"):
        sets.append(("geopandas/" + name, GEOPANDAS_DATA / name / f"{name}.shp"))
    sets.append(("geopandas/nybb", None))  # extracted from the zip at run time
    return sets


DATA_SETS = data_sets()


@pytest.fixture(scope="module")
def nybb_path(tmp_path_factory) -> pathlib.Path:
    z = GEOPANDAS_DATA / "nybb_16a.zip"
    if not z.exists():
        pytest.fail(f"{z} missing: install python3-geopandas (scripts/bootstrap.sh does)")
    d = tmp_path_factory.mktemp("nybb-diff")
    with zipfile.ZipFile(z) as f:
        f.extractall(d)
    return d / "nybb.shp"


# ---- reading both ways ---------------------------------------------------------------------------------------


def read_kartpack(path: pathlib.Path) -> dict:
    layers = inspect_json(path)
    assert len(layers) == 1
    return layers[0]


def inspect_json(path: pathlib.Path) -> list:
    """`kartpack inspect PATH --format json --features`: the layers of a .shp or of every .shp in a folder."""
    proc = subprocess.run([kartpack_bin(), "inspect", str(path), "--format", "json", "--features"],
                          capture_output=True, timeout=600)
    assert proc.returncode in (0, 65), proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)["layers"]


_FOLDERS = {}


def read_kartpack_in_folder(path: pathlib.Path) -> dict:
    """The layer of `path` from one `inspect` of its whole folder, which is kept for the folder's other sets: one
    process per folder instead of one per set (the corpus has 336 sets in 71 folders). Reading a folder gives each
    set the layer reading it alone gives (checked on both corpora; only the message of an unreadable .prj may name
    another set's .prj of the same text, which this test does not look at)."""
    folder = path.parent
    if folder not in _FOLDERS:
        _FOLDERS[folder] = {l["path"]: l for l in inspect_json(folder)}
    return _FOLDERS[folder][str(path)]


def sibling_files(path: pathlib.Path) -> list:
    """The files of a set: same base name, any extension."""
    return [p for p in path.parent.iterdir() if p.is_file() and p.name.lower().startswith(path.stem.lower() + ".")
            and p.stem.lower() == path.stem.lower()]


def has_shx(path: pathlib.Path) -> bool:
    return any(p.suffix.lower() == ".shx" for p in sibling_files(path))


def shp_type(path: pathlib.Path) -> int:
    head = path.read_bytes()[:36]
    return int.from_bytes(head[32:36], "little") if len(head) == 36 else -1


def read_gdal(path: pathlib.Path, restore_shx_in: pathlib.Path = None) -> dict:
    """GDAL's features by FID and field names, or {"failed": stderr} when GDAL cannot open the file. With
    `restore_shx_in` (a temporary folder), a set without .shx is copied there and read with SHAPE_RESTORE_SHX=YES."""
    require_tool("ogr2ogr")
    env = None
    if restore_shx_in is not None and not has_shx(path):
        restore_shx_in.mkdir(parents=True, exist_ok=True)
        for f in sibling_files(path):
            shutil.copyfile(f, restore_shx_in / f.name)
        path = restore_shx_in / path.name
        env = dict(os.environ, SHAPE_RESTORE_SHX="YES")
    # GDAL reads MultiPatch as TINs or polyhedral surfaces, which GeoJSON cannot hold: ask for its polygons.
    multipatch = ["-nlt", "MULTIPOLYGON"] if shp_type(path) == 31 else []
    proc = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", str(path), "-preserve_fid"] + multipatch,
                          capture_output=True, timeout=300, env=env)
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0 or not proc.stdout.strip():
        return {"failed": err.strip()}
    # GDAL passes bytes it cannot recode through as they are: keep them (as surrogates) rather than fail.
    doc = json.loads(proc.stdout.decode("utf-8", errors="surrogateescape"))
    # The fields GDAL writes (it leaves out a field unset in every feature): ogrinfo, which costs a run per set, is
    # asked only when these do not match ours (`gdal_fields`).
    fields = []
    for f in doc["features"]:
        fields += [k for k in f["properties"] if k not in fields]
    return {"features": {f["id"]: f for f in doc["features"]}, "fields": fields, "stderr": err,
            "source": (str(path), env)}


def gdal_fields(source) -> list:
    """The field names ogrinfo lists for the layer."""
    path, env = source
    info = subprocess.run(["ogrinfo", "-ro", "-so", "-al", path], capture_output=True, timeout=300, env=env)
    fields = []
    for line in info.stdout.decode(errors="replace").splitlines():
        fm = re.match(r"^([^\s:][^:]*): (\w+)(?:\(\w+\))? \((\d+)\.(\d+)\)$", line)
        if fm:
            fields.append(fm.group(1))
    return fields


# ---- geometry normalization ----------------------------------------------------------------------------------


def _pt(p):
    # 11 significant digits, and no more than 12 decimals: GDAL's GeoJSON writer rounds to 15 decimals, which
    # leaves small numbers (6.5940099887e-06, 0.0741670000000949) with fewer significant digits.
    return (float("%.11g" % round(p[0], 12)), float("%.11g" % round(p[1], 12)))


def canonical_ring(ring):
    pts = [_pt(p) for p in ring]
    if len(pts) > 1 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if not pts:
        return ()
    def rotated(seq):
        k = seq.index(min(seq))
        return tuple(seq[k:] + seq[:k])
    return min(rotated(pts), rotated(list(reversed(pts))))


def repair_ring(ring, codes):
    """Our documented ring repairs, applied to GDAL's ring only where our reader reported them for the record."""
    pts = [tuple(p[:2]) for p in ring]
    # GDAL repeats the closing point of a MultiPatch ring that is already closed.
    if "removed_duplicates" in codes or "multipatch_as_polygons" in codes:
        pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
    if "closed_ring" in codes and len(pts) >= 3 and pts[0] != pts[-1]:
        pts.append(pts[0])
    if "dropped_ring" in codes and len(set(pts)) < 3:
        return None
    if "dropped_sliver" in codes and collinear(pts):
        return None
    return pts


def collinear(pts) -> bool:
    """All points on one line, with the reader's relative tolerance (PolygonAssembler.isCollinear)."""
    x0, y0 = pts[0]
    direction = None
    for x, y in pts:
        dx, dy = x - x0, y - y0
        length = math.hypot(dx, dy)
        if length == 0:
            continue
        if direction is None:
            direction = (dx, dy, length)
        elif abs(direction[0] * dy - direction[1] * dx) > 1e-9 * direction[2] * length:
            return False
    return True


def repair_line(line, codes):
    pts = [tuple(p[:2]) for p in line]
    if "removed_duplicates" in codes:
        pts = [p for i, p in enumerate(pts) if i == 0 or p != pts[i - 1]]
    if "dropped_part" in codes and len(set(pts)) < 2:
        return None
    return pts


def normalized(geometry, codes=frozenset()):
    """A comparable form: ("point", sorted points) / ("line", sorted lines) / ("polygon", sorted polygons of
    (shell, sorted holes)); `codes` selects the repairs applied first (for GDAL's side)."""
    if geometry is None:
        return None
    t, c = geometry["type"], geometry["coordinates"]
    if t in ("Point", "MultiPoint"):
        pts = [c] if t == "Point" else c
        return ("point", tuple(_pt(p) for p in pts))
    if t in ("LineString", "MultiLineString"):
        lines = [c] if t == "LineString" else c
        lines = [repair_line(l, codes) for l in lines]
        return ("line", tuple(sorted(tuple(_pt(p) for p in l) for l in lines if l)))
    if t in ("Polygon", "MultiPolygon"):
        polys = [c] if t == "Polygon" else c
        out = []
        for poly in polys:
            rings = [repair_ring(r, codes) for r in poly]
            if rings and rings[0] is None:
                continue  # the shell was dropped; its holes went with it
            rings = [canonical_ring(r) for r in rings if r]
            if rings:
                out.append((rings[0], tuple(sorted(rings[1:]))))
        return ("polygon", tuple(sorted(out)))
    raise AssertionError(f"unexpected GeoJSON type {t}")


def ring_set(n):
    """All rings of a normalized polygon geometry, ignoring which polygon holds them."""
    return sorted(r for shell, holes in n[1] for r in (shell,) + holes)


# ---- attribute normalization ---------------------------------------------------------------------------------

LOGICAL = {"T": True, "t": True, "Y": True, "y": True, "F": False, "f": False, "N": False, "n": False, "?": None}


def same_value(ours, theirs, field) -> bool:
    if isinstance(theirs, (list, dict)) and isinstance(ours, str):
        # GDAL's GeoJSON writer emits a string that holds a JSON array or object as JSON: the text is the same.
        try:
            return json.loads(ours) == theirs
        except ValueError:
            return False
    if field["type"] == "logical" and isinstance(theirs, str):
        theirs = LOGICAL.get(theirs.strip(), theirs)
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return ours == theirs
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)):
        if math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=0):
            return True
        # Within the field's own precision (half a unit in its last decimal), as written in the .dbf.
        return abs(ours - theirs) <= 0.5 * 10 ** -max(field["decimals"], 0) + 1e-12 * abs(theirs)
    if field["type"] == "date" and isinstance(theirs, str):
        theirs = theirs.replace("/", "-")
    return ours == theirs


# ---- the comparison ------------------------------------------------------------------------------------------


def layer_codes(ours) -> set:
    codes = set(ours["skipped"]) | set(ours["repaired"]) | set(ours["coercedToNull"])
    codes |= {w["code"] for w in ours["warnings"]}
    return codes


def rejection_code(ours):
    for e in ours["errors"]:
        if e["code"] == "file_rejected":
            m = re.search(r"\[(\w+)\]$", e["message"])
            return m.group(1) if m else "file_rejected"
    return None


def rejection_message(ours) -> str:
    return next((e["message"] for e in ours["errors"] if e["code"] == "file_rejected"), "")


def compare(ours: dict, gdal: dict) -> list:
    """Every difference as (kind, code, detail)."""
    diffs = []
    rejected = rejection_code(ours)
    if "failed" in gdal:
        if rejected is None:
            codes = sorted(layer_codes(ours)) or ["none"]
            errors = [l for l in gdal["failed"].splitlines() if l.startswith("ERROR")] or [gdal["failed"][:200]]
            diffs.append(("gdal_refuses", codes, errors[0]))
        return diffs
    if rejected is not None:
        if gdal["features"]:
            diffs.append(("file_rejected", rejected, f"GDAL reads {len(gdal['features'])} features"))
        return diffs

    fields = {f["name"]: f for f in ours["fields"]}
    # Field names: ours in file order against GDAL's.
    missing = [n for n in gdal["fields"] if n not in fields]
    extra = [n for n in fields if n not in gdal["fields"]]
    if missing or extra:
        codes = sorted(layer_codes(ours) & {"dbf_legacy_layout", "duplicate_field_name", "dropped_field",
                                            "unknown_field_type"}) or ["none"]
        diffs.append(("field", codes, f"GDAL only {missing}, Kartpack only {extra}"))

    features = {f["record"]: f for f in ours["featureDump"]}
    skipped = {}
    for s in ours["skippedRecords"]:
        skipped.setdefault(s["record"], s["code"])
    for fid, g in sorted(gdal["features"].items()):
        record = fid + 1
        if record not in features:
            code = skipped.get(record, "missing")
            diffs.append(("record_skipped", code, f"record {record}"))
            continue
        f = features[record]
        codes = set(f["codes"])
        # Attributes, by name (fields only one side has are reported above).
        for name, field in fields.items():
            if name not in gdal["fields"]:
                continue
            theirs = g["properties"].get(name)
            mine = f["properties"].get(name)
            if not same_value(mine, theirs, field):
                # The record's own coercion, else a layout the whole file has, else the field's type.
                explained = sorted(codes & ATTRIBUTE_CODES) or sorted(layer_codes(ours) & LAYOUT_CODES)
                if isinstance(theirs, str) and re.search("[\udc80-\udcff]", theirs):
                    # GDAL passed bytes it did not recode; ours are decoded (declared or detected encoding).
                    explained = explained + ["gdal_raw_bytes"]
                code = explained if explained else ["dbf_type:" + (field.get("dbfType") or "?")]
                diffs.append(("attribute", code, f"record {record} field {name}: ours {mine!r}, GDAL {theirs!r}"))
        # Geometry.
        if g["geometry"] is None:
            explained = sorted(codes) or sorted(layer_codes(ours) & {"record_length_overrun"}) or ["none"]
            diffs.append(("gdal_null_geometry", explained, f"record {record}"))
            continue
        mine_n = normalized(f["geometry"])
        theirs_n = normalized(g["geometry"], frozenset(codes & VERTEX_REPAIRS))
        if mine_n != theirs_n:
            if mine_n[0] == "polygon" and theirs_n[0] == "polygon" and ring_set(mine_n) == ring_set(theirs_n):
                code = sorted(codes & {"ring_assignment", "reoriented_rings", "make_valid"}) or ["ring_grouping"]
                diffs.append(("ring_grouping", code, f"record {record}"))
            else:
                code = sorted(codes - ATTRIBUTE_CODES) or ["unexplained"]
                diffs.append(("geometry", code, f"record {record}: ours {str(mine_n)[:200]} GDAL {str(theirs_n)[:200]}"))
    for record in sorted(set(features) - {fid + 1 for fid in gdal["features"]}):
        codes = sorted(features[record]["codes"]) or sorted(layer_codes(ours) & {"missing_attributes"}) or ["none"]
        diffs.append(("record_extra", codes, f"record {record}"))
    return diffs


# File layouts that change how every value of a field is read.
LAYOUT_CODES = {"long_character_field", "dbf_record_padding", "dbf_no_terminator", "dbf_header_padding"}

ATTRIBUTE_CODES = {
    "unparseable_number", "number_out_of_range", "bad_date", "zero_date", "bad_logical", "overflow_marker",
    "nul_filled_number", "invalid_utf8", "encoding_fallback", "undecodable_bytes", "memo_file_missing",
    "bad_memo_block", "memo_too_large", "bad_binary_value", "attribute_read_error",
}


def classify(diffs: list, documented: dict) -> tuple:
    """(undocumented diffs, set of documented keys used). A diff with several candidate codes is documented when
    any of them is."""
    undocumented, used = [], set()
    for kind, code, detail in diffs:
        codes = code if isinstance(code, list) else [code]
        hits = [(kind, c) for c in codes if (kind, c) in documented]
        if hits:
            used.add(hits[0])
        else:
            undocumented.append((kind, codes, detail))
    return undocumented, used


# ---- tests ---------------------------------------------------------------------------------------------------

_RESULTS = {}


def run_set(name, path, nybb_path, cache_dir):
    """The differences of one set, computed once per run: kept in memory and in a folder the xdist workers share."""
    if name in _RESULTS:
        return _RESULTS[name]
    cached = cache_dir / (re.sub(r"[^\w.+-]", "_", name) + ".json")
    if cached.exists():
        result = json.loads(cached.read_text())
    else:
        p = nybb_path if path is None else path
        ours = read_kartpack_in_folder(p) if name.startswith("corpus/") else read_kartpack(p)
        restore = cache_dir / "restored" / re.sub(r"[^\w.+-]", "_", name) if name.startswith("corpus/") else None
        gdal = read_gdal(p, restore)
        diffs = compare(ours, gdal)
        if any(d[0] == "field" for d in diffs):
            gdal["fields"] = gdal_fields(gdal["source"])
            diffs = compare(ours, gdal)
        result = {"diffs": diffs, "rejected": rejection_code(ours), "why": rejection_message(ours),
                  "accounted": accounted(ours)}
        tmp = cached.with_suffix(".part%d" % os.getpid())
        tmp.write_text(json.dumps(result))
        tmp.replace(cached)
    result["diffs"] = [tuple(d) for d in result["diffs"]]
    _RESULTS[name] = result
    return result


def accounted(ours) -> str:
    """Empty when every record is a feature or a skipped record with a reason, else what is missing."""
    skipped = sum(ours["skipped"].values())
    if ours["features"] + skipped != ours["records"]:
        return f"{ours['records']} records, {ours['features']} features + {skipped} skipped"
    return ""


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> pathlib.Path:
    """One folder per run, shared by the xdist workers (their base temp folders have a common parent)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    d = root / "gdal-differential"
    d.mkdir(exist_ok=True)
    return d


@pytest.mark.parametrize("name,path", DATA_SETS, ids=[n for n, _ in DATA_SETS])
def test_kartpack_reads_what_gdal_reads(name, path, nybb_path, cache_dir):
    result = run_set(name, path, nybb_path, cache_dir)
    undocumented, _ = classify(result["diffs"], documented_differences())
    assert not undocumented, f"{name}: differences from GDAL not listed in docs/diagnostics.md:\n" + "\n".join(
        f"  {k} {c}: {d}" for k, c, d in undocumented[:20])
    assert not result["accounted"], f"{name}: records not accounted for: {result['accounted']}"


def test_every_documented_difference_still_occurs(nybb_path, cache_dir):
    documented = documented_differences()
    used = set()
    for name, path in DATA_SETS:
        used |= classify(run_set(name, path, nybb_path, cache_dir)["diffs"], documented)[1]
    # Entries marked "corpus" are shown by the peer corpora only: test_gdal_differential_corpus.py checks them.
    stale = sorted(k for k in set(documented) - used if not documented[k].get("corpus"))
    assert not stale, f"documented GDAL differences that no data set shows: {stale}"


def test_the_comparison_catches_differences():
    """The comparator itself: a changed vertex, value or record is a difference, a documented repair is not."""
    square = {"type": "Polygon", "coordinates": [[[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]]}
    dup = {"type": "Polygon", "coordinates": [[[0, 0], [0, 0], [0, 1], [1, 1], [1, 0], [0, 0]]]}
    field = {"name": "N", "type": "integer", "dbfType": "N", "width": 5, "decimals": 0}
    ours = {"errors": [], "fields": [field], "skipped": {}, "repaired": {}, "coercedToNull": {}, "warnings": [],
            "featureDump": [{"record": 1, "properties": {"N": 1}, "geometry": square, "codes": []}],
            "skippedRecords": []}
    gdal = {"fields": ["N"], "features": {0: {"id": 0, "properties": {"N": 1}, "geometry": square}}}
    assert compare(ours, gdal) == []
    gdal["features"][0]["geometry"] = dup
    assert [d[0] for d in compare(ours, gdal)] == ["geometry"]
    ours["featureDump"][0]["codes"] = ["removed_duplicates"]
    assert compare(ours, gdal) == []
    gdal["features"][0]["properties"]["N"] = 2
    assert [d[0] for d in compare(ours, gdal)] == ["attribute"]
    gdal["features"][0]["properties"]["N"] = 1
    gdal["features"][1] = {"id": 1, "properties": {"N": 3}, "geometry": None}
    assert [d[:2] for d in compare(ours, gdal)] == [("record_skipped", "missing")]
