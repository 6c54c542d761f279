"""Per-layer thinning policy and coalescing identity (issue 38), through the real binary, decoded with
mapbox-vector-tile and measured with shapely.

The fixture is a forest-plan-like export in SWEREF 99 TM north-west of Vännäs: ~20,000 stands (the benchmark
generator, a jittered coverage with shared borders) under 400 properties (a 20 x 20 grid, owners in blocks of
3 x 2 properties), tiled z8-z12 with --max-tile-features 2000, so z8-z11 are thinned.

- Without a policy the properties are thinned like the stands: z8 loses property borders (what issue 38 found).
- With `thinning: never` (sheet) or `"thinning": "never"` (pipeline source) every property is kept at every zoom,
  the stands are thinned around them, every tile below the max zoom stays within the limit, and the bytes do not
  depend on threads, the memory budget or the record order.
- When the protected features of a tile alone are over the limit they are thinned last (every stand of the zoom
  goes first), counted as `protectedDropped` with a `protected_thinned` warning, and the limit still holds.
- `priority N` keeps a layer's features longer than those of lower priorities.
- `--coalesce` with `identity: AGARE` never merges a property into a neighbour of another owner (without it, it
  does).
"""
import collections
import json
import pathlib
import subprocess
import sys

import pytest
import shapely
from shapely.geometry import box, shape

from shapefile_shuffle import shuffle_shapefile
from conftest import ROOT, decode_tile, polygons_from_rings, read_pmtiles, run_convert, tile_to_mercator, to_mercator

LIMIT = 2000
ZOOMS = ["--min-zoom", "8", "--max-zoom", "12", "--max-tile-features", str(LIMIT)]
THINNED = range(8, 12)
ORIGIN = (700_000.0, 7_080_000.0)  # make-stands.py's origin (SWEREF 99 TM)
SIDE = 141 * 150.0                 # its square for --count 20000 (141 x 141 cells of 150 m)
GRID = 20                          # properties per side


@pytest.fixture(scope="module")
def forest(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("thinning-policy")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "make-stands.py"), "--count", "20000",
                           "--out", str(d / "avdelningar")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    step = SIDE / GRID
    feats = []
    for i in range(GRID):
        for j in range(GRID):
            x, y = ORIGIN[0] + i * step, ORIGIN[1] + j * step
            feats.append({"type": "Feature",
                          "properties": {"FASTID": i * GRID + j + 1, "FASTIGHET": f"Vännäs Granö {i}:{j}",
                                         "AGARE": f"Ägare {(i // 3) * 10 + j // 2}"},
                          "geometry": box(x, y, x + step, y + step).__geo_interface__})
    src = d / "fastigheter.geojson"
    src.write_text(json.dumps({"type": "FeatureCollection", "features": feats}), encoding="utf-8")
    subprocess.run(["ogr2ogr", "-f", "ESRI Shapefile", "-a_srs", "EPSG:3006", "-lco", "ENCODING=UTF-8",
                    str(d / "fastigheter.shp"), str(src)], check=True, capture_output=True)
    return {"dir": d, "inputs": [d / "avdelningar.shp", d / "fastigheter.shp"], "properties": feats}


def sheet(d: pathlib.Path, name: str, text: str) -> pathlib.Path:
    p = d / name
    p.write_text("avdelningar { class: stand; }\nfastigheter { class: property; }\n" + text, encoding="utf-8")
    return p


def convert(kartpack, forest, name: str, style_text: str, *args: str, expect: int = 0):
    style = sheet(forest["dir"], name + ".kss", style_text)
    return run_convert(kartpack, forest["inputs"], forest["dir"] / (name + ".pmtiles"), "--style", str(style),
                       "--id-field", "AVDNR", "--id-field", "FASTID", *ZOOMS, *args, expect=expect)


def decoded(path: pathlib.Path) -> dict:
    archive = read_pmtiles(path)
    return {zxy: decode_tile(blob, "%d/%d/%d" % zxy) for zxy, blob in archive.tiles.items()}


def ids(tiles: dict, layer: str) -> dict:
    """Per zoom, the ids of the layer's features."""
    out = collections.defaultdict(set)
    for (z, _, _), layers in tiles.items():
        if layer in layers:
            out[z].update(f.id for f in layers[layer].features)
    return out


