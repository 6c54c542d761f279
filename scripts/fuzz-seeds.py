#!/usr/bin/env python3
"""Regenerates the fuzz seed corpora under SampleData/fuzz-seeds/ (see docs/fuzzing.md).

    scripts/fuzz-seeds.py KARTPACK_BINARY

shapefile/  One input per Shapefile bundle in the FuzzShapefile framing: a flag byte, then .shp, .shx, .dbf,
            .prj, .cpg (and .dbt), each as a 4-byte little-endian length plus the bytes. Flag bits 0-3: the
            .shx/.dbf/.prj/.cpg exists; bits 4-5: --encoding (0 none, 1 UTF-8, 2 CP1252, 3 CP850); bit 6:
            maxVertices 16; bit 7: a sixth section, the .dbt memo file, exists.
            Small subsets of SampleData/forest (byte-exact records and DBF rows), synthetic Z/M/MultiPatch files,
            and slightly broken variants of each hostile-input class.
package/    Small PMTiles archives made by `kartpack convert` at zoom 12 from sample layers, one MBTiles file, a
            raw MVT tile and a gzip tile taken from them, and broken variants.
zip/        Small GIS-export zips of sample layers: stored and deflated entries, folders, mixed-case names,
            a data descriptor, a comment, a nested zip, names that try to leave the folder, truncated copies.
pipeline/   Pipeline files: Pipelines/*.json, a minimal one, every section (filters, clip bbox and file, regions,
            output keys), and broken variants (syntax errors, unknown and duplicate keys, wrong types, ranges).
geopackage/ GeoPackage geometry blobs (envelopes, byte orders, ISO/EWKB dimensions, Multi*, collections) and broken
            variants, and one small two-table .gpkg.
stylesheet/ .kss sheets: SampleData/forest.kss, one rule per filter kind, `=~` regexes (classes, anchors,
            (?i), catastrophic-backtracking shapes, refused constructs), @example and @map blocks, broken ones.

Pure Python (no GDAL); deterministic: the same inputs give the same bytes.
"""
import gzip
import math
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOREST = os.path.join(ROOT, "SampleData", "forest")
OUT = os.path.join(ROOT, "SampleData", "fuzz-seeds")

# ---------------------------------------------------------------------------------------------------- framing


def frame(shp, shx=None, dbf=None, prj=None, cpg=None, extra_flags=0, memo=None):
    flags = extra_flags
    out = b""
    for bit, section in enumerate([shp, shx, dbf, prj, cpg]):
        if bit > 0 and section is not None:
            flags |= 1 << (bit - 1)
        data = section or b""
        out += struct.pack("<I", len(data)) + data
    if memo is not None:
        # Sixth section: the .dbt memo file, present when flag bit 7 is set.
        flags |= 0x80
        out += struct.pack("<I", len(memo)) + memo
    return bytes([flags]) + out


# ------------------------------------------------------------------------------------------ Shapefile subsets


def read_layer(name):
    files = {}
    for ext in ["shp", "shx", "dbf", "prj", "cpg"]:
        with open(os.path.join(FOREST, f"{name}.{ext}"), "rb") as f:
            files[ext] = f.read()
    return files


