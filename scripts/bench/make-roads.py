#!/usr/bin/env python3
"""Writes a synthetic road network (PolyLine Shapefile, WGS 84) for the benchmarks (numpy; deterministic).

Long, smoothly bending polylines with many vertices, like a national road export: a few hundred towns across
a Sweden-sized box (lon 12–23°, lat 56–67°, WGS 84); highways (Europaväg, Riksväg) start at a town and run
for tens of kilometres nearly straight, county roads and streets wind around the towns, forest roads
(Skogsbilväg) are spread over the whole area. Roads of all classes cross each other. 2% of the roads have two
parts (a gap in the middle). Vertices are 15–60 m apart depending on the class; vertex counts per road are
log-normal (median 15 for streets, up to thousands for highways). Attributes (DBF, Latin-1 with a .cpg):
VAGNR, KLASS, NAMN (Swedish street names, road numbers), HASTIGHET (km/h), BELAGG (surface), LANGD (metres).

--vertices is the exact total vertex count; the same --vertices and --seed give the same bytes.

    make-roads.py --vertices 10000000 --out DIR/roads    # DIR/roads.shp/.shx/.dbf/.prj/.cpg + roads.json
"""
import argparse
import json
import math
import sys
import time

import numpy as np

from shpwrite import SHAPE_POLYLINE, WGS84, Field, ShapefileWriter, number_column, text_column

BOX = (12.0, 56.0, 23.0, 67.0)  # lon/lat
TOWNS = 400
M_PER_DEG_LAT = 110_540.0
M_PER_DEG_LON = 111_320.0
# class: share of roads, median vertices, log-normal sigma, vertex spacing m, heading noise rad/vertex,
# speed km/h, surface index
CLASSES = [
    ("Europaväg", 0.02, 600, 0.6, 60.0, 0.015, 110, 0),
    ("Riksväg", 0.05, 250, 0.6, 50.0, 0.03, 90, 0),
    ("Länsväg", 0.18, 90, 0.7, 40.0, 0.06, 70, 0),
    ("Gata", 0.45, 15, 0.8, 15.0, 0.12, 50, 0),
    ("Skogsbilväg", 0.30, 45, 0.8, 30.0, 0.10, 30, 1),
]
SURFACES = ["Belagd", "Grus"]
STREETS = ["Storgatan", "Kyrkvägen", "Björkvägen", "Älvvägen", "Skolgatan", "Ängsvägen", "Sjövägen",
           "Gärdesvägen", "Åkervägen", "Bäckvägen", "Östra Långgatan", "Västra Järnvägsgatan", "Tallstigen",
           "Rönnvägen", "Ödegårdsvägen", "Hamngatan", "Kvarnvägen", "Prästgårdsvägen", "Blåbärsstigen",
           "Malmvägen"]
FIELDS = [Field("VAGNR", "N", 9), Field("KLASS", "C", 12), Field("NAMN", "C", 30), Field("HASTIGHET", "N", 3),
          Field("BELAGG", "C", 6), Field("LANGD", "N", 10, 1)]
CHUNK_VERTICES = 1_000_000


