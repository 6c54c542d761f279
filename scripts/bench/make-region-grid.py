#!/usr/bin/env python3
"""Writes a grid of square regions over a Shapefile's extent, for the `kartpack package` benchmark (numpy).

The extent is the bounding box in the .shp header of COVER (e.g. the stands of make-stands.py, SWEREF 99 TM); it is
cut into GRID × GRID squares, one polygon record each, with attributes RID (`r0001`, …, a safe region id) and NAMN.

    make-region-grid.py --cover DIR/stands.shp --grid 32 --out DIR/regions   # 1,024 regions
"""
import argparse
import struct

import numpy as np

from shpwrite import SHAPE_POLYGON, SWEREF99_TM, Field, ShapefileWriter, text_column


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cover", required=True, help="the .shp whose extent the grid covers")
    p.add_argument("--grid", type=int, required=True, help="squares per side")
    p.add_argument("--out", required=True, help="output base name (without .shp)")
    a = p.parse_args()
    with open(a.cover, "rb") as f:
        x0, y0, x1, y1 = struct.unpack("<4d", f.read(100)[36:68])
    n = a.grid
    xs, ys = np.linspace(x0, x1, n + 1), np.linspace(y0, y1, n + 1)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    i, j = i.ravel(), j.ravel()
    # Outer rings clockwise (Shapefile convention), closed: 5 points each.
    ring = np.stack([
        np.stack([xs[i], ys[j]], 1), np.stack([xs[i], ys[j + 1]], 1), np.stack([xs[i + 1], ys[j + 1]], 1),
        np.stack([xs[i + 1], ys[j]], 1), np.stack([xs[i], ys[j]], 1)], 1)
    k = n * n
    ids = [f"r{r + 1:04d}" for r in range(k)]
    w = ShapefileWriter(a.out, SHAPE_POLYGON, [Field("RID", "C", 8), Field("NAMN", "C", 20)], SWEREF99_TM)
    w.write(np.ones(k, int), np.full(k, 5), ring.reshape(-1, 2), {
        "RID": text_column(np.arange(k), ids, 8, "latin-1"),
        "NAMN": text_column(np.arange(k), [f"Ruta {s[1:]}" for s in ids], 20, "latin-1"),
    })
    w.close()
    print(f"make-region-grid: {k} regions of {(x1 - x0) / n:.0f} x {(y1 - y0) / n:.0f} m")


if __name__ == "__main__":
    main()
