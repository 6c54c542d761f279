#!/usr/bin/env python3
"""Measures how well a polygon coverage survives tiling: overlaps and gaps between neighbours, per zoom.

For one polygon layer of a PMTiles v3 or MBTiles 1.3 package (gzip or raw MVT tiles), and per zoom level:

- **overlap**: the summed area of the pairwise intersections of the layer's features inside each tile
  (features that overlap in the tile; a pair counts once per tile), and the number of such pairs;
- **gap**: the summed area of the parts of each tile that no feature covers although the source coverage does
  (see below), and their number;
- **max sliver**: the width (twice the maximum inscribed circle radius) of the widest overlap or gap piece;
- features (pieces in tiles), distinct feature ids, ring vertices and the layer area.

Everything is measured in tile units of the layer's extent (4096: one unit is 1/16 px of a 256-px tile) and
clipped to the tile itself (0..extent), so buffers shared by neighbouring tiles are not counted twice. Areas are
given in tile units² and as a share of the layer area of that zoom (the summed feature areas, clipped likewise).

Which uncovered areas are gaps (with `--source`, the layer's source, reprojected to Web Mercator with ogr2ogr;
its union is the coverage, the rest of the tile is its outside):
- an uncovered piece that overlaps the outside by at most `--outside-share` of its area is enclosed by the
  coverage: all of it is a gap (a sliver between neighbours, a dropped stand);
- a piece open to the outside (the land beyond the coverage's edge, a lake that is a hole of the source) counts
  only with its part inside the coverage and deeper than `--edge-band` tile units from the outside: simplifying
  the coverage's own outline or a lake's shore is not a gap, losing stands next to them is.
Without `--source` every uncovered piece that does not touch the tile's edge counts (a coverage that fills the
tiles).

    coverage_quality.py forest.pmtiles --layer avdelningar --source SampleData/forest/avdelningar.shp
    coverage_quality.py out.mbtiles --layer stands --source stands.shp --zooms 8-14 --json stands.json

Needs shapely 2.1+ and the protobuf classes of mapbox-vector-tile (both in scripts/requirements-test.txt) and,
for `--source`, GDAL's ogr2ogr.
"""
import argparse
import gzip
import json
import sqlite3
import subprocess
import sys
import tempfile

HALF_WORLD = 20037508.342789244
# A piece narrower than this (tile units) is a rounding artefact of the decoder-side geometry operations.
AREA_EPSILON = 1e-9


# ---- reading packages ----------------------------------------------------------------------------------------

def read_tiles(path: str, zooms):
    """Yields (z, x, y, raw MVT bytes) for the tiles of `zooms` in a PMTiles or MBTiles package (XYZ rows)."""
    with open(path, "rb") as f:
        magic = f.read(16)
    if magic.startswith(b"PMTiles"):
        from pmtiles.reader import Reader, all_tiles
        with open(path, "rb") as f:
            data = f.read()

        def get_bytes(offset, length):
            return data[offset:offset + length]

        Reader(get_bytes).header()  # validates the header
        for (z, x, y), blob in all_tiles(get_bytes):
            if z in zooms:
                yield z, x, y, _unzip(blob)
    elif magic.startswith(b"SQLite format 3"):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = con.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3")
            for z, x, row, blob in rows:
                if z in zooms:
                    yield z, x, (1 << z) - 1 - row, _unzip(bytes(blob))
        finally:
            con.close()
    else:
        raise SystemExit(f"{path}: neither PMTiles v3 nor MBTiles (SQLite)")


def _unzip(blob: bytes) -> bytes:
    return gzip.decompress(blob) if blob[:2] == b"\x1f\x8b" else blob


# ---- decoding one layer ---------------------------------------------------------------------------------------

def decode_polygons(raw: bytes, layer: str):
    """The polygon features of `layer` in one MVT tile: (extent, [(id or None, [[ring, ...], ...])]).

    Each feature is a list of polygons, each an exterior ring followed by its holes (MVT 2.1: a ring with positive
    surveyor's area on y-down coordinates starts a polygon). Rings are lists of (x, y) without the closing point.
    """
    from mapbox_vector_tile.Mapbox import vector_tile_pb2
    tile = vector_tile_pb2.tile()
    tile.ParseFromString(raw)
    for lyr in tile.layers:
        if lyr.name != layer:
            continue
        out = []
        for f in lyr.features:
            if f.type != 3:
                continue
            rings = _rings(list(f.geometry))
            polys = []
            for ring in rings:
                a = _area(ring)
                if a > 0 or not polys:
                    polys.append([ring])
                else:
                    polys[-1].append(ring)
            out.append((f.id if f.HasField("id") else None, polys))
        return lyr.extent, out
    return None, []


