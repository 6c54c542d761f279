"""Writes ESRI Shapefiles (.shp, .shx, .dbf, .prj, .cpg) straight from numpy arrays, chunk by chunk.

Used by the benchmark generators (make-stands.py, make-roads.py) so that a million records take seconds, not
the minutes a record-by-record writer needs. Only what the generators use: PolyLine (3) and Polygon (5) records
with parts, and a dBASE III table of `C` (text, one fixed encoding) and `N` (number) fields. Records are written
in the order they are given; the output depends only on the arrays (no timestamps: the DBF date is fixed), so
the same input gives the same bytes.

    w = ShapefileWriter("out/stands", SHAPE_POLYGON, fields, prj=SWEREF99_TM, encoding="latin-1")
    w.write(part_counts, point_counts, coords, columns)   # any number of times
    w.close()
"""
import numpy as np

SHAPE_POLYLINE = 3
SHAPE_POLYGON = 5

SWEREF99_TM = (
    'PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",SPHEROID["GRS_1980",6378137.0,'
    '298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],'
    'PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],'
    'PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]'
)
WGS84 = (
    'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
    'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'
)
# .cpg text and DBF language-driver id per encoding (87 = ANSI/Latin-1 as GDAL writes it; 0 = none).
_CPG = {"latin-1": ("ISO-8859-1", 87), "utf-8": ("UTF-8", 0)}
# Record header (big-endian number and length) + shape type, box, part and point counts (little-endian).
_HEAD = np.dtype([("num", ">i4"), ("len", ">i4"), ("type", "<i4"), ("box", "<f8", (4,)),
                  ("parts", "<i4"), ("points", "<i4")])


class Field:
    """One DBF column: `Field("NAMN", "C", 30)` or `Field("AREAL", "N", 10, 2)`."""

    def __init__(self, name, kind, width, decimals=0):
        assert kind in ("C", "N") and len(name) <= 10 and name.isascii()
        self.name, self.kind, self.width, self.decimals = name, kind, width, decimals


def _scatter(buf, starts, data, item):
    """Copies `data` (k items of `item` bytes each) into `buf` at byte offsets `starts`."""
    if len(starts):
        buf[(starts[:, None] + np.arange(item)).ravel()] = data.view(np.uint8).reshape(-1)


def text_column(values, table, width, encoding):
    """A `C` column from indices into `table` (strings): fixed-width, space-padded bytes."""
    enc = np.array([s.encode(encoding)[:width].ljust(width) for s in table], dtype=f"S{width}")
    return enc[np.asarray(values)]


