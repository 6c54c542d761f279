#!/usr/bin/env python3
"""Writes a synthetic forest-stand coverage as an ESRI Shapefile for the benchmarks (numpy; deterministic).

The stands tile a square region in SWEREF 99 TM (EPSG:3006) north-west of Vännäs exactly, like a real
forest-plan export: a jittered grid of ~150 m cells whose edges carry extra, slightly bent vertices; every edge
is shared by the two stands on either side with the same vertices (16 distinct vertices per stand). About 4% of
the stands have a wet island (a hole, an octagon) that is itself a separate `Myr` stand, so the layer still
tiles the region without gaps or overlaps. Attributes (DBF, Latin-1 with a .cpg, Swedish text): AVDNR (stand
number), BESTTYP, TRADSLAG, ALDER (age, 10% empty), AREAL (hectares, net of the hole), ATGARD (planned action).

The same --count and --seed give the same bytes (numpy's PCG64; tested with the pinned numpy). --count is the
number of grid cells (rounded down to a square); the islands come on top, so 1,000,000 gives 1,040,1xx stands.

    make-stands.py --count 1000000 --out DIR/stands      # DIR/stands.shp/.shx/.dbf/.prj/.cpg + stands.json
"""
import argparse
import json
import math
import sys
import time

import numpy as np

from shpwrite import SHAPE_POLYGON, SWEREF99_TM, Field, ShapefileWriter, number_column, text_column

CELL = 150.0                       # metres between grid vertices
ORIGIN = (700_000.0, 7_080_000.0)  # SWEREF 99 TM, north-west of Vännäs
EDGE_POINTS = 3                    # extra vertices on every cell edge
ISLAND_SHARE = 0.04
TYPES = ["Gran", "Tall", "Löv", "Blandskog", "Hygge", "Ungskog", "Sumpskog", "Myr"]  # last: islands only
SPECIES = ["Gran", "Tall", "Björk", "Asp", "Al", "Gran/Tall", "Tall/Björk", ""]
ACTIONS = ["", "Röjning", "Gallring", "Slutavverkning", "Föryngring", "Ingen åtgärd", "Naturvård",
           "Återväxtkontroll", "Hänsyn: kantzon mot myr"]
FIELDS = [Field("AVDNR", "N", 8), Field("BESTTYP", "C", 10), Field("TRADSLAG", "C", 12), Field("ALDER", "N", 3),
          Field("AREAL", "N", 10, 2), Field("ATGARD", "C", 24)]


