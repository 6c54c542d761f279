#!/usr/bin/env python3
"""Writes a synthetic forest-stand layer for the benchmarks (stdlib only, deterministic for a given seed).

The stands tile a square region in SWEREF 99 TM (EPSG:3006) north-west of Vännäs exactly, like a real
forest-plan export: a jittered grid of ~150 m cells whose edges carry extra, slightly bent vertices; every edge
is shared by the two stands on either side with the same vertices. About 4% of the stands have a wet island
(a hole) that is itself a separate `Myr` stand, so the layer still tiles the region.

Output: GeoJSON Text Sequence (one feature per line, RFC 8142), streamed so memory stays flat. Coordinates are
SWEREF 99 TM metres, not WGS84: convert with `ogr2ogr -a_srs EPSG:3006 -f "ESRI Shapefile" …`.

    make-stands.py --count 100000 --out stands.geojsons
"""
import argparse
import json
import math
import random
import sys

CELL = 150.0                       # metres between grid vertices
ORIGIN = (700_000.0, 7_080_000.0)  # SWEREF 99 TM, north-west of Vännäs
EDGE_POINTS = 3                    # extra vertices on every cell edge
TYPES = ["Gran", "Tall", "Löv", "Blandskog", "Hygge", "Ungskog", "Sumpskog"]
SPECIES = ["Gran", "Tall", "Björk", "Asp", "Al", "Gran/Tall", "Tall/Björk", ""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000, help="approximate number of grid stands")
    ap.add_argument("--seed", type=int, default=20260101)
    ap.add_argument("--out", required=True, help="output .geojsons path (- for stdout)")
    a = ap.parse_args()

    n = max(2, int(math.isqrt(max(4, a.count))))  # n x n cells
    rng = random.Random(a.seed)
    ox, oy = ORIGIN

    # Grid vertices (n+1)^2, jittered up to 30% of a cell.
    vx = [[ox + i * CELL + (rng.uniform(-0.3, 0.3) * CELL if 0 < i < n else 0.0) for j in range(n + 1)]
          for i in range(n + 1)]
    vy = [[oy + j * CELL + (rng.uniform(-0.3, 0.3) * CELL if 0 < j < n else 0.0) for j in range(n + 1)]
          for i in range(n + 1)]

    def bend(x0, y0, x1, y1, border):
        """EDGE_POINTS interior points from (x0,y0) to (x1,y1), offset perpendicular (not on the border)."""
        pts = []
        dx, dy = x1 - x0, y1 - y0
        length = math.hypot(dx, dy) or 1.0
        px, py = -dy / length, dx / length
        for k in range(1, EDGE_POINTS + 1):
            t = k / (EDGE_POINTS + 1)
            off = 0.0 if border else rng.uniform(-12.0, 12.0)
            pts.append((x0 + dx * t + px * off, y0 + dy * t + py * off))
        return pts

    # Horizontal edges h[i][j]: (i,j) -> (i+1,j); vertical edges v[i][j]: (i,j) -> (i,j+1).
    h = [[bend(vx[i][j], vy[i][j], vx[i + 1][j], vy[i + 1][j], j in (0, n)) for j in range(n + 1)]
         for i in range(n)]
    v = [[bend(vx[i][j], vy[i][j], vx[i][j + 1], vy[i][j + 1], i in (0, n)) for j in range(n)]
         for i in range(n + 1)]

    out = sys.stdout if a.out == "-" else open(a.out, "w", encoding="utf-8")
    fid = 0

    def r(p):
        return [round(p[0], 2), round(p[1], 2)]

    def ring_area(ring):
        s = 0.0
        for k in range(len(ring) - 1):
            s += ring[k][0] * ring[k + 1][1] - ring[k + 1][0] * ring[k][1]
        return s / 2.0

    def emit(rings, props):
        nonlocal fid
        fid += 1
        props = dict(props, AVDNR=fid, AREAL=round(abs(ring_area(rings[0])) / 10_000.0
                                                   - sum(abs(ring_area(x)) for x in rings[1:]) / 10_000.0, 2))
        feat = {"type": "Feature", "properties": props,
                "geometry": {"type": "Polygon", "coordinates": rings}}
        out.write(json.dumps(feat, ensure_ascii=False, separators=(",", ":")))
        out.write("\n")

    for i in range(n):
        for j in range(n):
            # Counter-clockwise (RFC 7946 exterior): bottom edge, right edge, top edge reversed, left reversed.
            ring = [(vx[i][j], vy[i][j])] + h[i][j]
            ring += [(vx[i + 1][j], vy[i + 1][j])] + v[i + 1][j]
            ring += [(vx[i + 1][j + 1], vy[i + 1][j + 1])] + h[i][j + 1][::-1]
            ring += [(vx[i][j + 1], vy[i][j + 1])] + v[i][j][::-1]
            ring.append(ring[0])
            ring = [r(p) for p in ring]
            props = {
                "BESTTYP": TYPES[rng.randrange(len(TYPES))],
                "TRADSLAG": SPECIES[rng.randrange(len(SPECIES))],
                "ALDER": None if rng.random() < 0.1 else rng.randrange(1, 160),
            }
            if rng.random() < 0.04:
                # A wet island: a small octagon around the cell centre, a hole here and a stand of its own.
                cx = sum(p[0] for p in ring[:-1]) / (len(ring) - 1)
                cy = sum(p[1] for p in ring[:-1]) / (len(ring) - 1)
                rad = CELL * 0.15
                island = [r((cx + rad * math.cos(k * math.pi / 4), cy + rad * math.sin(k * math.pi / 4)))
                          for k in range(8)]
                island.append(island[0])
                emit([ring, island[::-1]], props)
                emit([island], {"BESTTYP": "Myr", "TRADSLAG": "", "ALDER": None})
            else:
                emit([ring], props)
    if out is not sys.stdout:
        out.close()
    print(f"make-stands: {fid} stands ({n}x{n} grid, {n * CELL / 1000:.1f} km square)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
