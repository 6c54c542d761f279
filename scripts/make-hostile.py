#!/usr/bin/env python3
"""Generates Kartpack's hostile Shapefile corpus: SampleData/hostile/<case>/layer.* plus manifest.json.

Every case is one broken (or merely odd) Shapefile set, built byte by byte with the standard library only, so no
Shapefile library can "fix" it on the way. The manifest lists, per case, the files, the class of input
(hostile-inputs.md section and row), and the EXPECTED outcome of `kartpack convert` on it:

  {"reject": {"exit": 65, "reason": "<stable code>", "match": "<text in the error message>"}}
or
  {"records": R, "written": W, "rejected": {code: n}, "repaired": {code: n}, "coerced": {code: n},
   "warnings": [codes that must be reported]}

Cases with "generated": "test" are not committed (too large, or file-system objects such as FIFOs and symlinks that
git cannot hold); Tests/PipelineTests/HostileCorpusTests.swift builds them at test time from the manifest entry.
Case names are stable: they are regression ids. Output is deterministic (run twice, get the same bytes).

Usage: python3 scripts/make-hostile.py [--out SampleData/hostile]
"""

import argparse
import json
import os
import shutil
import struct

WGS84_PRJ = (
    'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
    'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'
)
SWEREF_PRJ = (
    'PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",SPHEROID["GRS_1980",6378137.0,'
    '298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],'
    'PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],'
    'PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]'
)

# ---------------------------------------------------------------------------------------------------------------
# Geometry helpers (lon/lat degrees around Stockholm; squares of 0.1 degree stay well above a pixel at zoom 6).


def square(x, y, size=0.1, ccw=False):
    """A closed square ring, clockwise (ESRI shell) unless ccw."""
    cw = [(x, y), (x, y + size), (x + size, y + size), (x + size, y), (x, y)]
    return list(reversed(cw)) if ccw else cw


BASE_SQUARES = [square(18.0, 59.0), square(18.2, 59.0), square(18.4, 59.0)]

# ---------------------------------------------------------------------------------------------------------------
# Record contents (after the 8-byte record header).


def _box(points):
    if not points:
        return (0.0, 0.0, 0.0, 0.0)
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def poly_content(parts, shape_type=5, part_starts=None, n_parts=None, n_points=None, z=False):
    """PolyLine/Polygon (and Z) content. Overrides corrupt the counts or the part starts."""
    pts = [p for part in parts for p in part]
    starts = []
    k = 0
    for part in parts:
        starts.append(k)
        k += len(part)
    if part_starts is not None:
        starts = part_starts
    c = struct.pack("<i", shape_type)
    c += struct.pack("<4d", *_box(pts))
    c += struct.pack("<ii", len(starts) if n_parts is None else n_parts, len(pts) if n_points is None else n_points)
    c += b"".join(struct.pack("<i", s) for s in starts)
    c += b"".join(struct.pack("<2d", x, y) for x, y in pts)
    if z:
        c += struct.pack("<2d", 0.0, 0.0) + b"".join(struct.pack("<d", 0.0) for _ in pts)
        c += struct.pack("<2d", 0.0, 0.0) + b"".join(struct.pack("<d", 0.0) for _ in pts)
    return c


def multipatch_content(ring):
    """A MultiPatch (type 31) record of one outer ring (part type 5) with a Z block."""
    c = poly_content([ring], 31, z=True)
    return c[:48] + struct.pack("<i", 5) + c[48:]


def point_content(x, y, shape_type=1):
    return struct.pack("<i2d", shape_type, x, y)


def multipoint_content(pts, shape_type=8):
    c = struct.pack("<i", shape_type) + struct.pack("<4d", *_box(pts)) + struct.pack("<i", len(pts))
    return c + b"".join(struct.pack("<2d", x, y) for x, y in pts)


def null_content():
    return struct.pack("<i", 0)


# ---------------------------------------------------------------------------------------------------------------
# Files.