def subset(files, records):
    """The bundle with only `records` (0-based), renumbered; header bbox and lengths recomputed."""
    shp, shx, dbf = files["shp"], files["shx"], files["dbf"]
    body = b""
    index = b""
    xs, ys = [], []
    for n, k in enumerate(records):
        off, words = struct.unpack(">ii", shx[100 + 8 * k : 108 + 8 * k])
        content = shp[off * 2 + 8 : off * 2 + 8 + words * 2]
        index += struct.pack(">ii", (100 + len(body)) // 2, words)
        body += struct.pack(">ii", n + 1, words) + content
        stype = struct.unpack("<i", content[:4])[0]
        if stype in (1, 11, 21):
            x, y = struct.unpack("<dd", content[4:20])
            xs += [x]
            ys += [y]
        elif stype != 0:
            xmin, ymin, xmax, ymax = struct.unpack("<4d", content[4:36])
            xs += [xmin, xmax]
            ys += [ymin, ymax]
    header = bytearray(shp[:100])
    header[24:28] = struct.pack(">i", (100 + len(body)) // 2)
    if xs:
        header[36:68] = struct.pack("<4d", min(xs), min(ys), max(xs), max(ys))
    xheader = bytearray(header)
    xheader[24:28] = struct.pack(">i", (100 + len(index)) // 2)
    nrec, hlen, rlen = struct.unpack("<IHH", dbf[4:12])
    rows = b"".join(dbf[hlen + k * rlen : hlen + (k + 1) * rlen] for k in records)
    dheader = bytearray(dbf[:hlen])
    dheader[4:8] = struct.pack("<I", len(records))
    return {
        "shp": bytes(header) + body,
        "shx": bytes(xheader) + index,
        "dbf": bytes(dheader) + rows + b"\x1a",
        "prj": files["prj"],
        "cpg": files["cpg"],
    }


def bundle(files, **changes):
    f = dict(files)
    f.update(changes)
    extra = f.pop("flags", 0)
    return frame(f["shp"], f.get("shx"), f.get("dbf"), f.get("prj"), f.get("cpg"), extra, f.get("dbt"))


def patch(data, offset, new):
    b = bytearray(data)
    b[offset : offset + len(new)] = new
    return bytes(b)


def record_offset(files, k):
    return struct.unpack(">i", files["shx"][100 + 8 * k : 104 + 8 * k])[0] * 2


def dbf_field_offset(dbf, name):
    hlen = struct.unpack("<H", dbf[8:10])[0]
    pos = 1
    for i in range(32, hlen - 1, 32):
        if dbf[i] == 0x0D:
            break
        if dbf[i : i + 11].split(b"\0")[0].decode("latin1") == name:
            return hlen + pos, dbf[i + 16]
        pos += dbf[i + 16]
    raise KeyError(name)


# ------------------------------------------------------------------------------------ synthetic Z/M/MultiPatch


def synthetic(stype, shapes, fields=(("NAME", "C", 10, 0),), rows=None):
    """A minimal bundle of `shapes` (each a list of parts, each a list of (x, y, z, m)) of type `stype`."""
    has_z = stype in (11, 13, 15, 18, 31)
    has_m = has_z or stype in (21, 23, 25, 28)
    body = b""
    index = b""
    allx, ally = [], []
    for n, parts in enumerate(shapes):
        pts = [p for part in parts for p in part]
        allx += [p[0] for p in pts]
        ally += [p[1] for p in pts]
        if stype in (1, 11, 21):
            x, y, z, m = pts[0]
            c = struct.pack("<i2d", stype, x, y)
            if has_z:
                c += struct.pack("<d", z)
            if has_m:
                c += struct.pack("<d", m)
        else:
            box = struct.pack("<4d", min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
            c = struct.pack("<i", stype) + box
            if stype in (8, 18, 28):
                c += struct.pack("<i", len(pts))
            else:
                c += struct.pack("<2i", len(parts), len(pts))
                start = 0
                for part in parts:
                    c += struct.pack("<i", start)
                    start += len(part)
                if stype == 31:
                    c += struct.pack(f"<{len(parts)}i", *([5] + [3] * (len(parts) - 1)))
            c += b"".join(struct.pack("<2d", p[0], p[1]) for p in pts)
            if has_z:
                zs = [p[2] for p in pts]
                c += struct.pack("<2d", min(zs), max(zs)) + b"".join(struct.pack("<d", z) for z in zs)
            if has_m:
                ms = [p[3] for p in pts]
                c += struct.pack("<2d", min(ms), max(ms)) + b"".join(struct.pack("<d", m) for m in ms)
        index += struct.pack(">ii", (100 + len(body)) // 2, len(c) // 2)
        body += struct.pack(">ii", n + 1, len(c) // 2) + c
    header = struct.pack(">7i", 9994, 0, 0, 0, 0, 0, (100 + len(body)) // 2) + struct.pack("<2i", 1000, stype)
    header += struct.pack("<8d", min(allx), min(ally), max(allx), max(ally), 0, 0, 0, 0)
    xheader = header[:24] + struct.pack(">i", (100 + len(index)) // 2) + header[28:]
    rows = rows or [[f"r{n}"] for n in range(len(shapes))]
    rlen = 1 + sum(f[2] for f in fields)
    hlen = 32 + 32 * len(fields) + 1
    dbf = struct.pack("<4BIHH20x", 3, 126, 1, 1, len(rows), hlen, rlen)
    dbf = dbf[:29] + b"\x57" + dbf[30:]
    for name, ftype, width, dec in fields:
        dbf += name.encode().ljust(11, b"\0") + ftype.encode() + b"\0" * 4 + bytes([width, dec]) + b"\0" * 14
    dbf += b"\x0d"
    for row in rows:
        dbf += b" " + b"".join(str(v).encode("latin1")[: f[2]].ljust(f[2]) for v, f in zip(row, fields))
    dbf += b"\x1a"
    wgs84 = (
        b'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
        b'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'
    )
    return {"shp": header + body, "shx": xheader + index, "dbf": dbf, "prj": wgs84, "cpg": b"UTF-8"}


def shapefile_seeds():
    seeds = {}
    points = subset(read_layer("fornminnen"), [0, 1, 2])
    lines = subset(read_layer("vagar"), [0])
    avd = read_layer("avdelningar")
    lens = [struct.unpack(">i", avd["shx"][104 + 8 * k : 108 + 8 * k])[0] for k in range((len(avd["shx"]) - 100) // 8)]
    small = sorted(range(len(lens)), key=lambda k: (lens[k], k))[:2]
    polys = subset(avd, sorted(small))
    holes = subset(read_layer("hansyn"), [0])

    seeds["points-valid"] = bundle(points)
    seeds["lines-valid"] = bundle(lines)
    seeds["polygons-valid"] = bundle(polys)
    seeds["hansyn-valid"] = bundle(holes)
    # Missing companions and options.
    seeds["polygons-no-shx"] = bundle(polys, shx=None)
    seeds["polygons-no-dbf-prj-cpg"] = bundle(polys, dbf=None, prj=None, cpg=None)
    seeds["points-encoding-cp850-maxvertices"] = bundle(points, flags=0x30 | 0x40)
    seeds["points-encoding-utf8-no-cpg"] = bundle(points, cpg=None, flags=0x10)
    # .shp / .shx lies.
    seeds["polygons-truncated"] = bundle(polys, shp=polys["shp"][: len(polys["shp"]) - 100])
    seeds["polygons-shx-into-header"] = bundle(polys, shx=patch(polys["shx"], 108, struct.pack(">i", 5)))
    seeds["polygons-shx-length-huge"] = bundle(polys, shx=patch(polys["shx"], 112, struct.pack(">i", 0x7FFFFFF0)))
    seeds["polygons-bad-magic"] = bundle(polys, shp=patch(polys["shp"], 0, struct.pack(">i", 9995)))
    seeds["polygons-record-number"] = bundle(polys, shp=patch(polys["shp"], record_offset(polys, 1), struct.pack(">i", 7)))
    r0 = record_offset(polys, 0) + 8
    seeds["polygons-type-mismatch"] = bundle(polys, shp=patch(polys["shp"], r0, struct.pack("<i", 8)))
    seeds["polygons-unknown-type"] = bundle(polys, shp=patch(polys["shp"], r0, struct.pack("<i", 77)))
    seeds["polygons-parts-huge"] = bundle(polys, shp=patch(polys["shp"], r0 + 36, struct.pack("<i", 0x7FFFFFFF)))
    seeds["polygons-points-huge"] = bundle(polys, shp=patch(polys["shp"], r0 + 40, struct.pack("<i", 0x0FFFFFFF)))
    seeds["polygons-partstart-bad"] = bundle(polys, shp=patch(polys["shp"], r0 + 44, struct.pack("<i", 3)))
    npts = struct.unpack("<i", polys["shp"][r0 + 40 : r0 + 44])[0]
    nparts = struct.unpack("<i", polys["shp"][r0 + 36 : r0 + 40])[0]
    last = r0 + 44 + 4 * nparts + 16 * (npts - 1)
    seeds["polygons-unclosed-ring"] = bundle(polys, shp=patch(polys["shp"], last, struct.pack("<d", 1.0)))
    seeds["polygons-nan"] = bundle(polys, shp=patch(polys["shp"], last - 16, struct.pack("<d", math.nan)))
    seeds["points-infinite"] = bundle(points, shp=patch(points["shp"], record_offset(points, 0) + 12, struct.pack("<d", math.inf)))
    # .dbf lies and bad values.
    seeds["polygons-dbf-count-lies"] = bundle(polys, dbf=patch(polys["dbf"], 4, struct.pack("<I", 100000)))
    seeds["polygons-dbf-header-length"] = bundle(polys, dbf=patch(polys["dbf"], 8, struct.pack("<H", 300)))
    seeds["polygons-dbf-record-length"] = bundle(polys, dbf=patch(polys["dbf"], 10, struct.pack("<H", 40)))
    off, _ = dbf_field_offset(polys["dbf"], "AREAL")
    bad = patch(polys["dbf"], off, b"   12,50  ")
    off, _ = dbf_field_offset(bad, "INVDATUM")
    bad = patch(bad, off, b"20231341")
    off, _ = dbf_field_offset(bad, "ALDER")
    bad = patch(bad, off, b"9e9")
    off, _ = dbf_field_offset(bad, "CERTIFIER")
    seeds["polygons-dbf-bad-values"] = bundle(polys, dbf=patch(bad, off, b"x"))
    seeds["polygons-dbf-deleted"] = bundle(polys, dbf=patch(polys["dbf"], struct.unpack("<H", polys["dbf"][8:10])[0], b"*"))
    seeds["points-dbf-ldid-unknown"] = bundle(points, cpg=None, dbf=patch(points["dbf"], 29, b"\xee"))
    seeds["points-cpg-garbage"] = bundle(points, cpg=b"NOT-A-CODEPAGE-42")
    seeds["points-cpg-utf8-latin1-values"] = bundle(points, cpg=b"UTF-8")
    # .prj variants.
    seeds["points-prj-garbage"] = bundle(points, prj=b'PROJCS["x",GEOGCS[')
    seeds["points-prj-vertcs"] = bundle(
        points,
        prj=points["prj"][:-1]
        + b',VERTCS["EGM96_Geoid",VDATUM["EGM96_Geoid"],PARAMETER["Vertical_Shift",0.0],'
        + b'PARAMETER["Direction",1.0],UNIT["Meter",1.0]]]',
    )
    seeds["points-prj-extension"] = bundle(
        points, prj=points["prj"][:-1] + b',EXTENSION["PROJ4","+proj=longlat +nadgrids=/dev/zero"]]'
    )
    seeds["points-prj-wkt2-bbox"] = bundle(
        points,
        prj=b'GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563]],'
        + b'CS[ellipsoidal,2],AXIS["latitude",north],AXIS["longitude",east],ANGLEUNIT["degree",0.0174532925199433],'
        + b"USAGE[SCOPE[\"x\"],BBOX[-90,180,90,180]]]",
    )
    seeds["points-prj-bom-latin1"] = bundle(points, prj=b"\xef\xbb\xbf" + points["prj"].replace(b"SWEREF99", b"SWEREF\xe499"))
    # Synthetic Z / M / MultiPatch files.
    sq = [(0, 0, 1, 5), (0, 10, 2, 6), (10, 10, 3, 7), (10, 0, 4, 8), (0, 0, 1, 5)]
    hole = [(2, 2, 0, 0), (8, 2, 0, 0), (8, 8, 0, 0), (2, 8, 0, 0), (2, 2, 0, 0)]
    seeds["synthetic-polygonz-hole"] = bundle(synthetic(15, [[sq, hole]]))
    seeds["synthetic-polygonm-two-shells"] = bundle(synthetic(25, [[sq, [(20, 20, 0, -1e39), (20, 30, 0, 1), (30, 30, 0, 2), (20, 20, 0, 3)]]]))
    seeds["synthetic-polylinem"] = bundle(synthetic(23, [[[(0, 0, 0, 1), (1, 1, 0, 2)], [(5, 5, 0, 3), (6, 6, 0, 4), (7, 5, 0, 5)]]]))
    seeds["synthetic-multipointz"] = bundle(synthetic(18, [[[(1, 2, 3, 4), (5, 6, 7, 8)]]]))
    seeds["synthetic-pointm"] = bundle(synthetic(21, [[[(1, 2, 0, 9)]], [[(3, 4, 0, -2e38)]]]))
    seeds["synthetic-multipatch"] = bundle(synthetic(31, [[sq, hole]]))
    seeds["synthetic-null-and-point"] = bundle(
        synthetic(1, [[[(1, 2, 0, 0)]], [[(3, 4, 0, 0)]]], fields=(("N", "N", 5, 0), ("D", "D", 8, 0), ("L", "L", 1, 0)), rows=[[12, "20240229", "T"], ["abc", "2024", "?"]])
    )
    # Tolerance cases GDAL reads and the attribute types of issue 15, from the hostile corpus.
    for case in ["dbf_no_terminator", "dbf_record_padding", "dbf_long_character_field", "dbf_foxpro_binary_fields",
                 "dbf_memo_dbt3", "dbf_memo_dbt4", "dbf_asterisk_and_nul_numbers", "record_length_overrun_multipointz",
                 "shx_lengths_too_long", "shp_header_unknown_type"]:
        folder = os.path.join(ROOT, "SampleData", "hostile", case)
        files = {}
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as fh:
                files[name.rsplit(".", 1)[1]] = fh.read()
        seeds["hostile-" + case.replace("_", "-")] = bundle(files)
    return seeds


# ------------------------------------------------------------------------------------------- package seeds


def package_seeds(kartpack):
    seeds = {}
    tmp = tempfile.mkdtemp(prefix="kartpack-seeds-")
    try:
        def convert(layer, out, records=None):
            src = os.path.join(FOREST, f"{layer}.shp")
            if records is not None:
                files = subset(read_layer(layer), records)
                for ext, data in files.items():
                    with open(os.path.join(tmp, f"{layer}.{ext}"), "wb") as f:
                        f.write(data)
                src = os.path.join(tmp, f"{layer}.shp")
            path = os.path.join(tmp, out)
            subprocess.run(
                [kartpack, "convert", src, "-o", path, "--min-zoom", "12", "--max-zoom", "12", "--threads", "1",
                 "--quiet", "--force"],
                check=True,
            )
            with open(path, "rb") as f:
                return f.read()

        points = convert("fornminnen", "points.pmtiles", records=list(range(6)))
        seeds["points-z12.pmtiles"] = points
        seeds["lines-z12.pmtiles"] = convert("vagar", "lines.pmtiles", records=[0])
        seeds["polygons-z12.pmtiles"] = convert("avdelningar", "polygons.pmtiles", records=[0, 1])
        mb = convert("fornminnen", "points.mbtiles", records=[0, 1])
        db = sqlite3.connect(os.path.join(tmp, "points.mbtiles"))
        tile = db.execute("SELECT tile_data FROM tiles ORDER BY zoom_level, tile_column, tile_row LIMIT 1").fetchone()[0]
        db.close()
        if len(mb) <= 40 * 1024:
            seeds["points-z12.mbtiles"] = mb
        seeds["tile.mvt.gz"] = bytes(tile)
        raw = gzip.decompress(bytes(tile))
        seeds["tile.mvt"] = raw
        # Broken variants.
        seeds["points-truncated.pmtiles"] = points[: len(points) // 2]
        seeds["points-header-only.pmtiles"] = points[:127]
        root_off = struct.unpack("<Q", points[8:16])[0]
        seeds["points-root-offset-lies.pmtiles"] = patch(points, 8, struct.pack("<Q", root_off + 3))
        seeds["points-uncompressed-flags.pmtiles"] = patch(points, 97, b"\x01\x01")
        plain = uncompressed_pmtiles(points)
        seeds["points-plain-directory.pmtiles"] = plain
        seeds["lines-plain-directory.pmtiles"] = uncompressed_pmtiles(seeds["lines-z12.pmtiles"])
        seeds["tile-truncated.mvt"] = raw[: len(raw) * 2 // 3]
        seeds["tile-truncated.mvt.gz"] = bytes(tile)[:-6]
    finally:
        shutil.rmtree(tmp)
    return seeds


def uncompressed_pmtiles(data):
    """The archive with its directories and metadata stored without compression (internal compression 1) and
    its tiles gunzipped (tile compression 1), so that mutations reach directory varints and MVT bytes directly."""
    fields = list(struct.unpack("<8Q", data[8:72]))
    root_off, root_len, meta_off, meta_len, leaf_off, leaf_len, data_off, data_len = fields
    assert leaf_len == 0 and data[97] == 2 and data[98] == 2
    root = gzip.decompress(data[root_off : root_off + root_len])
    meta = gzip.decompress(data[meta_off : meta_off + meta_len])
    # Root directory: count, tile-id deltas, run lengths, lengths, offsets (offset+1 or 0 = contiguous).
    def varints(buf):
        out, v, shift = [], 0, 0
        for b in buf:
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                out.append(v)
                v, shift = 0, 0
        return out
    def enc(v):
        out = b""
        while True:
            b = v & 0x7F
            v >>= 7
            if v:
                out += bytes([b | 0x80])
            else:
                return out + bytes([b])
    nums = varints(root)
    n = nums[0]
    ids, runs, lens, offs = nums[1 : 1 + n], nums[1 + n : 1 + 2 * n], nums[1 + 2 * n : 1 + 3 * n], nums[1 + 3 * n : 1 + 4 * n]
    abs_offs = []
    for k in range(n):
        abs_offs.append(abs_offs[k - 1] + lens[k - 1] if offs[k] == 0 else offs[k] - 1)
    tiles, new_lens, new_offs, pos, seen = b"", [], [], 0, {}
    for k in range(n):
        blob = gzip.decompress(data[data_off + abs_offs[k] : data_off + abs_offs[k] + lens[k]])
        if abs_offs[k] in seen:
            new_offs.append(seen[abs_offs[k]][0] + 1)
            new_lens.append(seen[abs_offs[k]][1])
            continue
        seen[abs_offs[k]] = (pos, len(blob))
        new_offs.append(pos + 1)
        new_lens.append(len(blob))
        tiles += blob
        pos += len(blob)
    root = enc(n) + b"".join(enc(v) for v in ids + runs + new_lens + new_offs)
    header = bytearray(data[:127])
    root_off = 127
    meta_off = root_off + len(root)
    data_off = meta_off + len(meta)
    header[8:72] = struct.pack("<8Q", root_off, len(root), meta_off, len(meta), data_off, 0, data_off, len(tiles))
    header[97:99] = b"\x01\x01"
    return bytes(header) + root + meta + tiles


def zip_seeds():
    """Zip archives as exports arrive; fixed timestamps so the bytes are the same on every run."""
    import io
    import zipfile

    def archive(entries, compression=zipfile.ZIP_DEFLATED, comment=b""):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", compression=compression) as z:
            z.comment = comment
            for name, data in entries:
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = compression
                info.external_attr = 0o644 << 16
                z.writestr(info, data)
        return buf.getvalue()

    layer = []
    for ext in ("shp", "shx", "dbf", "prj", "cpg"):
        with open(os.path.join(FOREST, f"fornminnen.{ext}"), "rb") as f:
            layer.append((f"fornminnen.{ext}", f.read()))
    seeds = {
        "deflated.zip": archive(layer),
        "stored.zip": archive(layer, zipfile.ZIP_STORED),
        "folders.zip": archive([(f"Export/Data/{n}", d) for n, d in layer], comment=b"export"),
        "mixed-case.zip": archive([(n.replace("fornminnen", "Fornminnen").replace(".dbf", ".DBF"), d) for n, d in layer]),
        "nested.zip": archive(layer[:2] + [("inner.zip", archive(layer[2:]))]),
        "traversal.zip": archive([("../evil.shp", layer[0][1]), ("/abs.dbf", layer[2][1]), ("a/../../b.shx", layer[1][1])]),
    }
    # A data descriptor (bit 3), as streaming writers produce: written through a non-seekable stream.
    class Stream(io.RawIOBase):
        def __init__(self):
            self.data = bytearray()
        def writable(self):
            return True
        def write(self, b):
            self.data += b
            return len(b)
    stream = Stream()
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in layer:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w") as w:
                w.write(data)
    seeds["data-descriptor.zip"] = bytes(stream.data)
    seeds["truncated.zip"] = seeds["deflated.zip"][: len(seeds["deflated.zip"]) // 2]
    seeds["no-central-directory.zip"] = seeds["stored.zip"][: seeds["stored.zip"].rfind(b"PK\x01\x02")]
    return seeds


# ---------------------------------------------------------------------------------------------------- pipeline

PIPELINE_MINIMAL = (
    '{"version": 1, "sources": [{"path": "a.shp", "layer": "a"}], "tiles": {"minZoom": 0, "maxZoom": 6},\n'
    ' "output": {"format": "pmtiles", "path": "out.pmtiles"}}\n'
)


def pipeline_seeds():
    seeds = {}
    folder = os.path.join(ROOT, "Pipelines")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), "rb") as f:
                seeds["sample-" + name] = f.read()
    m = PIPELINE_MINIMAL
    seeds["minimal.json"] = m.encode()
    full = (
        '{\n  "version": 1,\n  "sources": [\n'
        '    {"path": "../data/roads.shp", "layer": "roads", "filter": "[KLASS <= 2][NAME =~ \\"^E[0-9]+$\\"]",\n'
        '     "keep": ["NAME", "KLASS"], "rename": {"KLASS": "class"}, "minZoom": 4, "maxZoom": 12,\n'
        '     "idField": "ID", "idPolicy": "skip", "crs": "EPSG:3006", "encoding": "CP1252"},\n'
        '    {"path": "points.shp", "layer": "points"}\n  ],\n'
        '  "style": "style.kss",\n'
        '  "clip": {"bbox": [17.5, 59.0, 18.5, 59.5], "buffer": 0.01},\n'
        '  "tiles": {"minZoom": 2, "maxZoom": 14},\n'
        '  "output": {"format": "mbtiles", "path": "out.mbtiles", "name": "N", "description": "D",\n'
        '             "attribution": "A", "force": true}\n}\n'
    )
    seeds["all-sections.json"] = full.encode()
    seeds["clip-file.json"] = m.replace(
        '"tiles"', '"clip": {"path": "area.shp", "filter": "[NAME = \\"x\\"]", "buffer": 5}, "tiles"').encode()
    seeds["regions.json"] = m.replace(
        '"tiles"', '"regions": {"path": "regions.shp", "idField": "ID", "nameField": "NAME", "folder": "out"}, '
        '"tiles"').encode()
    seeds["bom.json"] = b"\xef\xbb\xbf" + m.encode()
    seeds["syntax-trailing-comma.json"] = m.replace("}}", "},}").encode()
    seeds["syntax-unterminated.json"] = m[: len(m) // 2].encode()
    seeds["syntax-comment.json"] = ("// plan\n" + m).encode()
    seeds["unknown-keys.json"] = m.replace('"minZoom"', '"minzom"').replace('"layer"', '"lyer"').encode()
    seeds["duplicate-keys.json"] = m.replace('"version": 1', '"version": 1, "version": 2').encode()
    seeds["wrong-types.json"] = m.replace('"minZoom": 0', '"minZoom": "0"').replace('"a.shp"', "7").encode()
    seeds["ranges.json"] = m.replace('"maxZoom": 6', '"maxZoom": 99').replace('"minZoom": 0', '"minZoom": -1').encode()
    seeds["bad-filter.json"] = m.replace('"layer": "a"', '"layer": "a", "filter": "[a =~ \\"(\\"][b <"').encode()
    seeds["nul-path.json"] = m.replace("out.pmtiles", "out\\u0000.pmtiles").encode()
    seeds["empty.json"] = b""
    seeds["not-object.json"] = b"[1, 2, 3]\n"
    seeds["deep.json"] = b"[" * 80 + b"]" * 80
    seeds["lone-surrogate.json"] = m.replace('"a"', '"\\ud800"').encode()
    return seeds


# ---------------------------------------------------------------------------------------------------- stylesheet


def stylesheet_seeds():
    seeds = {}
    with open(os.path.join(ROOT, "SampleData", "forest.kss"), "rb") as f:
        seeds["forest.kss"] = f.read()
    seeds["filters.kss"] = (
        "/* one rule per filter kind */\n"
        "avdelningar[NAME] { class: named; }\n"
        "avdelningar[TYP = null] { class: untyped; }\n"
        "avdelningar[KLASS = 2], vagar[KLASS != 3] { class: two; min-zoom: 4; max-zoom: 12; }\n"
        "vagar[KLASS < 4][KLASS >= 1][AREA > 0.5][AREA <= 1e300] { stroke: #336699; stroke-width: 2; }\n"
        "fastigheter[AGARE ^= \"Skog\"][AGARE $= 'AB'][NAME *= \":\"] { fill: rgba(10, 20, 30, 0.5); }\n"
        "* [zoom >= 12] { keep: NAME, TYP; }\n"
        "[\"zoom\" = 3] { exclude: true; }\n"
        "avdelningar[CERTIFIER = false] { fill-pattern: hatch; pattern-color: red; }\n"
    ).encode()
    seeds["regex.kss"] = (
        "fastigheter[AGARE =~ \"( AB|ek\\\\. f\u00f6r\\\\.)$\"] { class: company; }\n"
        "avdelningar[NAME =~ \"^(a+)+$\"] { class: catastrophic; }\n"
        "avdelningar[NAME =~ \"(a|aa)*b\"] { class: alternation; }\n"
        "vagar[NAME =~ \"(?i)^e[0-9]{1,3}$\"] { class: european; }\n"
        "vagar[TYP =~ \"[^\\\\s]+\\\\d?.*\"] { class: classes; }\n"
        "fastigheter[NAME =~ \"\\\\p{L}+\"] { class: letters; }\n"
    ).encode()
    seeds["regex-refused.kss"] = (
        "a[x =~ \"(a)\\\\1\"] { class: backref; }\n"
        "a[x =~ \"(?=a)\"] { class: lookahead; }\n"
        "a[x =~ \"a++\"] { class: possessive; }\n"
        "a[x =~ \"(\"] { class: unbalanced; }\n"
        "a[x =~ \"a{99999}\"] { class: huge; }\n"
    ).encode()
    seeds["descendant.kss"] = (
        "kommuner[NAME = \"V\u00e4nn\u00e4s\"] avdelningar[BESTTYP = \"Myr\"] { class: wet; }\n"
        "kommuner fastigheter vagar { stroke: black; }\n"
    ).encode()
    seeds["examples.kss"] = (
        "@map { background: #eeeeee; }\n"
        "vagar[KLASS <= 2] { class: main; }\n"
        "@example vagar { KLASS: 1; expect-class: main; }\n"
        "@example vagar { KLASS: 5; zoom: 3; expect-class: none; }\n"
    ).encode()
    seeds["errors.kss"] = (
        "avdelningar[ { class: x; }\n"
        "vagar[KLASS <> 2] { nosuchproperty: 3; }\n"
        "fastigheter { fill: notacolor; stroke-width: -1; min-zoom: 40; }\n"
        "\"unterminated\n"
        "/* unclosed comment\n"
    ).encode()
    seeds["strings.kss"] = (
        "a[n = \"\\u00e4\\u{1F332}\\n\\t\\\\\\\"\\'\\/\"] { class: escaped; }\n"
        "a[n = 'single'] { class: s; }\r\nb[n = -2.5e-3] { class: num; }\rc[n = .5] { class: dot; }\n"
    ).encode()
    seeds["empty.kss"] = b""
    return seeds


def geopackage_seeds():
    """GeoPackage geometry blobs (every envelope kind, both byte orders, 2D/Z/M/ZM in ISO and EWKB codes, Multi*,
    nested collections, an empty point) with broken variants (bad magic, huge counts, deep nesting, curves), and one
    small whole .gpkg of two feature tables written with Python's sqlite3 (deterministic bytes)."""
    import sqlite3
    import struct
    import tempfile

    def wkb(t, body, little=True):
        return (b"\x01" if little else b"\x00") + struct.pack("<I" if little else ">I", t) + body

    def pts(xy, dims=2):
        return b"".join(struct.pack("<" + "d" * dims, x, y, *([0.0] * (dims - 2))) for x, y in xy)

    def line(xy, t=2, dims=2):
        return wkb(t, struct.pack("<I", len(xy)) + pts(xy, dims))

    def poly(rings, t=3, dims=2):
        return wkb(t, struct.pack("<I", len(rings)) + b"".join(struct.pack("<I", len(r)) + pts(r, dims) for r in rings))

    def multi(t, members):
        return wkb(t, struct.pack("<I", len(members)) + b"".join(members))

    def blob(w, srs=4326, env=0, empty=False, little=True):
        flags = (env << 1) | (0x10 if empty else 0) | (1 if little else 0)
        return b"GP\x00" + bytes([flags]) + struct.pack("<i" if little else ">i", srs) + bytes([0, 32, 48, 48, 64][env]) + w

    square = [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)]
    hole = [(2, 2), (4, 2), (4, 4), (2, 4), (2, 2)]
    seeds = {
        "point.bin": blob(wkb(1, pts([(18.5, 59.3)]))),
        "point-big-endian.bin": blob(b"\x00" + struct.pack(">I", 1) + struct.pack(">dd", 18.5, 59.3), little=False),
        "point-zm-envelope4.bin": blob(wkb(3001, pts([(1, 2)], 4)), env=4),
        "point-ewkb-srid.bin": blob(wkb(0xA0000001, struct.pack("<I", 4326) + pts([(1, 2)], 3))),
        "point-empty.bin": blob(wkb(1, struct.pack("<dd", float("nan"), float("nan"))), empty=True),
        "line-z.bin": blob(line([(0, 0), (1, 1), (1, 1), (2, 0)], 1002, 3), env=2),
        "polygon-m-hole.bin": blob(poly([square, hole], 2003, 3), env=3),
        "multipolygon.bin": blob(multi(6, [poly([square]), poly([[(x + 20, y) for x, y in square]])]), env=1),
        "multilinestring.bin": blob(multi(5, [line([(0, 0), (1, 1)]), line([(2, 2), (3, 3)])])),
        "collection-nested.bin": blob(multi(7, [multi(7, [wkb(1, pts([(1, 1)]))]), wkb(1, pts([(2, 2)]))])),
        "collection-mixed.bin": blob(multi(7, [wkb(1, pts([(1, 1)])), poly([square])])),
        "huge-count.bin": blob(wkb(2, struct.pack("<I", 0x7FFFFFFF) + pts([(1, 1)]))),
        "bad-magic.bin": b"XP" + blob(wkb(1, pts([(1, 2)])))[2:],
        "curve.bin": blob(line([(0, 0), (1, 1), (2, 0)], 8)),
    }
    deep = wkb(1, pts([(1, 1)]))
    for _ in range(40):
        deep = multi(7, [deep])
    seeds["deep-nesting.bin"] = blob(deep)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.gpkg")
        db = sqlite3.connect(path)
        db.executescript(
            "PRAGMA application_id = 1196444487; PRAGMA page_size = 1024;"
            "CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT, srs_id INTEGER PRIMARY KEY, organization TEXT,"
            " organization_coordsys_id INTEGER, definition TEXT, description TEXT);"
            "INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'undefined', NULL);"
            "CREATE TABLE gpkg_contents (table_name TEXT PRIMARY KEY, data_type TEXT, identifier TEXT, description TEXT,"
            " last_change TEXT, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);"
            "CREATE TABLE gpkg_geometry_columns (table_name TEXT, column_name TEXT, geometry_type_name TEXT,"
            " srs_id INTEGER, z TINYINT, m TINYINT);"
            "INSERT INTO gpkg_contents (table_name, data_type) VALUES ('pts', 'features'), ('x\"; DROP', 'features');"
            "INSERT INTO gpkg_geometry_columns VALUES ('pts', 'geom', 'POINT', 4326, 0, 0),"
            " ('x\"; DROP', 'geom', 'GEOMETRY', 4326, 0, 0);"
            "CREATE TABLE pts (fid INTEGER PRIMARY KEY, geom BLOB, name TEXT, n INTEGER, ok BOOLEAN, d DATE);"
            "CREATE TABLE \"x\"\"; DROP\" (fid INTEGER PRIMARY KEY, geom BLOB, v REAL);")
        for k, (name, b) in enumerate(sorted(seeds.items())):
            db.execute("INSERT INTO pts VALUES (?, ?, ?, ?, ?, ?)", (k + 1, b, name, k, k % 2, "2024-02-29"))
        db.execute("INSERT INTO \"x\"\"; DROP\" VALUES (1, ?, 1.5)", (seeds["multipolygon.bin"],))
        db.commit()
        db.close()
        with open(path, "rb") as f:
            seeds["two-tables.gpkg"] = f.read()
    return seeds


def write(folder, seeds):
    path = os.path.join(OUT, folder)
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    for name, data in sorted(seeds.items()):
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    print(f"{path}: {len(seeds)} seeds, {sum(len(d) for d in seeds.values())} bytes")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    write("shapefile", shapefile_seeds())
    write("package", package_seeds(sys.argv[1]))
    write("zip", zip_seeds())
    write("pipeline", pipeline_seeds())
    write("stylesheet", stylesheet_seeds())
    write("geopackage", geopackage_seeds())


if __name__ == "__main__":
    main()