def features_per_tile(tiles: dict) -> dict:
    return {zxy: sum(len(L.features) for L in layers.values()) for zxy, layers in tiles.items()}


def test_unprotected_properties_lose_borders_at_z8(kartpack, forest):
    """The behaviour before issue 38's policy: the properties are thinned like the stands."""
    run = convert(kartpack, forest, "plain", "")
    kept = ids(decoded(run.output), "fastigheter")
    assert len(kept[8]) < GRID * GRID * 0.9, f"z8 kept {len(kept[8])} of {GRID * GRID} properties"
    assert len(kept[12]) == GRID * GRID


@pytest.mark.smoke
def test_protected_properties_are_kept_at_every_zoom(kartpack, forest):
    run = convert(kartpack, forest, "never", "fastigheter { thinning: never; }")
    tiles = decoded(run.output)
    kept = ids(tiles, "fastigheter")
    for z in range(8, 13):
        assert len(kept[z]) == GRID * GRID, f"z{z}: {len(kept[z])} properties"
    stands = ids(tiles, "avdelningar")
    assert len(stands[8]) < len(stands[12]) / 2, "the stands are thinned around the properties"
    over = {zxy: n for zxy, n in features_per_tile(tiles).items() if zxy[0] in THINNED and n > LIMIT}
    assert not over, f"tiles over --max-tile-features below the max zoom: {over}"
    assert all("protectedDropped" not in z for z in run.report["zooms"])
    assert "protected_thinned" not in run.report["warnings"]
    # Each property is whole: its pieces at z8 cover its area (within the simplification of a tile unit).
    cover = collections.defaultdict(list)
    for (z, x, y), layers in tiles.items():
        if z == 8 and "fastigheter" in layers:
            for f in layers["fastigheter"].features:
                rings = [tile_to_mercator(z, x, y, layers["fastigheter"].extent, r) for r in f.parts]
                g = shapely.MultiPolygon(polygons_from_rings(rings, f.areas)).buffer(0)
                cover[f.id].append(g.intersection(tile_bounds(z, x, y)))
    for p in forest["properties"]:
        src = to_mercator(shape(p["geometry"]), "EPSG:3006")
        got = shapely.union_all(cover[p["properties"]["FASTID"]])
        assert got.intersection(src).area > 0.9 * src.area, p["properties"]


def tile_bounds(z, x, y):
    from conftest import tile_box
    return tile_box(z, x, y)


def test_protected_output_does_not_depend_on_threads_or_memory(kartpack, forest):
    style = "fastigheter { thinning: never; }\navdelningar { thinning: priority 2; }"
    runs = [convert(kartpack, forest, f"det{i}", style, "--name", "plan", *args)
            for i, args in enumerate([["--threads", "1"], ["--threads", "2", "--memory-budget", "64K"]])]
    assert runs[0].output.read_bytes() == runs[1].output.read_bytes()
    # The same features in another record order (ids from fields) give the same bytes.
    shuffled = forest["dir"] / "shuffled"
    shuffled.mkdir(exist_ok=True)
    inputs = [shuffled / p.name for p in forest["inputs"]]
    for src, dst in zip(forest["inputs"], inputs):
        shuffle_shapefile(src, dst, 7)
    other = run_convert(kartpack, inputs, forest["dir"] / "det-shuffled.pmtiles", "--style",
                        str(forest["dir"] / "det0.kss"), "--id-field", "AVDNR", "--id-field", "FASTID", *ZOOMS,
                        "--name", "plan", "--threads", "2")
    assert other.output.read_bytes() == runs[0].output.read_bytes()


