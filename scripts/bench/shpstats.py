#!/usr/bin/env python3
"""Prints `FEATURES VERTICES` summed over the given .shp files (numpy; reads only the record headers).

Record offsets come from each .shx; a record's point count is read where the Shapefile spec puts it (after the
box and part count for PolyLine/Polygon/MultiPatch, after the box for MultiPoint; 1 for a Point, 0 for a
null shape). The benchmark's cost per input vertex divides by this count.

    shpstats.py in/stands/*.shp
"""
import os
import sys

import numpy as np

# Shape type -> byte offset of the point count inside the record content (None: fixed count).
POINTS_AT = {3: 40, 5: 40, 13: 40, 15: 40, 23: 40, 25: 40, 31: 40, 8: 36, 18: 36, 28: 36}
FIXED = {0: 0, 1: 1, 11: 1, 21: 1}


def count(shp):
    shx = os.path.splitext(shp)[0] + ".shx"
    if not os.path.exists(shx):
        shx = os.path.splitext(shp)[0] + ".SHX"
    index = np.fromfile(shx, dtype=">i4", offset=100).reshape(-1, 2)
    data = np.memmap(shp, dtype=np.uint8, mode="r")
    content = index[:, 0].astype(np.int64) * 2 + 8  # record content starts after the 8-byte record header
    if len(content) == 0:
        return 0, 0
    types = data[content[:, None] + np.arange(4)].copy().view("<i4").ravel()
    vertices = np.zeros(len(content), dtype=np.int64)
    for t in np.unique(types):
        sel = types == t
        if int(t) in FIXED:
            vertices[sel] = FIXED[int(t)]
        elif int(t) in POINTS_AT:
            at = content[sel] + POINTS_AT[int(t)]
            vertices[sel] = data[at[:, None] + np.arange(4)].copy().view("<i4").ravel()
        else:
            raise SystemExit(f"shpstats: {shp}: shape type {t} not supported")
    return len(content), int(vertices.sum())


def main():
    features = vertices = 0
    for shp in sys.argv[1:]:
        f, v = count(shp)
        features += f
        vertices += v
    print(features, vertices)


if __name__ == "__main__":
    main()
