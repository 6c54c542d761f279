#!/usr/bin/env python3
"""Inputs and view boxes for the before/after previews of docs/map-quality.md (scripts/quality/make-previews.sh).

    preview_data.py points OUT.shp      clustered + sparse points (the thinning preview)
    preview_data.py lakes OUT.shp       small square lakes, 10-60 m across (the small-features preview)
    preview_data.py bounds PACKAGE      PACKAGE's data bounds as W,S,E,N degrees (for kartpack extract --bbox)
    preview_data.py bbox PACKAGE --zoom Z --size WxH
                                        the W x H pixel box at the centre of PACKAGE's data bounds, as W,S,E,N
                                        degrees, at the scale `kartpack preview --zoom Z` draws (512 px a tile)

The data are generated with fixed seeds (Python's random, stable across versions for the calls used here), written
as GeoJSON and turned into Shapefiles by GDAL's ogr2ogr, so the same script gives the same files. The box is taken
from `kartpack inspect PACKAGE --format json` (header bounds), so it always falls on the data.
"""
import json
import math
import os
import random
import subprocess
import sys

TILE_PX = 512


def write_shp(path: str, features) -> None:
    src = path[: -len(".shp")] + ".geojson"
    with open(src, "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f)
    subprocess.run(["ogr2ogr", "-overwrite", "-f", "ESRI Shapefile", path, src], check=True, capture_output=True)


def point(lon, lat, props):
    return {"type": "Feature", "properties": props, "geometry": {"type": "Point", "coordinates": [lon, lat]}}


def points(path: str) -> None:
    """5,000 points in a cluster of about 1 km, and a sparse grid of 200 points 0.15 x 0.12 degrees apart around it
    (the case of docs/map-quality.md *Thinning*, in a box that fits one preview)."""
    r = random.Random(7)
    feats = [point(15.5 + r.gauss(0, 0.01), 60.5 + r.gauss(0, 0.005), {"kind": "cluster", "n": i})
             for i in range(5000)]
    feats += [point(14.0 + 0.15 * i, 59.9 + 0.12 * j, {"kind": "sparse", "n": i * 10 + j})
              for i in range(20) for j in range(10)]
    write_shp(path, feats)


def lakes(path: str) -> None:
    """3,000 randomly turned square lakes of 10-60 m in 17.0-17.8 E, 59.8-60.2 N (scripts/interop/
    test_small_features.py's lakes)."""
    r = random.Random(14)
    feats = []
    for i in range(3000):
        lon, lat = r.uniform(17.0, 17.8), r.uniform(59.8, 60.2)
        side, turn = r.uniform(10, 60), r.uniform(0, math.pi / 2)
        ring = []
        for k in range(5):
            a = turn + (k % 4) * math.pi / 2
            ring.append([lon + side * 0.7071 * math.cos(a) / (111_320 * math.cos(math.radians(lat))),
                         lat + side * 0.7071 * math.sin(a) / 111_320])
        feats.append({"type": "Feature", "properties": {"n": i},
                      "geometry": {"type": "Polygon", "coordinates": [ring]}})
    write_shp(path, feats)


def mercator_y(lat: float) -> float:
    return math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))


def latitude(y: float) -> float:
    return math.degrees(2 * math.atan(math.exp(y)) - math.pi / 2)


def bounds(package: str, kartpack: str) -> dict:
    out = subprocess.run([kartpack, "inspect", package, "--format", "json"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["header"]["bounds"]


def bbox(package: str, zoom: int, size: str, kartpack: str) -> str:
    b = bounds(package, kartpack)
    w, h = (int(v) for v in size.split("x"))
    world = TILE_PX * 2 ** zoom  # pixels around the world at this zoom
    cx = (b["minX"] + b["maxX"]) / 2
    cy = (mercator_y(b["minY"]) + mercator_y(b["maxY"])) / 2
    dlon = w / world * 360
    dy = h / world * 2 * math.pi
    return "%.6f,%.6f,%.6f,%.6f" % (cx - dlon / 2, latitude(cy - dy / 2), cx + dlon / 2, latitude(cy + dy / 2))


def main(argv) -> int:
    if len(argv) == 3 and argv[1] in ("points", "lakes"):
        (points if argv[1] == "points" else lakes)(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "bounds":
        b = bounds(argv[2], os.environ.get("KARTPACK_BIN", "kartpack"))
        print("%.7f,%.7f,%.7f,%.7f" % (b["minX"], b["minY"], b["maxX"], b["maxY"]))
        return 0
    if len(argv) == 7 and argv[1] == "bbox" and argv[3] == "--zoom" and argv[5] == "--size":
        print(bbox(argv[2], int(argv[4]), argv[6], os.environ.get("KARTPACK_BIN", "kartpack")))
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
