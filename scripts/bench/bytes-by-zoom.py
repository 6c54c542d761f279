#!/usr/bin/env python3
"""Per-zoom byte breakdown of PMTiles packages of vector tiles (issue 34: output bytes against tippecanoe's).

For each package and zoom: tiles, stored bytes (compressed as stored), raw MVT bytes, features, and the raw
bytes of every layer split into geometry / tags / keys / values / ids / other (feature framing and type, layer
name, version, extent), counted from the protobuf itself (field key, length prefix and payload). With a Kartpack
`--report` JSON the zooms where Kartpack thinned (kept fraction < 1 or anything dropped) are marked `*`, and
features per KiB of stored tiles are printed for every package.

Usage:
    bytes-by-zoom.py A.pmtiles [--report A.json] [B.pmtiles …]     table per package, then ratios B/A per zoom
    bytes-by-zoom.py --recompress 9 A.pmtiles …                  also gzip every raw tile again at zlib level 9
    bytes-by-zoom.py --tile Z/X/Y A.pmtiles B.pmtiles            one tile of each, decoded (mapbox-vector-tile):
                                                                 features, keys, value types, ids
Needs the PyPI packages `pmtiles` and `mapbox-vector-tile` (the repository's .venv has both).
"""

import argparse
import collections
import gzip
import json
import sys
import zlib

from pmtiles.reader import MmapSource, Reader, all_tiles

PARTS = ("geometry", "tags", "keys", "values", "ids", "other")


def varint(buf, i):
    result = shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7


def fields(buf, start=0, end=None):
    """Yields (field number, wire type, value or (payload start, payload end), field start, field end)."""
    i = start
    end = len(buf) if end is None else end
    while i < end:
        f0 = i
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, i = varint(buf, i)
        elif wt == 2:
            n, i = varint(buf, i)
            val = (i, i + n)
            i += n
        elif wt == 5:
            val = None
            i += 4
        elif wt == 1:
            val = None
            i += 8
        else:
            raise ValueError(f"wire type {wt}")
        yield num, wt, val, f0, i


def breakdown(raw, per_layer):
    """Adds the tile's bytes by part into per_layer[layer name][part]; returns the number of features."""
    features = 0
    for num, wt, val, f0, f1 in fields(raw):
        if num != 3 or wt != 2:
            continue
        ls, le = val
        name = "?"
        parts = collections.Counter()
        other = ls - f0  # the layer's own key and length
        for lnum, lwt, lval, l0, l1 in fields(raw, ls, le):
            size = l1 - l0
            if lnum == 1:
                name = bytes(raw[lval[0]:lval[1]]).decode("utf-8", "replace")
                other += size
            elif lnum == 2:
                features += 1
                fs, fe = lval
                other += fs - l0
                for fnum, _, _, g0, g1 in fields(raw, fs, fe):
                    part = {1: "ids", 2: "tags", 4: "geometry"}.get(fnum, "other")
                    parts[part] += g1 - g0
            elif lnum == 3:
                parts["keys"] += size
            elif lnum == 4:
                parts["values"] += size
            else:
                other += size
        parts["other"] += other
        per_layer[name].update(parts)
    return features


def unpack(data, compression):
    if compression == 2 or data[:2] == b"\x1f\x8b":
        return gzip.decompress(data)
    return data


def regzip(raw, level):
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(raw) + c.flush()


def thinned_zooms(report_path):
    if not report_path:
        return set()
    with open(report_path) as f:
        rep = json.load(f)
    out = set()
    for z in rep.get("zooms", []):
        if z.get("keptFraction", 1) < 1 or any(z.get("dropped", {}).values()):
            out.add(z["zoom"])
    return out


def scan(path, recompress):
    with open(path, "rb") as f:
        src = MmapSource(f)
        comp = Reader(src).header().get("tile_compression")
        zooms = collections.defaultdict(lambda: {
            "tiles": 0, "stored": 0, "raw": 0, "features": 0, "recompressed": 0,
            "layers": collections.defaultdict(collections.Counter)})
        for (z, _x, _y), data in all_tiles(src):
            raw = unpack(data, getattr(comp, "value", comp))
            zs = zooms[z]
            zs["tiles"] += 1
            zs["stored"] += len(data)
            zs["raw"] += len(raw)
            zs["features"] += breakdown(raw, zs["layers"])
            if recompress is not None:
                zs["recompressed"] += len(regzip(raw, recompress))
    return dict(sorted(zooms.items()))