def test_protected_features_alone_over_the_limit_are_thinned_last(kartpack, forest):
    """100 features per tile cannot hold the z8 properties: they are thinned last, counted and warned about."""
    style = sheet(forest["dir"], "tight.kss", "fastigheter { thinning: never; }")
    run = run_convert(kartpack, forest["inputs"], forest["dir"] / "tight.pmtiles", "--style", str(style),
                      "--min-zoom", "8", "--max-zoom", "12", "--max-tile-features", "100")
    tiles = decoded(run.output)
    over = {zxy: n for zxy, n in features_per_tile(tiles).items() if zxy[0] in THINNED and n > 100}
    assert not over, over
    z8 = next(z for z in run.report["zooms"] if z["zoom"] == 8)
    assert z8.get("protectedDropped", 0) > 0, z8
    assert run.report["warnings"].get("protected_thinned", 0) > 0, run.report["warnings"]
    assert "the protected features of a tile alone exceed the tile limits" in run.stderr
    # Every stand went before the first property did.
    assert not ids(tiles, "avdelningar")[8]
    assert ids(tiles, "fastigheter")[8]


def test_priority_keeps_a_layer_longer(kartpack, forest):
    """`priority 1` on the properties: at z8 they are kept before any stand (here all of them fit)."""
    run = convert(kartpack, forest, "priority", "fastigheter { thinning: priority 1; }")
    kept = ids(decoded(run.output), "fastigheter")
    assert len(kept[8]) == GRID * GRID


def test_pipeline_source_thinning_never(kartpack, forest):
    d = forest["dir"]
    spec = {
        "version": 1,
        "sources": [{"path": "avdelningar.shp", "idField": "AVDNR"},
                    {"path": "fastigheter.shp", "idField": "FASTID", "thinning": "never"}],
        "style": str(sheet(d, "pipe.kss", "")),
        "tiles": {"minZoom": 8, "maxZoom": 12, "maxTileFeatures": LIMIT},
        "output": {"path": "pipe.pmtiles"},
    }
    (d / "pipe.json").write_text(json.dumps(spec))
    proc = subprocess.run([kartpack, "run", str(d / "pipe.json")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    kept = ids(decoded(d / "pipe.pmtiles"), "fastigheter")
    assert all(len(kept[z]) == GRID * GRID for z in range(8, 13)), {z: len(v) for z, v in kept.items()}
    spec["sources"][1]["thinning"] = "sometimes"
    (d / "bad.json").write_text(json.dumps(spec))
    proc = subprocess.run([kartpack, "validate", str(d / "bad.json")], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "sources[1].thinning" in proc.stdout + proc.stderr


def merged_across_owners(forest, tiles: dict) -> list:
    """Decoded property features at the thinned zooms that cover most of a property of another owner."""
    owner = {p["properties"]["FASTID"]: p["properties"]["AGARE"] for p in forest["properties"]}
    sources = [(p["properties"]["FASTID"], to_mercator(shape(p["geometry"]), "EPSG:3006"))
               for p in forest["properties"]]
    tree = shapely.STRtree([g for _, g in sources])
    bad = []
    for (z, x, y), layers in tiles.items():
        if z not in THINNED or "fastigheter" not in layers:
            continue
        L = layers["fastigheter"]
        tb = tile_bounds(z, x, y)
        for f in L.features:
            rings = [tile_to_mercator(z, x, y, L.extent, r) for r in f.parts]
            g = shapely.MultiPolygon(polygons_from_rings(rings, f.areas)).buffer(0)
            for k in tree.query(g):
                fid, src = sources[k]
                inside = src.intersection(tb)
                if owner[fid] == owner[f.id] or inside.area < 0.05 * src.area:
                    continue
                if g.intersection(inside).area > 0.5 * inside.area:
                    bad.append(((z, x, y), f.id, fid))
    return bad


def test_coalesce_never_merges_different_owners(kartpack, forest):
    thin = "fastigheter { coalesce: true; }"
    control = convert(kartpack, forest, "coalesce-any", thin)
    assert merged_across_owners(forest, decoded(control.output)), "the control merges properties of other owners"
    run = convert(kartpack, forest, "coalesce-owner", "fastigheter { coalesce: true; identity: AGARE; }")
    tiles = decoded(run.output)
    assert not merged_across_owners(forest, tiles)
    assert any(z.get("coalesced", 0) > 0 for z in run.report["zooms"]), "properties of one owner still merge"
    # The same holds for --coalesce on the command line with the sheet's identity.
    cli = convert(kartpack, forest, "coalesce-cli", "fastigheter { identity: AGARE; }", "--coalesce")
    assert not merged_across_owners(forest, decoded(cli.output))
