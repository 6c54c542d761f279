"""Edits a Shapefile set the way a GIS edits a forest plan between two nightly exports (issue 37, incremental
`run`): one record's attribute changed, a record moved, deleted or added; every other record is copied byte for
byte, so only the edited features differ from the night before.

    s = ShapefileSet.load(pathlib.Path("night/avdelningar.shp"))
    s.set_field(7, "AREAL", "12.5")
    s.move(8, 20.0, -15.0)
    s.delete(9)
    s.append_copy(10, dx=3000.0, dy=0.0, fields={"OBJID": "99999"})
    s.save(pathlib.Path("night/avdelningar.shp"))
"""
import pathlib
import shutil
import struct


class ShapefileSet:
    def __init__(self, src, shp_header, shx_header, records, dbf_header, rows, tail, fields):
        self.src, self.shp_header, self.shx_header = src, shp_header, shx_header
        self.records, self.dbf_header, self.rows, self.tail, self.fields = records, dbf_header, rows, tail, fields

    @classmethod
    def load(cls, src: pathlib.Path) -> "ShapefileSet":
        shp = src.read_bytes()
        records, at = [], 100
        while at < len(shp):
            _, words = struct.unpack(">ii", shp[at:at + 8])
            records.append(bytearray(shp[at + 8:at + 8 + 2 * words]))
            at += 8 + 2 * words
        dbf = src.with_suffix(".dbf").read_bytes()
        count = struct.unpack("<I", dbf[4:8])[0]
        header_len, record_len = struct.unpack("<HH", dbf[8:12])
        fields, offset, at = {}, 1, 32
        while dbf[at] != 0x0D:
            name = dbf[at:at + 11].split(b"\0")[0].decode("ascii")
            fields[name] = (offset, dbf[at + 16])
            offset += dbf[at + 16]
            at += 32
        rows = [bytearray(dbf[header_len + i * record_len:header_len + (i + 1) * record_len]) for i in range(count)]
        assert len(rows) == len(records), f"{src}: {len(records)} shapes but {count} rows"
        return cls(src, shp[:100], src.with_suffix(".shx").read_bytes()[:100], records, bytearray(dbf[:header_len]),
                   rows, dbf[header_len + count * record_len:], fields)

    def field(self, i: int, name: str) -> str:
        offset, width = self.fields[name]
        return self.rows[i][offset:offset + width].decode("latin-1").strip()

    def set_field(self, i: int, name: str, value: str):
        """Sets a field of row `i` (right-aligned numbers, left-aligned text, as dBASE writes them)."""
        offset, width = self.fields[name]
        text = value.encode("latin-1")
        assert len(text) <= width, f"{value!r} is wider than {name} ({width})"
        numeric = self.rows[i][offset:offset + width].strip()[:1] in b"-0123456789" and value[:1] in "-0123456789"
        self.rows[i][offset:offset + width] = text.rjust(width) if numeric else text.ljust(width)

    def move(self, i: int, dx: float, dy: float):
        """Moves record `i` (a polygon, polyline or point record) by dx, dy."""
        content = self.records[i]
        shape = struct.unpack("<i", content[:4])[0]
        if shape in (1, 11, 21):
            x, y = struct.unpack("<2d", content[4:20])
            content[4:20] = struct.pack("<2d", x + dx, y + dy)
            return
        assert shape in (3, 5, 13, 15, 23, 25), f"shape type {shape}"
        x0, y0, x1, y1 = struct.unpack("<4d", content[4:36])
        content[4:36] = struct.pack("<4d", x0 + dx, y0 + dy, x1 + dx, y1 + dy)
        parts, points = struct.unpack("<2i", content[36:44])
        at = 44 + 4 * parts
        for k in range(points):
            x, y = struct.unpack("<2d", content[at + 16 * k:at + 16 * k + 16])
            content[at + 16 * k:at + 16 * k + 16] = struct.pack("<2d", x + dx, y + dy)

    def delete(self, i: int):
        del self.records[i]
        del self.rows[i]

    def append_copy(self, i: int, dx: float, dy: float, fields: dict):
        """Adds a copy of record `i` moved by dx, dy with some fields changed (a new stand)."""
        self.records.append(bytearray(self.records[i]))
        self.rows.append(bytearray(self.rows[i]))
        self.move(len(self.records) - 1, dx, dy)
        for name, value in fields.items():
            self.set_field(len(self.rows) - 1, name, value)

    def _bounds(self):
        boxes = []
        for content in self.records:
            shape = struct.unpack("<i", content[:4])[0]
            if shape == 0:
                continue
            if shape in (1, 11, 21):
                x, y = struct.unpack("<2d", content[4:20])
                boxes.append((x, y, x, y))
            else:
                boxes.append(struct.unpack("<4d", content[4:36]))
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))

    def save(self, dst: pathlib.Path):
        """Writes the set to `dst` (.shp, .shx, .dbf; .prj and .cpg copied when `dst` is elsewhere)."""
        shp, shx = bytearray(self.shp_header), bytearray(self.shx_header)
        for number, content in enumerate(self.records, start=1):
            shx += struct.pack(">ii", len(shp) // 2, len(content) // 2)
            shp += struct.pack(">ii", number, len(content) // 2) + content
        box = struct.pack("<4d", *self._bounds())
        for data in (shp, shx):
            data[24:28] = struct.pack(">i", len(data) // 2)
            data[36:68] = box
        dbf = bytearray(self.dbf_header)
        dbf[4:8] = struct.pack("<I", len(self.rows))
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(bytes(shp))
        dst.with_suffix(".shx").write_bytes(bytes(shx))
        dst.with_suffix(".dbf").write_bytes(bytes(dbf) + b"".join(self.rows) + self.tail)
        for ext in (".prj", ".cpg"):
            if self.src.with_suffix(ext).exists() and self.src.resolve() != dst.resolve():
                shutil.copyfile(self.src.with_suffix(ext), dst.with_suffix(ext))