def _rings(geom):
    rings, ring = [], []
    i, x, y, n = 0, 0, 0, len(geom)
    while i < n:
        cid, count = geom[i] & 7, geom[i] >> 3
        i += 1
        if cid == 7:
            if len(ring) >= 3:
                rings.append(ring)
            ring = []
            continue
        for _ in range(count):
            x += (geom[i] >> 1) ^ -(geom[i] & 1)
            y += (geom[i + 1] >> 1) ^ -(geom[i + 1] & 1)
            i += 2
            if cid == 1:
                ring = [(x, y)]
            else:
                ring.append((x, y))
    return rings


def _area(ring) -> float:
    s = 0
    for i in range(len(ring)):
        x0, y0 = ring[i]
        x1, y1 = ring[(i + 1) % len(ring)]
        s += x0 * y1 - x1 * y0
    return s / 2


# ---- the source coverage --------------------------------------------------------------------------------------

def source_union(path: str):
    """The union of the source polygons in Web Mercator metres (read and reprojected by ogr2ogr)."""
    import shapely
    import shapely.geometry
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/source.geojson"
        proc = subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-t_srs", "EPSG:3857", out, path],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"ogr2ogr could not read {path}: {proc.stderr.strip()}")
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    geoms = [shapely.geometry.shape(f["geometry"]) for f in doc["features"] if f.get("geometry")]
    geoms = [g if g.is_valid else shapely.make_valid(g) for g in geoms]
    union = shapely.union_all(geoms)
    shapely.prepare(union)
    return union


def tile_to_mercator_box(z, x, y):
    import shapely
    size = 2 * HALF_WORLD / (1 << z)
    minx = -HALF_WORLD + x * size
    maxy = HALF_WORLD - y * size
    return shapely.box(minx, maxy - size, minx + size, maxy)


def mercator_to_tile(geom, z, x, y, extent):
    import numpy as np
    import shapely
    size = 2 * HALF_WORLD / (1 << z)
    minx = -HALF_WORLD + x * size
    maxy = HALF_WORLD - y * size

    def f(c):
        return np.column_stack([(c[:, 0] - minx) / size * extent, (maxy - c[:, 1]) / size * extent])
    return shapely.transform(geom, f)


# ---- measuring ------------------------------------------------------------------------------------------------

def polygonal(geom):
    """The polygons of a geometry (dropping points and lines of touching intersections)."""
    import shapely
    parts = shapely.get_parts(geom)
    return [p for p in parts if p.geom_type == "Polygon" and p.area > AREA_EPSILON]


def sliver_width(pieces) -> float:
    """Twice the largest maximum-inscribed-circle radius among `pieces` (polygons in tile units)."""
    import shapely
    if not pieces:
        return 0.0
    lines = shapely.maximum_inscribed_circle(pieces, tolerance=0.01)
    return 2 * float(max(shapely.length(lines)))


class ZoomStats:
    def __init__(self, z):
        self.z = z
        self.tiles = 0
        self.features = 0
        self.ids = set()
        self.vertices = 0
        self.invalid = 0
        self.layer_area = 0.0
        self.overlap_area = 0.0
        self.overlap_pairs = 0
        self.gap_area = 0.0
        self.gaps = 0
        self.max_sliver = 0.0

    def row(self) -> dict:
        la = self.layer_area or 1.0
        return {
            "zoom": self.z, "tiles": self.tiles, "features": self.features, "ids": len(self.ids),
            "vertices": self.vertices, "invalid": self.invalid, "layer_area": round(self.layer_area, 3),
            "overlap_area": round(self.overlap_area, 4), "overlap_share": self.overlap_area / la,
            "overlap_pairs": self.overlap_pairs, "gap_area": round(self.gap_area, 4), "gap_share": self.gap_area / la,
            "gaps": self.gaps, "max_sliver": round(self.max_sliver, 3),
        }


