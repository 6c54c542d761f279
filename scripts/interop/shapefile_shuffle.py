"""Writes a Shapefile set with its records in another order: a GIS re-export of the same data (issue 37).

Every record is copied byte for byte (.shp geometry, .dbf row); only the order changes, the .shp record numbers
are renumbered and the .shx offsets rewritten. .prj and .cpg are copied. The permutation is fixed by `seed`
(Python's `random.Random`, stable across versions for `shuffle` of a list of ints), so the test is repeatable.

    shuffle_shapefile(pathlib.Path("in/stands.shp"), pathlib.Path("out/stands.shp"), seed=1)
"""
import pathlib
import random
import shutil
import struct


def _shp_records(data: bytes) -> list:
    records, at = [], 100
    while at < len(data):
        _, words = struct.unpack(">ii", data[at:at + 8])
        records.append(data[at + 8:at + 8 + 2 * words])
        at += 8 + 2 * words
    return records


def permutation(count: int, seed: int) -> list:
    """The order the records are written in: `order[k]` is the source record written k-th."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return order


def shuffle_shapefile(src: pathlib.Path, dst: pathlib.Path, seed: int) -> list:
    """Writes `src` (a .shp with its .shx/.dbf/.prj/.cpg) to `dst` in a fixed pseudo-random record order; returns
    the permutation."""
    shp = src.read_bytes()
    records = _shp_records(shp)
    dbf = src.with_suffix(".dbf").read_bytes()
    count = struct.unpack("<I", dbf[4:8])[0]
    header_len, record_len = struct.unpack("<HH", dbf[8:12])
    assert count == len(records), f"{src}: {len(records)} shapes but {count} rows"
    rows = [dbf[header_len + i * record_len:header_len + (i + 1) * record_len] for i in range(count)]
    tail = dbf[header_len + count * record_len:]
    order = permutation(count, seed)

    out_shp, out_shx = bytearray(shp[:100]), bytearray(src.with_suffix(".shx").read_bytes()[:100])
    for number, i in enumerate(order, start=1):
        content = records[i]
        out_shx += struct.pack(">ii", len(out_shp) // 2, len(content) // 2)
        out_shp += struct.pack(">ii", number, len(content) // 2) + content
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(bytes(out_shp))
    dst.with_suffix(".shx").write_bytes(bytes(out_shx))
    dst.with_suffix(".dbf").write_bytes(dbf[:header_len] + b"".join(rows[i] for i in order) + tail)
    for ext in (".prj", ".cpg"):
        if src.with_suffix(ext).exists():
            shutil.copyfile(src.with_suffix(ext), dst.with_suffix(ext))
    return order
