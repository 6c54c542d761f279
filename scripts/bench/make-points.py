#!/usr/bin/env python3
"""Writes N random points (WGS 84, uniform in a box) as an ESRI Point Shapefile for the KartpackKit query
benchmark (numpy; deterministic: the same --count and --seed give the same bytes). One numeric field, RANK
(a random 0…999,999), for `--priority`.

    make-points.py --count 1000000 --out DIR/points --box 19,63.5,20,64.5   # DIR/points.shp/.shx/.dbf/.prj
"""
import argparse

import numpy as np

WGS84 = ('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
         'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')


def header(length_bytes, box):
    h = np.zeros(100, dtype=np.uint8)
    h[0:4] = np.frombuffer(np.array([9994], ">i4").tobytes(), np.uint8)
    h[24:28] = np.frombuffer(np.array([length_bytes // 2], ">i4").tobytes(), np.uint8)
    h[28:36] = np.frombuffer(np.array([1000, 1], "<i4").tobytes(), np.uint8)
    h[36:68] = np.frombuffer(np.array(box, "<f8").tobytes(), np.uint8)
    return h.tobytes()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--box", default="19,63.5,20,64.5")
    a = ap.parse_args()
    w, s, e, n = map(float, a.box.split(","))
    rng = np.random.default_rng(a.seed)
    k = a.count
    x = rng.uniform(w, e, k)
    y = rng.uniform(s, n, k)
    rank = rng.integers(0, 1_000_000, k)
    rec = np.zeros(k, dtype=[("num", ">i4"), ("len", ">i4"), ("type", "<i4"), ("x", "<f8"), ("y", "<f8")])
    rec["num"] = np.arange(1, k + 1)
    rec["len"] = 10
    rec["type"] = 1
    rec["x"], rec["y"] = x, y
    box = [x.min(), y.min(), x.max(), y.max()]
    with open(a.out + ".shp", "wb") as f:
        f.write(header(100 + 28 * k, box) + rec.tobytes())
    idx = np.zeros(k, dtype=[("off", ">i4"), ("len", ">i4")])
    idx["off"] = (100 + 28 * np.arange(k)) // 2
    idx["len"] = 10
    with open(a.out + ".shx", "wb") as f:
        f.write(header(100 + 8 * k, box) + idx.tobytes())
    # dBASE III: one N(7,0) field RANK.
    dbf_head = bytearray(32 + 32 + 1)
    dbf_head[0] = 3
    dbf_head[1:4] = bytes([126, 12, 1])
    dbf_head[4:8] = k.to_bytes(4, "little")
    dbf_head[8:10] = (32 + 32 + 1).to_bytes(2, "little")
    dbf_head[10:12] = (1 + 7).to_bytes(2, "little")
    dbf_head[32:36] = b"RANK"
    dbf_head[43] = ord("N")
    dbf_head[48] = 7
    dbf_head[64] = 0x0D
    rows = np.char.rjust(rank.astype("U7"), 7)
    body = np.char.add(" ", rows).astype("S8").tobytes()
    with open(a.out + ".dbf", "wb") as f:
        f.write(bytes(dbf_head) + body + b"\x1a")
    with open(a.out + ".prj", "w") as f:
        f.write(WGS84)


if __name__ == "__main__":
    main()