def measure_tile(stats: ZoomStats, z, x, y, extent, feats, union, outside_share, edge_band=16.0):
    import numpy as np
    import shapely
    from shapely import STRtree
    box = shapely.box(0, 0, extent, extent)
    geoms = []
    for fid, polys in feats:
        stats.features += 1
        if fid is not None:
            stats.ids.add(fid)
        stats.vertices += sum(len(r) for p in polys for r in p)
        g = shapely.MultiPolygon([shapely.Polygon(p[0], p[1:]) for p in polys])
        if not g.is_valid:
            stats.invalid += 1
            g = shapely.make_valid(g)
        g = shapely.intersection(g, box)
        if g.area > AREA_EPSILON:
            geoms.append(g)
    if not geoms:
        return
    stats.tiles += 1
    geoms = np.array(geoms, dtype=object)
    stats.layer_area += float(shapely.area(geoms).sum())
    slivers = []
    # Overlaps: every pair of features whose interiors meet in this tile.
    tree = STRtree(geoms)
    left, right = tree.query(geoms, predicate="intersects")
    keep = left < right
    left, right = left[keep], right[keep]
    if len(left):
        inter = shapely.intersection(geoms[left], geoms[right])
        areas = shapely.area(inter)
        hit = areas > AREA_EPSILON
        stats.overlap_pairs += int(hit.sum())
        stats.overlap_area += float(areas[hit].sum())
        for g in inter[hit]:
            slivers += polygonal(g)
    # Gaps: uncovered parts of the tile that are not outside the source coverage.
    covered = shapely.union_all(geoms)
    uncovered = polygonal(shapely.difference(box, covered))
    outside = band = None
    if union is not None:
        merc = tile_to_mercator_box(z, x, y)
        inside = mercator_to_tile(shapely.intersection(union, merc), z, x, y, extent)
        outside = shapely.difference(box, inside)
        shapely.prepare(outside)
    for piece in uncovered:
        if outside is not None:
            if shapely.intersection(piece, outside).area > outside_share * piece.area:
                if band is None:
                    band = shapely.buffer(outside, edge_band, quad_segs=4)
                    shapely.prepare(band)
                deep = polygonal(shapely.difference(piece, band))
                if not deep:
                    continue
                piece = shapely.union_all(deep)
        elif piece.intersects(box.exterior):
            continue
        stats.gaps += 1
        stats.gap_area += piece.area
        slivers += polygonal(piece)
    stats.max_sliver = max(stats.max_sliver, sliver_width(slivers))


def measure(package: str, layer: str, zooms, source: str | None = None, outside_share: float = 0.01,
            edge_band: float = 16.0) -> list:
    """Per-zoom rows (dicts, see ZoomStats.row) for `layer` of `package`."""
    union = source_union(source) if source else None
    stats = {z: ZoomStats(z) for z in zooms}
    for z, x, y, raw in read_tiles(package, set(zooms)):
        extent, feats = decode_polygons(raw, layer)
        if feats:
            measure_tile(stats[z], z, x, y, extent, feats, union, outside_share, edge_band)
    return [stats[z].row() for z in zooms]


def parse_zooms(text: str):
    lo, _, hi = text.partition("-")
    lo, hi = int(lo), int(hi or lo)
    if not 0 <= lo <= hi <= 30:
        raise argparse.ArgumentTypeError(f"bad zoom range {text!r}")
    return list(range(lo, hi + 1))


def markdown(rows, title=None) -> str:
    head = ("| z | tiles | features | vertices | overlap pairs | overlap (units²) | overlap share "
            "| gaps | gap (units²) | gap share | max sliver |")
    lines = ([f"**{title}**", ""] if title else []) + [head, "|" + "---:|" * 11]
    for r in rows:
        lines.append(f"| {r['zoom']} | {r['tiles']} | {r['features']} | {r['vertices']} | {r['overlap_pairs']} "
                     f"| {r['overlap_area']:.2f} | {r['overlap_share']:.1e} | {r['gaps']} | {r['gap_area']:.2f} "
                     f"| {r['gap_share']:.1e} | {r['max_sliver']:.2f} |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package", help="PMTiles v3 or MBTiles 1.3 package")
    ap.add_argument("--layer", required=True, help="polygon layer to measure")
    ap.add_argument("--source", help="the layer's source (any OGR format): its holes and outside are not gaps")
    ap.add_argument("--zooms", type=parse_zooms, default=parse_zooms("0-14"), help="zoom range, e.g. 8-14")
    ap.add_argument("--outside-share", type=float, default=0.01,
                    help="an uncovered piece overlapping the source's outside by more than this share is open to it")
    ap.add_argument("--edge-band", type=float, default=16.0,
                    help="tile units along the source's outside where open uncovered pieces are not gaps")
    ap.add_argument("--json", help="also write the rows as JSON to this file")
    ap.add_argument("--title", help="title line above the Markdown table")
    a = ap.parse_args()
    rows = measure(a.package, a.layer, a.zooms, a.source, a.outside_share, a.edge_band)
    print(markdown(rows, a.title))
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
    if all(r["features"] == 0 for r in rows):
        print(f"coverage_quality: no polygon of layer {a.layer!r} at zooms {a.zooms[0]}-{a.zooms[-1]}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