def shp_header(magic, length_bytes, shape_type, box):
    h = struct.pack(">i", magic) + b"\0" * 20 + struct.pack(">i", length_bytes // 2)
    h += struct.pack("<ii", 1000, shape_type) + struct.pack("<4d", *box) + struct.pack("<4d", 0, 0, 0, 0)
    assert len(h) == 100
    return h


def build_shp_shx(shape_type, contents, *, numbers=None, header_lengths=None, magic=9994, shx_magic=9994,
                  declared_shp_length=None, shx_entries=None, box=None):
    """Returns (shp, shx) bytes. `numbers`/`header_lengths` override record header fields (dict index -> value);
    `shx_entries` overrides index entries (dict index -> (offset_words, length_words))."""
    numbers = numbers or {}
    header_lengths = header_lengths or {}
    shx_entries = shx_entries or {}
    body = b""
    entries = []
    offset = 100
    for i, c in enumerate(contents):
        entries.append(shx_entries.get(i, (offset // 2, len(c) // 2)))
        body += struct.pack(">ii", numbers.get(i, i + 1), header_lengths.get(i, len(c) // 2)) + c
        offset += 8 + len(c)
    if box is None:
        box = (18.0, 59.0, 18.5, 59.1)
    shp = shp_header(magic, declared_shp_length or (100 + len(body)), shape_type, box) + body
    shx = shp_header(shx_magic, 100 + 8 * len(entries), shape_type, box)
    shx += b"".join(struct.pack(">ii", o, l) for o, l in entries)
    return shp, shx


def field(name, ftype, width, decimals=0):
    return (name.encode("latin-1") if isinstance(name, str) else name, ftype, width, decimals)


BASE_FIELDS = [field("NAME", "C", 20), field("VALUE", "N", 10), field("DATE", "D", 8)]


def base_rows(n=3):
    return [[b"r%d" % (i + 1), b"%d" % (i + 1), b"20240101"] for i in range(n)]


def build_dbf(fields, rows, *, count=None, header_length=None, record_length=None, ldid=0, deleted=(), version=3,
              pad_header=True, terminator=True, terminator_byte=0x0D, raw_rows=None, record_padding=0, eof=True,
              trailer=b""):
    """dBASE III bytes. Overrides lie about the header; `pad_header=False` writes records right after the
    terminator even when `header_length` says otherwise (every value shifts). `raw_rows` replaces `rows` with record
    bytes written as they are (after the deletion flag), for binary fields; `record_padding` blanks follow every
    record; `eof=False` leaves out the 0x1A end marker and `trailer` follows it."""
    real_header = 32 + 32 * len(fields) + 1
    hl = real_header if header_length is None else header_length
    rl = (1 + sum(f[2] for f in fields) + record_padding) if record_length is None else record_length
    n = len(raw_rows) if raw_rows is not None else len(rows)
    d = bytes([version, 124, 1, 1]) + struct.pack("<I", n if count is None else count)
    d += struct.pack("<HH", hl, rl) + b"\0" * 17 + bytes([ldid]) + b"\0\0"
    for name, ftype, width, decimals in fields:
        desc = bytearray(32)
        desc[0:len(name[:11])] = name[:11]
        desc[11] = ord(ftype) if isinstance(ftype, str) else ftype
        desc[16] = width & 0xFF
        desc[17] = decimals
        d += bytes(desc)
    if terminator:
        d += bytes([terminator_byte])
    if pad_header:
        while len(d) < hl:
            d += b"\0"
    if raw_rows is not None:
        for r, row in enumerate(raw_rows):
            d += (b"*" if r in deleted else b" ") + row + b" " * record_padding
        return d + (b"\x1a" if eof else b"") + trailer
    for r, row in enumerate(rows):
        d += b"*" if r in deleted else b" "
        for k, (_, ftype, width, _) in enumerate(fields):
            v = row[k][:width] if k < len(row) else b""
            pad = b" " * (width - len(v))
            d += (pad + v) if ftype in ("N", "F") else (v + pad)
        d += b" " * record_padding
    return d + (b"\x1a" if eof else b"") + trailer


# ---------------------------------------------------------------------------------------------------------------
# Cases.

CASES = []


def case(name, cls, guide, description, expected, files=None, generated=None, pipeline_issue=None, **extra):
    entry = {"name": name, "class": cls, "guide": guide, "description": description, "expected": expected}
    if generated:
        entry["generated"] = generated
    if pipeline_issue:
        entry["pipeline_issue"] = pipeline_issue
    entry.update(extra)
    entry["_files"] = files or {}
    CASES.append(entry)


def ok(records=3, written=None, rejected=None, repaired=None, coerced=None, warnings=None):
    rejected = rejected or {}
    if written is None:
        written = records - sum(rejected.values())
    e = {"records": records, "written": written, "rejected": rejected, "repaired": repaired or {}}
    if coerced:
        e["coerced"] = coerced
    if warnings:
        e["warnings"] = warnings
    return e


def reject(reason, match, exit_code=65, records=3):
    """A rejected file; `records` is what it still holds by its .shx (else a .shp scan, else the .dbf header), so
    records read = written + rejected holds for it too (issue 12)."""
    return {"reject": {"exit": exit_code, "reason": reason, "match": match, "records": records}}


def polygon_set(contents=None, *, shape_type=5, fields=None, rows=None, prj=WGS84_PRJ, cpg=None, shp_kw=None,
                dbf_kw=None, shx=True, dbf=True):
    contents = contents if contents is not None else [poly_content([r]) for r in BASE_SQUARES]
    shp, shx_bytes = build_shp_shx(shape_type, contents, **(shp_kw or {}))
    files = {"layer.shp": shp}
    if shx:
        files["layer.shx"] = shx_bytes
    if dbf:
        n = len(contents)
        files["layer.dbf"] = build_dbf(fields or BASE_FIELDS, rows if rows is not None else base_rows(n),
                                       **(dbf_kw or {}))
    if prj is not None:
        files["layer.prj"] = prj.encode("utf-8") if isinstance(prj, str) else prj
    if cpg is not None:
        files["layer.cpg"] = cpg
    return files


def with_records(*replacements):
    """The three base squares with some records replaced: (index, content)."""
    contents = [poly_content([r]) for r in BASE_SQUARES]
    for i, c in replacements:
        contents[i] = c
    return contents


def define_cases():
    S1, S2, S3, S4, S5 = "shp-structure", "geometry", "dbf", "prj", "filesystem"

    case("baseline", "control", "-", "a clean three-polygon layer: the reference every other case is a variation of",
         ok(), polygon_set())

    # --- .shp / .shx structure (hostile-inputs.md section 1) ---------------------------------------------------
    base_shp = polygon_set()["layer.shp"]
    case("shp_empty", S1, "1 #1", ".shp of 0 bytes", reject("not_a_shapefile", "not a Shapefile"),
         {**polygon_set(), "layer.shp": b""})
    case("shp_short_header", S1, "1 #1", ".shp shorter than its 100-byte header",
         reject("not_a_shapefile", "shorter than the 100-byte header"), {**polygon_set(), "layer.shp": base_shp[:60]})
    case("shp_bad_magic", S1, "1 #1", ".shp magic 1234 instead of 9994", reject("not_a_shapefile", "bad magic"),
         polygon_set(shp_kw={"magic": 1234}))
    case("shp_magic_little_endian", S1, "1 #1", "magic 9994 written little-endian",
         reject("not_a_shapefile", "bad magic"),
         {**polygon_set(), "layer.shp": struct.pack("<i", 9994) + base_shp[4:]})
    case("shp_text_file", S1, "1 #1", "a text file named .shp", reject("not_a_shapefile", "bad magic"),
         {**polygon_set(), "layer.shp": b"this is not a shapefile\n" * 10})
    case("shp_header_unknown_type", S1, "1 #7", "file header shape type 77; the records are polygons (GDAL reads them)",
         ok(warnings=["header_shape_type_from_records"]), polygon_set(shape_type=77))
    case("shp_header_unknown_type_only_nulls", S1, "1 #7", "file header shape type 77 and only NULL records",
         reject("unsupported_shape_type", "unsupported shape type 77"), polygon_set([null_content()] * 3, shape_type=77))
    case("shp_header_length_too_long", S1, "1 #2", "header file length says 1000 bytes more than the file has",
         ok(warnings=["length_mismatch"]), polygon_set(shp_kw={"declared_shp_length": len(base_shp) + 1000}))
    case("shp_header_length_too_short", S1, "1 #2", "header file length says 100 bytes",
         ok(warnings=["length_mismatch"]), polygon_set(shp_kw={"declared_shp_length": 100}))
    case("shp_header_length_4gib", S1, "1 #2", "header file length field 0x7FFFFFFF words",
         ok(warnings=["length_mismatch"]), polygon_set(shp_kw={"declared_shp_length": 0xFFFFFFFE}))
    case("record_header_length_lies", S1, "1 #2", "record headers claim other content lengths than the .shx",
         ok(warnings=["length_mismatch"]), polygon_set(shp_kw={"header_lengths": {0: 10, 2: 5000}}))
    case("record_numbers_from_zero", S1, "1 #5", "records numbered 0, 1, 2 (a writer counting from 0)",
         ok(warnings=["record_number_mismatch"]), polygon_set(shp_kw={"numbers": {0: 0, 1: 1, 2: 2}}))
    case("record_numbers_shuffled", S1, "1 #5", "record numbers 3, 1, 2",
         ok(warnings=["record_number_mismatch"]), polygon_set(shp_kw={"numbers": {0: 3, 1: 1, 2: 2}}))
    case("record_numbers_negative", S1, "1 #5", "record number -1",
         ok(warnings=["record_number_mismatch"]), polygon_set(shp_kw={"numbers": {1: -1}}))
    case("shx_missing", S1, "1 #3", "no .shx: the index is rebuilt in memory", ok(repaired={"rebuilt_index": 1}),
         polygon_set(shx=False))
    base_shx = polygon_set()["layer.shx"]
    case("shx_bad_magic", S1, "1 #3", ".shx magic 0", ok(repaired={"rebuilt_index": 1}),
         polygon_set(shp_kw={"shx_magic": 0}))
    case("shx_empty", S1, "1 #3", ".shx of 0 bytes", ok(repaired={"rebuilt_index": 1}),
         {**polygon_set(), "layer.shx": b""})
    case("shx_truncated_mid_entry", S1, "1 #3", ".shx cut inside its second entry", ok(repaired={"rebuilt_index": 1}),
         {**polygon_set(), "layer.shx": base_shx[:100 + 8 + 3]})
    case("shx_header_only", S1, "1 #3", ".shx of 100 bytes whose header claims three entries",
         ok(repaired={"rebuilt_index": 1}), {**polygon_set(), "layer.shx": base_shx[:100]})
    short_shx = bytearray(base_shx[:116])
    short_shx[24:28] = struct.pack(">i", 116 // 2)
    case("shx_fewer_entries", S1, "1 #3", "a consistent .shx that lists only 2 of the 3 records",
         ok(records=2, warnings=["unindexed_bytes"]), {**polygon_set(), "layer.shx": bytes(short_shx)})
    case("shx_offset_zero", S1, "1 #5", "index entry 2 points at byte 0 (shapelib reads the header as a shape)",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {1: (0, 64)}}))
    case("shx_offset_in_header", S1, "1 #5", "index entry 2 points at byte 40, inside the header",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {1: (20, 64)}}))
    case("shx_offset_past_eof", S1, "1 #5", "index entry 3 points far past the end of an intact file",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {2: (500000, 64)}}))
    case("shx_offset_negative", S1, "1 #5", "index entry 1 has offset word 0xFFFFFFF0",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {0: (-16, 64)}}))
    case("shx_length_huge", S1, "1 #5", "index entry 2 has length 0x7FFFFFFF words",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {1: (118, 0x7FFFFFFF)}}))
    case("shx_length_tiny", S1, "1 #5", "index entry 2 has length 1 word, too short for a shape type",
         ok(rejected={"bad_index_entry": 1}), polygon_set(shp_kw={"shx_entries": {1: (118, 1)}}))
    case("shx_offset_misaligned", S1, "1 #5",
         "index entry 1 points 16 bytes into its record: the 'shape type' read there is garbage",
         ok(rejected={"unknown_shape_type": 1}, warnings=["record_number_mismatch"]),
         polygon_set(shp_kw={"shx_entries": {0: (58, 64)}}))
    case("shx_duplicate_entries", S1, "1 #5", "index entries 2 and 3 both point at record 2 (read twice, as GDAL does)",
         ok(warnings=["record_number_mismatch"]), polygon_set(shp_kw={"shx_entries": {2: (118, 64)}}))
    case("shp_truncated_mid_record", S1, "1 #11", ".shp cut 20 bytes before the end of record 3 (.shx intact)",
         ok(rejected={"truncated": 1}, warnings=["truncated_at"]),
         {**polygon_set(), "layer.shp": base_shp[:-20]})
    case("shp_truncated_two_records", S1, "1 #11", ".shp cut inside record 2; record 3 is gone",
         ok(rejected={"truncated": 2}, warnings=["truncated_at"]),
         {**polygon_set(), "layer.shp": base_shp[:-150]})
    no_shx = polygon_set(shx=False)
    case("shp_truncated_no_shx", S1, "1 #3 #11", ".shp cut inside record 3 and no .shx: rebuilt index, one truncated",
         ok(rejected={"truncated": 1}, repaired={"rebuilt_index": 1}, warnings=["truncated_at"]),
         {**no_shx, "layer.shp": base_shp[:-20]})
    case("shp_truncated_in_record_header", S1, "1 #11", ".shp cut 4 bytes into the header of record 3",
         ok(rejected={"truncated": 1}, warnings=["truncated_at"]),
         {**polygon_set(), "layer.shp": base_shp[:100 + 2 * 136 + 4]})
    empty_shp, empty_shx = build_shp_shx(5, [])
    case("shp_zero_records", S1, "1 #12",
         "a valid header and no records: an empty layer, warned (issue 36; a pipeline's requireFeatures stops it)",
         ok(records=0, warnings=["empty_layer"]),
         {"layer.shp": empty_shp, "layer.shx": empty_shx, "layer.dbf": build_dbf(BASE_FIELDS, []),
          "layer.prj": WGS84_PRJ.encode()})

    # Record types.
    case("record_point_in_polygon_file", S1, "1 #6", "record 2 is a Point in a Polygon file",
         ok(rejected={"type_mismatch": 1}), polygon_set(with_records((1, point_content(18.25, 59.05)))))
    case("record_polyline_in_polygon_file", S1, "1 #6", "record 2 is a PolyLine in a Polygon file",
         ok(rejected={"type_mismatch": 1}), polygon_set(with_records((1, poly_content([BASE_SQUARES[1]], 3)))))
    case("record_polygonz_in_polygon_file", S1, "1 #6",
         "record 2 is a PolygonZ in a Polygon file: same family, Z is dropped anyway, so it is read",
         ok(), polygon_set(with_records((1, poly_content([BASE_SQUARES[1]], 15, z=True)))))
    case("record_unknown_type", S1, "1 #7", "record 2 has shape type 99",
         ok(rejected={"unknown_shape_type": 1}),
         polygon_set(with_records((1, struct.pack("<i", 99) + poly_content([BASE_SQUARES[1]])[4:]))))
    case("record_multipatch", S1, "1 #6", "record 2 is a MultiPatch in a Polygon file: read as polygons (issue 36)",
         ok(repaired={"multipatch_as_polygons": 1}),
         polygon_set(with_records((1, multipatch_content(BASE_SQUARES[1])))))
    case("record_null", S1, "1 #8", "record 2 is a NULL shape", ok(rejected={"null_geometry": 1}),
         polygon_set(with_records((1, null_content()))))
    case("all_records_null", S1, "1 #8", "every record is a NULL shape", ok(rejected={"null_geometry": 3}),
         polygon_set([null_content()] * 3))
    sq = BASE_SQUARES[1]
    case("corrupt_nparts_negative", S1, "1 #9", "record 2 has nParts = -1", ok(rejected={"corrupt_record": 1}),
         polygon_set(with_records((1, poly_content([sq], n_parts=-1)))))
    case("corrupt_npoints_huge", S1, "1 #9", "record 2 has nPoints = 0x7FFFFFFF",
         ok(rejected={"corrupt_record": 1}), polygon_set(with_records((1, poly_content([sq], n_points=0x7FFFFFFF)))))
    case("corrupt_part_start_out_of_range", S1, "1 #9", "record 2 has a part starting at vertex 1000 of 10",
         ok(rejected={"corrupt_record": 1}),
         polygon_set(with_records((1, poly_content([sq, square(18.22, 59.02, 0.02)], part_starts=[0, 1000])))))
    case("bad_part_start_nonzero", S1, "1 #10", "record 2's first part starts at vertex 2",
         ok(rejected={"bad_part_layout": 1}), polygon_set(with_records((1, poly_content([sq], part_starts=[2])))))
    case("bad_parts_zero_with_vertices", S1, "1 #10", "record 2 has nParts = 0 but 5 vertices",
         ok(rejected={"bad_part_layout": 1}),
         polygon_set(with_records((1, poly_content([sq], part_starts=[], n_parts=0)))))
    case("record_zero_vertices", S1, "1 #10", "record 2 is a Polygon with no parts and no vertices",
         ok(rejected={"empty_geometry": 1}), polygon_set(with_records((1, poly_content([]))))) 
    case("corrupt_missing_z_block", S1, "1 #9", "record 2 says PolygonZ but has no Z block",
         ok(rejected={"corrupt_record": 1}), polygon_set(with_records((1, poly_content([sq], 15, z=False)))))
    case("corrupt_record_cut_short", S1, "1 #9", "record 2's content is 30 bytes of a polygon (counts past the end)",
         ok(rejected={"corrupt_record": 1}), polygon_set(with_records((1, poly_content([sq])[:30]))))

    # --- geometry (section 2) -------------------------------------------------------------------------------
    nan = float("nan")
    inf = float("inf")
    def ring_with(i, value):
        r = list(sq)
        r[i] = value
        return r
    case("coordinate_nan", S2, "2 #13", "record 2 has a NaN vertex", ok(rejected={"non_finite_coordinate": 1}),
         polygon_set(with_records((1, poly_content([ring_with(2, (nan, 59.1))])))))
    case("coordinate_infinite", S2, "2 #13", "record 2 has a -Inf vertex", ok(rejected={"non_finite_coordinate": 1}),
         polygon_set(with_records((1, poly_content([ring_with(1, (18.2, -inf))])))))
    case("coordinate_1e308", S2, "2 #14", "record 2 has a vertex at 1e308 (GEOS TPS would hang)",
         ok(rejected={"out_of_domain": 1}), polygon_set(with_records((1, poly_content([ring_with(2, (1e308, 59.1))])))))
    case("coordinate_1e300_everywhere", S2, "2 #14", "record 2 is a square of side 1e300",
         ok(rejected={"out_of_domain": 1}),
         polygon_set(with_records((1, poly_content([square(1e300, 1e300, 1e300)])))))
    case("latitude_beyond_90", S2, "2 #15", "record 2 lies at latitude 95..95.1 in WGS 84 (outside the CRS domain)",
         ok(rejected={"reprojection_failed": 1}), polygon_set(with_records((1, poly_content([square(18.2, 95.0)])))))
    case("latitude_beyond_mercator", S2, "2 #15", "record 2 lies at latitude 86..86.1, wholly beyond Web Mercator",
         ok(rejected={"outside_web_mercator": 1}), polygon_set(with_records((1, poly_content([square(18.2, 86.0)])))))
    case("projected_far_outside_domain", S2, "2 #14", "SWEREF 99 TM record 2 at (1e11, 1e11) metres: PROJ fails",
         ok(rejected={"reprojection_failed": 1}),
         polygon_set([poly_content([square(670000, 6580000, 1000)]), poly_content([square(1e11, 1e11, 1000)]),
                      poly_content([square(672000, 6580000, 1000)])], prj=SWEREF_PRJ))
    bowtie = [(18.2, 59.0), (18.3, 59.1), (18.3, 59.0), (18.2, 59.1), (18.2, 59.0)]
    case("bowtie_symmetric", S2, "2 #16", "record 2 is a symmetric bowtie (signed area exactly 0, not a sliver)",
         ok(repaired={"make_valid": 1, "grid_repair": 1}), polygon_set(with_records((1, poly_content([bowtie])))))
    bowtie2 = [(18.2, 59.0), (18.35, 59.1), (18.35, 59.0), (18.2, 59.06), (18.2, 59.0)]
    case("bowtie_asymmetric", S2, "2 #16", "record 2 is an asymmetric bowtie",
         ok(repaired={"make_valid": 1, "grid_repair": 1}), polygon_set(with_records((1, poly_content([bowtie2])))))
    case("ring_unclosed", S2, "2 #17", "record 2's ring does not repeat its first point",
         ok(repaired={"closed_ring": 1}), polygon_set(with_records((1, poly_content([sq[:-1]])))))
    case("ring_too_short", S2, "2 #17", "record 2 has a good ring plus a ring of 2 distinct points",
         ok(repaired={"dropped_ring": 1}),
         polygon_set(with_records((1, poly_content([sq, [(18.22, 59.02), (18.23, 59.03), (18.22, 59.02)]])))))
    case("ring_only_too_short", S2, "2 #17", "record 2's only ring has 2 distinct points",
         ok(rejected={"empty_geometry": 1}),
         polygon_set(with_records((1, poly_content([[(18.22, 59.02), (18.23, 59.03), (18.22, 59.02)]])))))
    case("hole_outside_shell", S2, "2 #18", "record 2 has a counter-clockwise 'hole' outside its shell",
         ok(repaired={"reoriented_rings": 1}),
         polygon_set(with_records((1, poly_content([sq, square(18.32, 59.0, 0.05, ccw=True)])))))
    case("hole_before_shell", S2, "2 #18", "record 2 lists its hole before its shell",
         ok(repaired={"ring_assignment": 1, "grid_repair": 1}),
         polygon_set(with_records((1, poly_content([square(18.22, 59.02, 0.05, ccw=True), sq])))))
    case("shell_counter_clockwise", S2, "2 #19", "record 2's shell is wound counter-clockwise",
         ok(repaired={"reoriented_rings": 1}), polygon_set(with_records((1, poly_content([square(18.2, 59.0, ccw=True)])))))
    case("hole_clockwise", S2, "2 #19", "record 2's hole is wound clockwise like a shell",
         ok(repaired={"reoriented_rings": 1, "grid_repair": 1}),
         polygon_set(with_records((1, poly_content([sq, square(18.22, 59.02, 0.05)])))))
    case("several_shells_one_record", S2, "2 #18", "record 2 holds two separate shells (a multipolygon)",
         ok(), polygon_set(with_records((1, poly_content([square(18.2, 59.0, 0.04), square(18.26, 59.0, 0.04)])))))
    case("island_in_hole", S2, "2 #18", "record 2: shell, hole, island inside the hole",
         ok(repaired={"grid_repair": 1}), polygon_set(with_records((1, poly_content(
             [sq, square(18.22, 59.02, 0.06, ccw=True), square(18.24, 59.04, 0.02)])))))
    case("sliver_ring_collinear", S2, "2 #21", "record 2 has a good ring plus a zero-area (collinear) ring",
         ok(repaired={"dropped_sliver": 1}),
         polygon_set(with_records((1, poly_content([sq, [(18.21, 59.01), (18.22, 59.02), (18.23, 59.03),
                                                          (18.21, 59.01)]])))))
    case("sliver_only", S2, "2 #21", "record 2's only ring has zero area", ok(rejected={"empty_geometry": 1}),
         polygon_set(with_records((1, poly_content([[(18.21, 59.01), (18.22, 59.02), (18.23, 59.03),
                                                     (18.21, 59.01)]])))))
    dup = [sq[0], sq[0], sq[1], sq[2], sq[2], sq[2], sq[3], sq[4], sq[4]]
    case("duplicate_points", S2, "2 #20", "record 2's ring repeats points consecutively",
         ok(repaired={"removed_duplicates": 1}), polygon_set(with_records((1, poly_content([dup])))))
    spike = [(18.2, 59.0), (18.2, 59.1), (18.25, 59.1), (18.25, 59.2), (18.25, 59.1), (18.3, 59.1), (18.3, 59.0),
             (18.2, 59.0)]
    case("ring_with_spike", S2, "2 #16", "record 2's ring has a zero-width spike (invalid, repaired by MakeValid)",
         ok(repaired={"make_valid": 1}), polygon_set(with_records((1, poly_content([spike])))))

    # Lines and points.
    lines = [poly_content([[(18.0, 59.0), (18.1, 59.1)]], 3), poly_content([[(18.2, 59.0), (18.2, 59.0),
                                                                             (18.3, 59.1)]], 3),
             poly_content([[(18.4, 59.0), (18.5, 59.1)], [(18.45, 59.0)]], 3)]
    case("polyline_duplicates_and_single_vertex_part", S2, "2 #20", "line 2 repeats a point; line 3 has a 1-vertex part",
         ok(repaired={"removed_duplicates": 1, "dropped_part": 1}), polygon_set(lines, shape_type=3))
    case("polyline_all_points_equal", S2, "2 #17", "line 2 has 3 identical points", ok(rejected={"empty_geometry": 1}),
         polygon_set([lines[0], poly_content([[(18.2, 59.0)] * 3], 3), lines[0]], shape_type=3))
    pts = [point_content(18.0, 59.0), point_content(nan, 59.0), point_content(18.2, 1e200)]
    case("points_nan_and_huge", S2, "2 #13 #14", "point file: one NaN point, one at y = 1e200",
         ok(rejected={"non_finite_coordinate": 1, "out_of_domain": 1}), polygon_set(pts, shape_type=1))
    mp = [multipoint_content([(18.0, 59.0), (18.1, 59.0)]), multipoint_content([(18.2, 59.0), (inf, 59.0)], 8),
          multipoint_content([], 8)]
    case("multipoint_inf_and_empty", S2, "2 #13", "multipoint file: one with +Inf, one with no points",
         ok(rejected={"non_finite_coordinate": 1, "empty_geometry": 1}), polygon_set(mp, shape_type=8))
    # Issue 15: the Pacific-centred 0-360 convention (WGS 84), and giant pathological rings.
    def box_ring(w, s_, e, n):
        return [(w, s_), (w, n), (e, n), (e, s_), (w, s_)]
    lon360 = [poly_content([box_ring(120.0, -10.0, 240.0, 10.0)]), poly_content([box_ring(200.0, -10.0, 220.0, 10.0)]),
              poly_content([box_ring(150.0, -5.0, 160.0, 5.0)])]
    case("longitudes_0_360", S2, "2 #15", "WGS 84 in 0-360: record 1 spans 120E..240E (crosses 180), record 2 lies at "
         "200..220E, record 3 at 150..160E; wrapped and split at the antimeridian, none cut or lost",
         ok(repaired={"wrapped_longitudes": 2, "antimeridian_split": 1}),
         polygon_set(lon360, shp_kw={"box": (120.0, -10.0, 240.0, 10.0)}))
    case("ring_1m_saw_tooth", S2, "2 #22", "one ring of 1 000 000 vertices: teeth far narrower than a pixel below "
         "zoom 12 (quadratic Douglas-Peucker and grid repair before issue 15)",
         ok(records=1, repaired={"giant_ring_thinned": 1, "grid_repair": 1}), generated="test", vertices=1_000_000)
    case("ring_1m_vertices", S2, "2 #22", "one ring of 1 000 000 vertices (a circle): read and tiled quickly",
         ok(records=1), generated="test", vertices=1_000_000)
    case("record_100k_rings", S2, "2 #18 #22", "one record of 100 000 disjoint small squares: no O(n^2) assignment",
         ok(records=1, repaired={"coarse_grid_repair": 1, "grid_repair": 1, "tiny_feature_kept": 1}), generated="test",
         rings=100_000)
    case("record_100k_nested_rings", S2, "2 #18 #22", "one record of 100 000 concentric squares: bounded work",
         ok(records=1, rejected={"too_complex": 1}), generated="test", rings=100_000)

    # --- .dbf (section 3) ------------------------------------------------------------------------------------
    case("dbf_count_exceeds_file", S3, "3 #29", "header record count 0x7FFFFFFF in a tiny file",
         ok(warnings=["dbf_count_lies"]), polygon_set(dbf_kw={"count": 0x7FFFFFFF}))
    case("dbf_count_too_small", S3, "3 #30", "header says 1 record; 3 shapes (rows 2-3 get null attributes)",
         ok(warnings=["missing_attributes"]), polygon_set(dbf_kw={"count": 1}))
    case("dbf_fewer_rows", S3, "3 #30", ".dbf holds 2 rows for 3 shapes", ok(warnings=["missing_attributes"]),
         polygon_set(rows=base_rows(2)))
    case("dbf_more_rows", S3, "3 #30", ".dbf holds 5 rows for 3 shapes", ok(warnings=["orphan_dbf_rows"]),
         polygon_set(rows=base_rows(5)))
    case("dbf_header_length_shifted", S3, "3 #28", "header length 32 bytes too long, records not padded",
         reject("bad_dbf_header", "header length"),
         polygon_set(dbf_kw={"header_length": 32 + 32 * 3 + 1 + 32, "pad_header": False}))
    case("dbf_header_length_too_short", S3, "3 #27", "header length 20", reject("bad_dbf_header", "header length"),
         polygon_set(dbf_kw={"header_length": 20}))
    case("dbf_header_length_past_eof", S3, "3 #27", "header length 60000 in a small file",
         reject("bad_dbf_header", "past the end"), polygon_set(dbf_kw={"header_length": 60000, "pad_header": False}))
    case("dbf_record_length_zero", S3, "3 #27", "record length 0", reject("bad_dbf_header", "record length is 0"),
         polygon_set(dbf_kw={"record_length": 0}))
    case("dbf_widths_do_not_add_up", S3, "3 #27", "record length 5 more than 1 + the field widths",
         reject("bad_dbf_header", "field widths"), polygon_set(dbf_kw={"record_length": 1 + 20 + 10 + 8 + 5}))
    case("dbf_no_terminator", S3, "3 #28",
         "0x00 where the 0x0D terminator belongs; the header length agrees with the descriptors (GDAL reads it)",
         ok(warnings=["dbf_no_terminator"]), polygon_set(dbf_kw={"terminator": False}))
    case("dbf_empty_file", S3, "3 #27", ".dbf of 0 bytes", reject("bad_dbf_header", "shorter than the 32-byte header"),
         {**polygon_set(), "layer.dbf": b""})
    case("dbf_dbase7", S3, "3 #27", "dBASE 7 version byte", reject("bad_dbf_header", "dBASE 7"),
         polygon_set(dbf_kw={"version": 0x04}))
    num_fields = [field("NAME", "C", 20), field("COUNT", "N", 10), field("SHARE", "N", 12, 3)]
    case("dbf_numeric_garbage", S3, "3 #31", "numbers 'abc', '--5', '1,5' (decimal comma), '12a'",
         ok(coerced={"unparseable_number": 4}),
         polygon_set(fields=num_fields, rows=[[b"a", b"abc", b"1.5"], [b"b", b"--5", b"1,5"], [b"c", b"12a", b"2"]]))
    wide = [field("NAME", "C", 20), field("BIG", "N", 20), field("TEN", "N", 10)]
    case("dbf_integer_overflow", S3, "3 #32", "N(20,0) '99999999999999999999' overflows Int64; N(10,0) '9999999999' fits",
         ok(coerced={"number_out_of_range": 1}),
         polygon_set(fields=wide, rows=[[b"a", b"99999999999999999999", b"9999999999"], [b"b", b"1", b"1"],
                                        [b"c", b"-9223372036854775808", b"-999999999"]]))
    case("dbf_nan_and_1e999", S3, "3 #32", "numbers 'NaN', '1e999', '-inf'", ok(coerced={"number_out_of_range": 3}),
         polygon_set(fields=num_fields, rows=[[b"a", b"1", b"NaN"], [b"b", b"2", b"1e999"], [b"c", b"3", b"-inf"]]))
    date_fields = [field("NAME", "C", 20), field("D", "D", 8)]
    case("dbf_invalid_dates", S3, "3 #33", "dates '20231340', '2023AB01', '20230229' (bad), '00000000' (zero_date), blanks (null)",
         ok(records=5, coerced={"bad_date": 3, "zero_date": 1}),
         polygon_set([poly_content([square(18.0 + 0.2 * i, 59.0)]) for i in range(5)], fields=date_fields,
                     rows=[[b"a", b"20231340"], [b"b", b"2023AB01"], [b"c", b"20230229"], [b"d", b"00000000"],
                           [b"e", b""]]))
    case("dbf_bad_logical", S3, "3 #31", "logical 'X' and '?' (null)", ok(coerced={"bad_logical": 1}),
         polygon_set(fields=[field("NAME", "C", 20), field("OK", "L", 1)],
                     rows=[[b"a", b"T"], [b"b", b"X"], [b"c", b"?"]]))
    utf_rows = [[b"G\xf6teborg", b"1", b"20240101"], [b"ok", b"2", b"20240101"], [b"\xc3\x28bad", b"3", b"20240101"]]
    case("dbf_invalid_utf8_declared", S3, "3 #36", "invalid UTF-8 under a UTF-8 .cpg", ok(coerced={"invalid_utf8": 2}),
         polygon_set(rows=utf_rows, cpg=b"UTF-8"))
    case("dbf_invalid_utf8_no_cpg", S3, "3 #37",
         "bytes that are not UTF-8, no .cpg, LDID 0: Göteborg/Ã in CP1252 or Göteborg/Ă in CP1250 fit no language "
         "better, so the text cannot tell: refused with both readings, never guessed (issue 36)",
         reject("unknown_encoding", "reads as well in CP1252"), polygon_set(rows=utf_rows))
    case("dbf_deleted_rows", S3, "3 #34", "row 2 carries the deletion flag", ok(rejected={"deleted_in_source": 1}),
         polygon_set(dbf_kw={"deleted": {1}}))
    case("dbf_unknown_field_type", S3, "3 #35", "a field of type 'X' is read as text",
         ok(warnings=["unknown_field_type"]),
         polygon_set(fields=[field("NAME", "C", 20), field("ODD", "X", 4)], rows=[[b"a", b"1"]] * 3))
    case("dbf_zero_width_field", S3, "3 #35", "a field of width 0 is dropped", ok(warnings=["dropped_field"]),
         polygon_set(fields=[field("NAME", "C", 20), field("EMPTY", "C", 0)], rows=[[b"a", b""]] * 3))
    case("dbf_duplicate_field_names", S3, "3 #35", "two fields named NAME", ok(warnings=["duplicate_field_name"]),
         polygon_set(fields=[field("NAME", "C", 10), field("NAME", "C", 10)], rows=[[b"a", b"b"]] * 3))
    case("dbf_name_without_nul", S3, "3 #35", "an 11-byte field name with no NUL",
         ok(), polygon_set(fields=[field("ABCDEFGHIJK", "C", 10)], rows=[[b"a"]] * 3))
    case("dbf_unknown_ldid", S3, "3 #37", "language driver id 0xEE: the (ASCII) text decides (issue 36)", ok(),
         polygon_set(dbf_kw={"ldid": 0xEE}))
    case("cpg_garbage", S3, "3 #37", "a .cpg of 5000 bytes: ignored, the text decides (issue 36)",
         ok(warnings=["ignored_cpg"]),
         polygon_set(cpg=bytes(range(256)) * 19 + b"x" * 136))
    case("cpg_unknown_name", S3, "3 #37", ".cpg says KLINGON-1: ignored, the text decides (issue 36)",
         ok(warnings=["ignored_cpg"]),
         polygon_set(cpg=b"KLINGON-1"))
    case("dbf_missing", S3, "3 #26", "no .dbf: geometry only", ok(warnings=["no_attributes"]), polygon_set(dbf=False))

    tolerance_cases(S1, S3)

    # --- .prj (section 4) ------------------------------------------------------------------------------------
    case("prj_missing", S4, "4 #38", "no .prj and no --source-crs", reject("missing_prj", "no .prj file"),
         polygon_set(prj=None))
    case("prj_garbage", S4, "4 #39", ".prj holds prose", reject("unparseable_prj", "cannot read the coordinate"),
         polygon_set(prj="this is not a CRS"))
    case("prj_truncated_wkt", S4, "4 #39", ".prj cut in the middle of the WKT",
         reject("unparseable_prj", "cannot read the coordinate"), polygon_set(prj=WGS84_PRJ[:70]))
    case("prj_empty", S4, "4 #39", ".prj of 0 bytes", reject("unparseable_prj", "cannot read the coordinate"),
         polygon_set(prj=""))
    case("prj_proj_string", S4, "4 #39", ".prj holds a PROJ string with +init=",
         reject("unparseable_prj", "cannot read the coordinate"), polygon_set(prj="+init=epsg:4326"))
    case("prj_utf16", S4, "4 #39", ".prj in UTF-16 with a BOM",
         reject("unparseable_prj", "cannot read the coordinate"),
         polygon_set(prj=b"\xff\xfe" + WGS84_PRJ.encode("utf-16-le")))
    case("prj_vertcs_vdatum", S4, "4 #40", "ESRI GEOGCS followed by VERTCS[...VDATUM...] (segfaults PROJ 9.1.1)",
         ok(), polygon_set(prj=WGS84_PRJ + ',VERTCS["WGS_1984",VDATUM["WGS_1984"],PARAMETER["Vertical_Shift",0.0],'
                                           'PARAMETER["Direction",1.0],UNIT["Meter",1.0]]'))
    case("prj_bbox_degenerate", S4, "4 #40", "WKT2 with BBOX[-90,180,90,180] (infinite recursion in PROJ 9.1)",
         ok(), polygon_set(prj='GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,'
                               '298.257223563,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",'
                               '0.0174532925199433]],CS[ellipsoidal,2],AXIS["longitude",east,ORDER[1],ANGLEUNIT['
                               '"degree",0.0174532925199433]],AXIS["latitude",north,ORDER[2],ANGLEUNIT["degree",'
                               '0.0174532925199433]],USAGE[SCOPE["x"],BBOX[-90,180,90,180]]]'))
    case("prj_extension_nadgrids", S4, "4 #40", "EXTENSION[\"PROJ4\",\"... +nadgrids=/dev/zero\"] (PROJ opens files)",
         ok(), polygon_set(prj=WGS84_PRJ[:-1] + ',EXTENSION["PROJ4","+proj=longlat +datum=WGS84 '
                                                '+nadgrids=/dev/zero +no_defs"]]'))
    case("prj_absolute_grid_path", S4, "4 #40", "a PARAMETERFILE naming an absolute path",
         reject("hostile_prj", "refusing an unsafe"),
         polygon_set(prj='GEOGCS["x",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
                         'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433],'
                         'PARAMETERFILE["Geocentric translation file","/etc/passwd"]]'))
    case("prj_nested_10k", S4, "4 #40", "10 000 nested brackets", reject("hostile_prj", "refusing an unsafe"),
         polygon_set(prj="GEOGCS[" + "A[" * 10000 + "]" * 10001))
    case("prj_projjson_deep", S4, "4 #40", "PROJJSON nested 10 000 deep (overflows PROJ's stack)",
         reject("unparseable_prj", "cannot read the coordinate"), polygon_set(prj='{"a":' * 10000 + "1" + "}" * 10000))
    case("prj_over_64k", S4, "4 #40", "a 70 000-byte .prj is not read: rejected as too large (not as missing)",
         reject("prj_too_large", "larger than the 65536-byte limit"), polygon_set(prj=WGS84_PRJ + " " * 70000))
    utm18 = ('PROJCS["WGS_1984_UTM_Zone_18N",GEOGCS["GCS_unknown",DATUM["D_unknown",SPHEROID["WGS_1984",6378137.0,'
             '298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],'
             'PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],'
             'PARAMETER["Central_Meridian",-75.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],'
             'UNIT["Meter",1.0]]')
    case("prj_unnamed_datum_utm18", S4, "4 #38",
         "ESRI UTM zone 18N on D_unknown with the WGS 84 spheroid: identified as EPSG:32618 (GDAL: 60 %)",
         ok(), polygon_set([poly_content([square(583000 + 3000 * i, 4507000, 1000)]) for i in range(3)], prj=utm18),
         epsg=32618)

    # --- file system (section 5): built at test time -----------------------------------------------------------
    case("fifo_named_dbf", S5, "5 #44", "a FIFO named layer.dbf (reading it would block forever)",
         reject("not_a_regular_file", "FIFO"), generated="test")
    case("fifo_named_shp", S5, "5 #44", "a FIFO named layer.shp", reject("not_a_regular_file", "FIFO"),
         generated="test")
    case("symlink_shp", S5, "5 #44", "layer.shp is a symbolic link to a valid .shp elsewhere",
         reject("not_a_regular_file", "symbolic link"), generated="test")
    case("symlink_dbf_to_dev_zero", S5, "5 #44", "layer.dbf is a symbolic link to /dev/zero",
         reject("not_a_regular_file", "symbolic link"), generated="test")
    case("directory_named_dbf", S5, "5 #44", "a folder named layer.dbf", reject("not_a_regular_file", "folder"),
         generated="test")