def road_names(cls, rng, k):
    """Name table indices: road numbers for highways and county roads, street names for streets, none else."""
    names = list(STREETS) + [""] + [f"E{n}" for n in (4, 10, 12, 14, 16, 18, 20, 22, 45, 65)] + \
        [f"Rv {n}" for n in range(23, 100, 3)] + [f"Väg {n}" for n in range(300, 1400, 37)]
    base_e = len(STREETS) + 1
    base_r = base_e + 10
    base_l = base_r + len(range(23, 100, 3))
    n_l = len(range(300, 1400, 37))
    idx = np.full(k, len(STREETS))  # "" (forest roads)
    idx = np.where(cls == 0, base_e + rng.integers(0, 10, k), idx)
    idx = np.where(cls == 1, base_r + rng.integers(0, base_l - base_r, k), idx)
    idx = np.where(cls == 2, base_l + rng.integers(0, n_l, k), idx)
    idx = np.where(cls == 3, rng.integers(0, len(STREETS), k), idx)
    return idx, names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vertices", type=int, default=10_000_000, help="total vertices (exact)")
    ap.add_argument("--seed", type=int, default=20260102)
    ap.add_argument("--out", required=True, help="output path without extension")
    a = ap.parse_args()
    if a.vertices < 2:
        ap.error("--vertices must be at least 2")
    t0 = time.monotonic()
    rng = np.random.default_rng(a.seed)
    lon0, lat0, lon1, lat1 = BOX
    town_lon = rng.uniform(lon0 + 0.3, lon1 - 0.3, TOWNS)
    town_lat = rng.uniform(lat0 + 0.2, lat1 - 0.2, TOWNS)
    town_weight = 1.0 / np.arange(1, TOWNS + 1)  # a few big towns, many small ones
    town_weight /= town_weight.sum()
    town_radius = 1500.0 + 12_000.0 * town_weight / town_weight[0]
    share = np.array([c[1] for c in CLASSES])

    w = ShapefileWriter(a.out, SHAPE_POLYLINE, FIELDS, prj=WGS84, encoding="latin-1")
    done = 0
    while done < a.vertices:
        # One chunk: draw roads until about CHUNK_VERTICES vertices (the last chunk is cut to the exact total).
        k = max(16, CHUNK_VERTICES // 60)
        cls = rng.choice(len(CLASSES), k, p=share)
        median = np.array([c[2] for c in CLASSES])[cls]
        sigma = np.array([c[3] for c in CLASSES])[cls]
        nv = np.maximum(2, np.rint(median * np.exp(sigma * rng.standard_normal(k)))).astype(np.int64)
        town = rng.choice(TOWNS, k, p=town_weight)
        spread = np.where(cls == 4, 0.0, 1.0)
        forest_lon = rng.uniform(lon0, lon1, k)
        forest_lat = rng.uniform(lat0, lat1, k)
        jit = rng.standard_normal((k, 2)) * town_radius[town][:, None]
        start_lat = np.where(spread > 0, town_lat[town] + jit[:, 1] / M_PER_DEG_LAT, forest_lat)
        coslat = np.cos(np.radians(start_lat))
        start_lon = np.where(spread > 0, town_lon[town] + jit[:, 0] / (M_PER_DEG_LON * coslat), forest_lon)
        heading0 = rng.uniform(0, 2 * math.pi, k)
        two_parts = rng.random(k) < 0.02
        n_total = int(nv.sum())
        if done + n_total >= a.vertices:  # keep roads up to the exact total; the last one is shortened
            csum = np.cumsum(nv)
            last = int(np.searchsorted(csum, a.vertices - done))
            nv = nv[: last + 1].copy()
            k = last + 1
            nv[-1] -= int(csum[last] - (a.vertices - done))
            if nv[-1] < 2:  # a one-vertex road is not a line: give its vertex to the one before
                nv = nv[:-1]
                k -= 1
                nv[-1] += 1
            cls, start_lat, start_lon, coslat = cls[:k], start_lat[:k], start_lon[:k], coslat[:k]
            heading0, two_parts = heading0[:k], two_parts[:k]
            n_total = int(nv.sum())
        road = np.repeat(np.arange(k), nv)
        first = np.concatenate(([0], np.cumsum(nv)[:-1]))
        local = np.arange(n_total) - first[road]
        spacing = np.array([c[4] for c in CLASSES])[cls]
        noise = np.array([c[5] for c in CLASSES])[cls]
        # Heading: a random walk per road (segmented cumulative sum); step lengths vary ±30%.
        turn = rng.standard_normal(n_total) * noise[road]
        turn[first] = 0.0
        heading = np.cumsum(turn)
        heading -= np.repeat(heading[first], nv) - heading0[road]
        step = spacing[road] * rng.uniform(0.7, 1.3, n_total)
        step[first] = 0.0
        dx, dy = step * np.cos(heading), step * np.sin(heading)
        x = np.cumsum(dx)
        x -= np.repeat(x[first], nv)
        y = np.cumsum(dy)
        y -= np.repeat(y[first], nv)
        lat = start_lat[road] + y / M_PER_DEG_LAT
        lon = start_lon[road] + x / (M_PER_DEG_LON * coslat[road])
        coords = np.stack([lon.round(7), lat.round(7)], axis=1)
        length = np.bincount(road, weights=step, minlength=k)

        split = two_parts & (nv >= 6)
        part_counts = np.where(split, 2, 1)
        point_counts = np.repeat(nv, part_counts)
        at = np.cumsum(part_counts) - 1  # the last part of each road
        half = nv // 2
        point_counts[at[split] - 1] = half[split]
        point_counts[at[split]] = nv[split] - half[split]

        name_idx, names = road_names(cls, rng, k)
        speeds = np.array([c[6] for c in CLASSES])[cls]
        surface = np.array([c[7] for c in CLASSES])[cls]
        columns = {
            "VAGNR": number_column(np.arange(w.count + 1, w.count + k + 1), 9),
            "KLASS": text_column(cls, [c[0] for c in CLASSES], 12, "latin-1"),
            "NAMN": text_column(name_idx, names, 30, "latin-1"),
            "HASTIGHET": number_column(speeds, 3),
            "BELAGG": text_column(surface, SURFACES, 6, "latin-1"),
            "LANGD": number_column(length, 10, 1),
        }
        w.write(part_counts, point_counts, coords, columns)
        done += n_total
    w.close()
    meta = {"generator": "make-roads.py", "seed": a.seed, "features": w.count, "vertices": w.vertices,
            "crs": "EPSG:4326"}
    with open(a.out + ".json", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"make-roads: {w.count:,} roads, {w.vertices:,} vertices in {time.monotonic() - t0:.1f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