def shoelace(x, y):
    """Signed areas of closed rings, one per row of x/y (counter-clockwise positive)."""
    return 0.5 * np.sum(x[:, :-1] * y[:, 1:] - x[:, 1:] * y[:, :-1], axis=1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000, help="grid stands (a square n x n grid)")
    ap.add_argument("--seed", type=int, default=20260101)
    ap.add_argument("--out", required=True, help="output path without extension")
    a = ap.parse_args()
    t0 = time.monotonic()

    n = max(2, math.isqrt(max(4, a.count)))
    rng = np.random.default_rng(a.seed)
    ox, oy = ORIGIN
    inner = np.zeros(n + 1, dtype=bool)
    inner[1:-1] = True
    # Grid vertices (n+1)^2, jittered up to 30% of a cell except on the border: vx[i, j], vy[i, j].
    vx = ox + np.arange(n + 1)[:, None] * CELL + rng.uniform(-0.3, 0.3, (n + 1, n + 1)) * CELL * inner[:, None]
    vy = oy + np.arange(n + 1)[None, :] * CELL + rng.uniform(-0.3, 0.3, (n + 1, n + 1)) * CELL * inner[None, :]
    t = (np.arange(1, EDGE_POINTS + 1) / (EDGE_POINTS + 1))[None, None, :]

    def bend(x0, y0, x1, y1, off):
        dx, dy = x1 - x0, y1 - y0
        length = np.hypot(dx, dy)
        px, py = (-dy / length)[..., None], (dx / length)[..., None]
        return x0[..., None] + dx[..., None] * t + px * off, y0[..., None] + dy[..., None] * t + py * off

    # Horizontal edges h[i, j]: (i,j) -> (i+1,j); vertical edges v[i, j]: (i,j) -> (i,j+1); no bend on the border.
    hoff = rng.uniform(-12.0, 12.0, (n, n + 1, EDGE_POINTS)) * inner[None, :, None]
    voff = rng.uniform(-12.0, 12.0, (n + 1, n, EDGE_POINTS)) * inner[:, None, None]
    hx, hy = bend(vx[:-1, :], vy[:-1, :], vx[1:, :], vy[1:, :], hoff)
    vxe, vye = bend(vx[:, :-1], vy[:, :-1], vx[:, 1:], vy[:, 1:], voff)
    btype = rng.integers(0, len(TYPES) - 1, (n, n))
    species = rng.integers(0, len(SPECIES), (n, n))
    age_null = rng.random((n, n)) < 0.1
    age = rng.integers(1, 160, (n, n))
    action = rng.integers(0, len(ACTIONS), (n, n))
    island = rng.random((n, n)) < ISLAND_SHARE

    w = ShapefileWriter(a.out, SHAPE_POLYGON, FIELDS, prj=SWEREF99_TM, encoding="latin-1")
    fid = 0
    octagon = np.arange(8) * (math.pi / 4)
    for i in range(n):  # one column of cells per chunk
        j = np.arange(n)
        # Counter-clockwise: bottom edge, right edge, top edge reversed, left edge reversed, closed.
        rx = np.concatenate([vx[i, j, None], hx[i, j], vx[i + 1, j, None], vxe[i + 1, j],
                             vx[i + 1, j + 1, None], hx[i, j + 1][:, ::-1], vx[i, j + 1, None],
                             vxe[i, j][:, ::-1], vx[i, j, None]], axis=1).round(2)
        ry = np.concatenate([vy[i, j, None], hy[i, j], vy[i + 1, j, None], vye[i + 1, j],
                             vy[i + 1, j + 1, None], hy[i, j + 1][:, ::-1], vy[i, j + 1, None],
                             vye[i, j][:, ::-1], vy[i, j, None]], axis=1).round(2)
        isl = island[i]
        cx, cy = rx[:, :-1].mean(axis=1), ry[:, :-1].mean(axis=1)
        rad = CELL * 0.15
        ox8 = np.concatenate([cx[:, None] + rad * np.cos(octagon), cx[:, None] + rad], axis=1).round(2)
        oy8 = np.concatenate([cy[:, None] + rad * np.sin(octagon), cy[:, None]], axis=1).round(2)
        area = shoelace(rx, ry) - np.where(isl, shoelace(ox8, oy8), 0.0)

        # Records in cell order; an island stand follows the stand it is cut from. ESRI rings: exterior
        # clockwise (the reversed ring), hole counter-clockwise, the island's own exterior clockwise.
        kinds = np.where(isl, 2, 1)  # records per cell
        k = int(kinds.sum())
        cell = np.repeat(j, kinds)
        is_island = np.zeros(k, dtype=bool)
        is_island[np.cumsum(kinds)[isl] - 1] = True
        holed = isl[cell] & ~is_island
        part_counts = np.where(holed, 2, 1)
        # Coordinates per record, without a Python loop: three kinds of blocks.
        ring_cw = np.stack([rx[:, ::-1], ry[:, ::-1]], axis=2)          # (n, 17, 2)
        hole_ccw = np.stack([ox8, oy8], axis=2)                        # (n, 9, 2)
        isl_cw = hole_ccw[:, ::-1]                                     # (n, 9, 2)
        rec_pts = np.where(is_island, 9, np.where(holed, 26, 17))
        coords = np.empty((int(rec_pts.sum()), 2))
        first = np.concatenate(([0], np.cumsum(rec_pts)[:-1]))
        plain = ~is_island
        idx = first[plain][:, None] + np.arange(17)
        coords[idx.ravel()] = ring_cw[cell[plain]].reshape(-1, 2)
        idx = first[holed][:, None] + 17 + np.arange(9)
        coords[idx.ravel()] = hole_ccw[cell[holed]].reshape(-1, 2)
        idx = first[is_island][:, None] + np.arange(9)
        coords[idx.ravel()] = isl_cw[cell[is_island]].reshape(-1, 2)
        point_counts = np.where(is_island, 9, 17)
        point_counts = np.repeat(point_counts, part_counts)
        # The second part of a holed stand has 9 points (each holed record contributes [17, 9]).
        second = np.cumsum(part_counts)[holed] - 1
        point_counts[second] = 9

        bt = np.where(is_island, len(TYPES) - 1, btype[i, cell])
        ar = np.where(is_island, shoelace(ox8, oy8)[cell], area[cell]) / 10_000.0
        columns = {
            "AVDNR": number_column(np.arange(fid + 1, fid + k + 1), 8),
            "BESTTYP": text_column(bt, TYPES, 10, "latin-1"),
            "TRADSLAG": text_column(np.where(is_island, len(SPECIES) - 1, species[i, cell]), SPECIES, 12,
                                    "latin-1"),
            "ALDER": number_column(age[i, cell], 3, null=age_null[i, cell] | is_island),
            "AREAL": number_column(ar, 10, 2),
            "ATGARD": text_column(np.where(is_island, 0, action[i, cell]), ACTIONS, 24, "latin-1"),
        }
        w.write(part_counts, point_counts, coords, columns)
        fid += k
    w.close()
    meta = {"generator": "make-stands.py", "count": a.count, "seed": a.seed, "grid": n, "features": w.count,
            "vertices": w.vertices, "crs": "EPSG:3006", "side_km": n * CELL / 1000}
    with open(a.out + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"make-stands: {w.count:,} stands, {w.vertices:,} vertices ({n}x{n} grid, {n * CELL / 1000:.1f} km "
          f"square) in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