def tolerance_cases(S1, S3):
    """Layouts real exporters write that GDAL's Shapefile driver reads (issue 16), and the attribute types and null
    markers of issue 15. Sources: GDAL/shapelib behaviour checked with GDAL 3.6, and the quirks reported in
    NetTopologySuite.IO.Esri#65 (0x0D then 0x00), NetTopologySuite#112 (content length without the M block),
    natural-earth-vector#164 (gaps between records), NetTopologySuite.IO.Esri#62 (null records with content),
    javadbf#77 / dbfread#55 (no terminator), go-shapefile#4 (no 0x1A), mapshaper#59 (record length one more)."""
    # .dbf
    n3 = 32 + 32 * 3
    case("dbf_header_without_terminator_byte", S3, "3 #28",
         "header length 32 + 32 x fields: no room for the 0x0D terminator at all (GDAL reads it)",
         ok(warnings=["dbf_no_terminator"]),
         polygon_set(dbf_kw={"terminator": False, "header_length": n3}))
    case("dbf_terminator_then_nul", S3, "3 #28", "0x0D followed by 0x00, both counted in the header length",
         ok(warnings=["dbf_header_padding"]), polygon_set(dbf_kw={"header_length": n3 + 2}))
    case("dbf_record_padding", S3, "3 #27", "every record carries 4 blanks after its last field (record length +4)",
         ok(warnings=["dbf_record_padding"]), polygon_set(dbf_kw={"record_padding": 4}))
    case("dbf_no_eof_marker", S3, "3 #27", "no 0x1A after the last record", ok(), polygon_set(dbf_kw={"eof": False}))
    case("dbf_trailing_garbage", S3, "3 #27", "three 0x1A and text after the records",
         ok(), polygon_set(dbf_kw={"trailer": b"\x1a\x1a\x1agarbage"}))
    long_rows = [b"x" * 299 + b"y" + b"  1", b"short" + b" " * 295 + b"  2", b" " * 300 + b"  3"]
    case("dbf_long_character_field", S3, "3 #35",
         "a 300-wide C field: width byte 44, decimals byte 1 (Clipper/FoxPro high byte); GDAL reads 44 bytes",
         ok(warnings=["long_character_field"]),
         polygon_set(fields=[field("LONG", "C", 44, 1), field("N", "N", 3)],
                     dbf_kw={"raw_rows": long_rows, "record_length": 1 + 300 + 3}))
    case("dbf_asterisk_and_nul_numbers", S3, "3 #31 #32",
         "numbers '**********' (overflow marker) and ten NUL bytes: null, counted",
         ok(coerced={"overflow_marker": 1, "nul_filled_number": 1}),
         polygon_set(dbf_kw={"raw_rows": [b"r1".ljust(20) + b"*" * 10 + b"20240101",
                                          b"r2".ljust(20) + b"\0" * 10 + b"20240101",
                                          b"r3".ljust(20) + b"3".rjust(10) + b"20240101"]}))
    case("dbf_zero_dates", S3, "3 #33", "dates '00000000' and '0000    ': null, counted as zero_date",
         ok(coerced={"zero_date": 2}),
         polygon_set(dbf_kw={"raw_rows": [b"r1".ljust(20) + b"1".rjust(10) + b"00000000",
                                          b"r2".ljust(20) + b"2".rjust(10) + b"0000    ",
                                          b"r3".ljust(20) + b"3".rjust(10) + b"20240101"]}))
    fox_fields = [field("I", "I", 4), field("B", "B", 8, 2), field("T", "T", 8), field("Y", "Y", 8, 4)]
    fox_rows = [struct.pack("<idiiq", -5, 2.5, 2460370, 45296789, 123456789),
                struct.pack("<idiiq", 7, 1e6, 2440588, 0, -50000),
                struct.pack("<idiiq", 0, 0.0, 0, 0, 0)]
    case("dbf_foxpro_binary_fields", S3, "3 #35",
         "Visual FoxPro I, B, T, Y fields (int32, double, datetime, currency) are decoded, not read as bytes",
         ok(), polygon_set(fields=fox_fields,
                           dbf_kw={"raw_rows": fox_rows, "version": 0x30, "header_length": 32 + 32 * 4 + 1 + 263}))
    memo_fields = [field("NAME", "C", 20), field("NOTE", "M", 10)]
    memo_rows = [b"r1".ljust(20) + b"1".rjust(10), b"r2".ljust(20) + b" " * 10, b"r3".ljust(20) + b"2".rjust(10)]
    dbt3 = bytearray(512)
    dbt3[0] = 3
    for text in (b"first note", b"second note"):
        dbt3 += text + b"\x1a\x1a"
        dbt3 += b"\0" * (-len(dbt3) % 512)
    case("dbf_memo_dbt3", S3, "3 #35", "memo field M with a dBASE III .dbt: the text, never the block number",
         ok(), {**polygon_set(fields=memo_fields, dbf_kw={"raw_rows": memo_rows, "version": 0x83}),
                "layer.dbt": bytes(dbt3)})
    dbt4 = bytearray(512)
    dbt4[20:22] = struct.pack("<H", 512)
    for text in (b"fourth\x1adimension", b"memo two"):
        dbt4 += b"\xff\xff\x08\x00" + struct.pack("<I", 8 + len(text)) + text
        dbt4 += b"\0" * (-len(dbt4) % 512)
    case("dbf_memo_dbt4", S3, "3 #35", "memo field M with a dBASE IV .dbt (length-prefixed blocks)",
         ok(), {**polygon_set(fields=memo_fields, dbf_kw={"raw_rows": memo_rows, "version": 0x8B}),
                "layer.dbt": bytes(dbt4)})
    case("dbf_memo_missing_dbt", S3, "3 #35", "memo field M without its .dbt: null with a counted warning",
         ok(coerced={"memo_file_missing": 2}, warnings=["memo_file_missing"]),
         polygon_set(fields=memo_fields, dbf_kw={"raw_rows": memo_rows, "version": 0x83}))
    case("cpg_system", S3, "3 #37",
         ".cpg says System (the writer's Windows code page, unknown here): the text decides (issue 36)",
         ok(warnings=["ignored_cpg"]), polygon_set(cpg=b"System"))

    # .shp / .shx
    mpz = (struct.pack("<i4di", 18, 18.0, 59.0, 18.2, 59.1, 3)
           + struct.pack("<6d", 18.0, 59.0, 18.1, 59.05, 18.2, 59.1)
           + struct.pack("<2d3d", 1.0, 3.0, 1.0, 2.0, 3.0) + struct.pack("<2d3d", 0.0, 2.0, 0.0, 1.0, 2.0))
    shp, shx = build_shp_shx(18, [mpz], header_lengths={0: len(mpz) // 2 + 4},
                             shx_entries={0: (50, len(mpz) // 2 + 4)})
    case("record_length_overrun_multipointz", S1, "1 #11",
         "one MultiPointZ record whose length (.shx and record header) runs 8 bytes past the end; points, Z and M fit",
         ok(records=1, warnings=["record_length_overrun"]),
         {"layer.shp": shp, "layer.shx": shx, "layer.dbf": build_dbf(BASE_FIELDS, base_rows(1)),
          "layer.prj": WGS84_PRJ.encode()})
    c3 = poly_content([BASE_SQUARES[2]])
    case("record_length_overrun_last_polygon", S1, "1 #11",
         "the last polygon's length claims 16 bytes past the end of the file; its ring fits",
         ok(warnings=["record_length_overrun"]),
         polygon_set(shp_kw={"header_lengths": {2: len(c3) // 2 + 8}, "shx_entries": {2: (50 + 2 * 68, 64 + 8)}}))
    case("shx_lengths_too_long", S1, "1 #2 #11",
         "every .shx length is 8 bytes longer than the record (the last then runs past the end)",
         ok(warnings=["length_mismatch", "record_length_overrun"]),
         polygon_set(shp_kw={"shx_entries": {i: (50 + i * 68, 68) for i in range(3)}}))
    base = polygon_set()
    case("shp_trailing_garbage", S1, "1 #2", "64 bytes of garbage after the last record, not in the .shx",
         ok(warnings=["unindexed_bytes"]), {**base, "layer.shp": base["layer.shp"] + b"\xab" * 64})
    gap_shp = bytearray(base["layer.shp"][:100])
    gap_entries = []
    for c in [poly_content([r]) for r in BASE_SQUARES]:
        gap_entries.append((len(gap_shp) // 2, len(c) // 2))
        gap_shp += struct.pack(">ii", len(gap_entries), len(c) // 2) + c + b"\0" * 16
    gap_shp[24:28] = struct.pack(">i", len(gap_shp) // 2)
    gap_shx = base["layer.shx"][:100] + b"".join(struct.pack(">ii", o, l) for o, l in gap_entries)
    case("shp_gap_between_records", S1, "1 #2",
         "16 zero bytes after every record; the .shx points at each one (the last 16 are unindexed)",
         ok(warnings=["unindexed_bytes"]), {**base, "layer.shp": bytes(gap_shp), "layer.shx": gap_shx})
    case("record_null_with_content", S1, "1 #8", "record 2 is a NULL shape whose content carries 36 more bytes",
         ok(rejected={"null_geometry": 1}), polygon_set(with_records((1, null_content() + b"\x7f" * 36))))
    pz = [poly_content([r], 15, z=True) for r in BASE_SQUARES]
    no_m = {i: (len(c) - (16 + 8 * 5)) // 2 for i, c in enumerate(pz)}
    offsets, at = {}, 100
    for i, c in enumerate(pz):
        offsets[i] = (at // 2, no_m[i])
        at += 8 + len(c)
    case("record_length_without_m_block", S1, "1 #2",
         "PolygonZ records whose lengths (.shx and headers) leave out the M block that follows (a writer bug)",
         ok(warnings=["unindexed_bytes"]), polygon_set(pz, shape_type=15, shp_kw={"header_lengths": no_m, "shx_entries": offsets}))
    long_shx = bytearray(base["layer.shx"])
    long_shx[24:28] = struct.pack(">i", (len(long_shx) + 80) // 2)
    case("shx_header_length_too_long", S1, "1 #3", ".shx header claims 80 bytes more than the file has",
         ok(repaired={"rebuilt_index": 1}), {**base, "layer.shx": bytes(long_shx)})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(root, "SampleData", "hostile"))
    args = parser.parse_args()
    define_cases()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    if os.path.isdir(args.out):
        for entry in sorted(os.listdir(args.out)):
            path = os.path.join(args.out, entry)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    total = 0
    for c in CASES:
        files = c.pop("_files")
        if "generated" not in c:
            folder = os.path.join(args.out, c["name"])
            os.makedirs(folder)
            for name in sorted(files):
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(files[name])
                total += len(files[name])
            c["files"] = sorted(files)
            c["input"] = c["name"] + "/layer.shp"
        manifest.append(c)
    doc = {
        "description": "Kartpack hostile Shapefile corpus; generated by scripts/make-hostile.py, do not edit.",
        "convert": {"min_zoom": 0, "max_zoom": 6},
        "cases": manifest,
    }
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    committed = sum(1 for c in manifest if "generated" not in c)
    print(f"{len(manifest)} cases ({committed} committed, {len(manifest) - committed} built at test time), "
          f"{total} bytes -> {args.out}")


if __name__ == "__main__":
    main()