def number_column(values, width, decimals=0, null=None):
    """An `N` column: right-aligned numbers (`decimals` places), blanks where `null` is True."""
    v = np.asarray(values)
    if decimals:
        scaled = np.rint(v * 10 ** decimals).astype(np.int64)
        sign = np.where(scaled < 0, "-", "")
        a = np.abs(scaled)
        frac = np.char.zfill((a % 10 ** decimals).astype("U"), decimals)
        s = np.char.add(np.char.add(np.char.add(sign, (a // 10 ** decimals).astype("U")), "."), frac)
    else:
        s = v.astype(np.int64).astype("U")
    s = np.char.rjust(s, width)
    if null is not None:
        s = np.where(null, " " * width, s)
    out = np.char.encode(s, "ascii")
    if out.dtype.itemsize > width:
        raise ValueError(f"a number is wider than its field ({width})")
    return out.astype(f"S{width}")


class ShapefileWriter:
    def __init__(self, base, shape_type, fields, prj, encoding="latin-1"):
        self.base, self.type, self.fields, self.encoding = base, shape_type, fields, encoding
        self.shp = open(base + ".shp", "wb")
        self.shx = open(base + ".shx", "wb")
        self.dbf = open(base + ".dbf", "wb")
        self.shp.write(bytes(100))
        self.shx.write(bytes(100))
        self.dbf.write(bytes(32 + 32 * len(fields) + 1))
        self.count = 0
        self.vertices = 0
        self.offset = 100  # bytes written to .shp so far
        self.box = [np.inf, np.inf, -np.inf, -np.inf]
        self.rec = np.dtype([("deleted", "S1")] + [(f.name, f"S{f.width}") for f in fields])
        cpg, self.ldid = _CPG[encoding]
        with open(base + ".prj", "w", encoding="ascii") as f:
            f.write(prj)
        with open(base + ".cpg", "w", encoding="ascii") as f:
            f.write(cpg)

    def write(self, part_counts, point_counts, coords, columns):
        """Appends k records. part_counts[k]: parts per record; point_counts[p]: points per part (all records'
        parts in order); coords: (sum(point_counts), 2) float64 x/y; columns: {field name: k fixed bytes}."""
        part_counts = np.asarray(part_counts, dtype=np.int64)
        point_counts = np.asarray(point_counts, dtype=np.int64)
        coords = np.ascontiguousarray(coords, dtype="<f8")
        k, nparts, npts = len(part_counts), len(point_counts), len(coords)
        assert part_counts.sum() == nparts and point_counts.sum() == npts and k > 0
        rec_of_part = np.repeat(np.arange(k), part_counts)
        rec_points = np.bincount(rec_of_part, weights=point_counts, minlength=k).astype(np.int64)
        first_part = np.concatenate(([0], np.cumsum(part_counts)[:-1]))
        first_point = np.concatenate(([0], np.cumsum(rec_points)[:-1]))
        part_start = np.concatenate(([0], np.cumsum(point_counts)[:-1]))  # global point index of each part

        content = 44 + 4 * part_counts + 16 * rec_points
        size = 8 + content
        starts = np.concatenate(([0], np.cumsum(size)[:-1]))
        buf = np.zeros(int(size.sum()), dtype=np.uint8)

        head = np.zeros(k, dtype=_HEAD)
        head["num"] = np.arange(self.count + 1, self.count + k + 1)
        head["len"] = content // 2
        head["type"] = self.type
        x, y = coords[:, 0], coords[:, 1]
        head["box"][:, 0] = np.minimum.reduceat(x, first_point)
        head["box"][:, 1] = np.minimum.reduceat(y, first_point)
        head["box"][:, 2] = np.maximum.reduceat(x, first_point)
        head["box"][:, 3] = np.maximum.reduceat(y, first_point)
        head["parts"] = part_counts
        head["points"] = rec_points
        _scatter(buf, starts, head, _HEAD.itemsize)

        local_part = np.arange(nparts) - np.repeat(first_part, part_counts)
        part_index = (part_start - np.repeat(first_point, part_counts)).astype("<i4")
        _scatter(buf, starts[rec_of_part] + 52 + 4 * local_part, part_index, 4)

        rec_of_point = np.repeat(np.arange(k), rec_points)
        local_point = np.arange(npts) - np.repeat(first_point, rec_points)
        _scatter(buf, starts[rec_of_point] + 52 + 4 * part_counts[rec_of_point] + 16 * local_point, coords, 16)
        self.shp.write(buf.tobytes())

        idx = np.zeros(k, dtype=[("off", ">i4"), ("len", ">i4")])
        idx["off"] = (self.offset + starts) // 2
        idx["len"] = content // 2
        self.shx.write(idx.tobytes())

        rows = np.zeros(k, dtype=self.rec)
        rows["deleted"] = b" "
        for f in self.fields:
            col = np.asarray(columns[f.name])
            assert col.dtype == np.dtype(f"S{f.width}") and len(col) == k, f.name
            rows[f.name] = col
        self.dbf.write(rows.tobytes())

        self.offset += int(size.sum())
        self.count += k
        self.vertices += npts
        b = head["box"]
        self.box = [min(self.box[0], b[:, 0].min()), min(self.box[1], b[:, 1].min()),
                    max(self.box[2], b[:, 2].max()), max(self.box[3], b[:, 3].max())]

    def _main_header(self, length_bytes):
        h = np.zeros(1, dtype=[("code", ">i4"), ("unused", ">i4", (5,)), ("len", ">i4"), ("version", "<i4"),
                               ("type", "<i4"), ("box", "<f8", (4,)), ("zm", "<f8", (4,))])
        h["code"], h["len"], h["version"], h["type"] = 9994, length_bytes // 2, 1000, self.type
        h["box"] = self.box
        return h.tobytes()

    def close(self):
        self.shp.seek(0)
        self.shp.write(self._main_header(self.offset))
        self.shx.seek(0)
        self.shx.write(self._main_header(100 + 8 * self.count))
        self.dbf.write(b"\x1a")
        self.dbf.seek(0)
        head = np.zeros(1, dtype=[("version", "u1"), ("date", "u1", (3,)), ("records", "<u4"),
                                  ("header", "<u2"), ("record", "<u2"), ("reserved", "u1", (17,)),
                                  ("ldid", "u1"), ("reserved2", "u1", (2,))])
        head["version"], head["date"], head["records"] = 3, (126, 1, 1), self.count  # 2026-01-01, fixed
        head["header"], head["record"], head["ldid"] = 32 + 32 * len(self.fields) + 1, self.rec.itemsize, self.ldid
        self.dbf.write(head.tobytes())
        for f in self.fields:
            d = np.zeros(1, dtype=[("name", "S11"), ("kind", "S1"), ("addr", "<u4"), ("width", "u1"),
                                   ("decimals", "u1"), ("reserved", "u1", (14,))])
            d["name"], d["kind"], d["width"], d["decimals"] = f.name.encode("ascii"), f.kind.encode(), f.width, \
                f.decimals
            self.dbf.write(d.tobytes())
        self.dbf.write(b"\r")
        for f in (self.shp, self.shx, self.dbf):
            f.close()