def show(path, zooms, thinned, recompress):
    print(f"## {path}")
    head = "| zoom | tiles | stored bytes | raw MVT bytes | features | features/KiB stored |"
    rule = "|---:|---:|---:|---:|---:|---:|"
    if recompress is not None:
        head += f" gzip -{recompress} bytes |"
        rule += "---:|"
    print(head)
    print(rule)
    tot = collections.Counter()
    for z, s in zooms.items():
        mark = "*" if z in thinned else ""
        row = (f"| {z}{mark} | {s['tiles']:,} | {s['stored']:,} | {s['raw']:,} | {s['features']:,} | "
               f"{s['features'] / (s['stored'] / 1024):.1f} |")
        if recompress is not None:
            row += f" {s['recompressed']:,} |"
        print(row)
        for k in ("tiles", "stored", "raw", "features", "recompressed"):
            tot[k] += s[k]
    row = f"| all | {tot['tiles']:,} | {tot['stored']:,} | {tot['raw']:,} | {tot['features']:,} | |"
    if recompress is not None:
        row += f" {tot['recompressed']:,} |"
    print(row)
    if thinned:
        print(f"(* thinned by Kartpack: zooms {sorted(thinned)})")
    print()
    print("| zoom | layer | " + " | ".join(PARTS) + " |")
    print("|---:|---|" + "---:|" * len(PARTS))
    for z, s in zooms.items():
        for name, parts in sorted(s["layers"].items()):
            print(f"| {z} | {name} | " + " | ".join(f"{parts[p]:,}" for p in PARTS) + " |")
    print()


def compare(paths, scans, thinned):
    base = scans[0]
    for path, zooms in zip(paths[1:], scans[1:]):
        print(f"## {paths[0]} ÷ {path} (stored bytes; raw MVT bytes; features; features/KiB)")
        print("| zoom | stored ratio | raw ratio | features A | features B | features/KiB A | features/KiB B |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        sa = sb = ra = rb = 0
        for z in sorted(set(base) | set(zooms)):
            a, b = base.get(z), zooms.get(z)
            if not a or not b:
                continue
            sa += a["stored"]; sb += b["stored"]; ra += a["raw"]; rb += b["raw"]
            mark = "*" if z in thinned else ""
            print(f"| {z}{mark} | {a['stored'] / b['stored']:.4f} | {a['raw'] / b['raw']:.4f} | {a['features']:,} | "
                  f"{b['features']:,} | {a['features'] / (a['stored'] / 1024):.1f} | "
                  f"{b['features'] / (b['stored'] / 1024):.1f} |")
        unthinned = [z for z in base if z in zooms and z not in thinned]
        ua = sum(base[z]["stored"] for z in unthinned)
        ub = sum(zooms[z]["stored"] for z in unthinned)
        print(f"| all | {sa / sb:.4f} | {ra / rb:.4f} | | | | |")
        if thinned and ub:
            print(f"| unthinned zooms | {ua / ub:.4f} ({ua:,} vs {ub:,}) | | | | | |")
        print()


def show_tile(paths, spec):
    import mapbox_vector_tile
    z, x, y = (int(v) for v in spec.split("/"))
    for path in paths:
        with open(path, "rb") as f:
            src = MmapSource(f)
            reader = Reader(src)
            data = reader.get(z, x, y)
        if data is None:
            print(f"## {path}: no tile {spec}")
            continue
        raw = unpack(data, 2)
        tile = mapbox_vector_tile.decode(raw)
        print(f"## {path} tile {spec}: {len(data):,} stored, {len(raw):,} raw")
        for name, layer in tile.items():
            feats = layer["features"]
            types = collections.Counter()
            for ft in feats:
                for k, v in ft["properties"].items():
                    types[(k, type(v).__name__)] += 1
            ids = [ft.get("id") for ft in feats]
            print(f"layer {name}: extent {layer.get('extent')}, {len(feats):,} features, "
                  f"ids {'none' if all(i is None for i in ids) else f'{min(i for i in ids if i is not None)}..'}"
                  f"{max((i for i in ids if i is not None), default='')}")
            print("  property types: " + ", ".join(f"{k}:{t}×{n}" for (k, t), n in sorted(types.items())))
            print("  first features: " + "; ".join(
                f"id={ft.get('id')} {ft['geometry']['type']} {ft['geometry']['coordinates']} {ft['properties']}"
                for ft in feats[:3]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--report", help="Kartpack's --report JSON of the first package (marks its thinned zooms)")
    ap.add_argument("--recompress", type=int, help="also gzip every raw tile at this zlib level")
    ap.add_argument("--tile", help="Z/X/Y: decode this tile of every package instead")
    ap.add_argument("--no-layers", action="store_true", help="leave out the per-layer breakdown")
    args = ap.parse_intermixed_args()
    if args.tile:
        show_tile(args.packages, args.tile)
        return
    thinned = thinned_zooms(args.report)
    scans = [scan(p, args.recompress) for p in args.packages]
    for p, s in zip(args.packages, scans):
        if args.no_layers:
            for zs in s.values():
                zs["layers"].clear()
        show(p, s, thinned if p == args.packages[0] else set(), args.recompress)
    if len(scans) > 1:
        compare(args.packages, scans, thinned)


if __name__ == "__main__":
    sys.exit(main())
