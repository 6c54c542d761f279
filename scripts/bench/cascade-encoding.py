#!/usr/bin/env python3
"""Client cascade encoding on the forest sample: what each design adds to the package.

1. Expressions (what `kartpack style` writes): the tiles stay as they are, except attributes the client tests
   must be kept; measured as the sample built with and without CERTIFIER in `keep`.
2. A computed look per feature: a `kp:look` integer on every feature in every tile (the distinct looks per layer
   from `kartpack preview --features`), measured by re-encoding every tile with mapbox-vector-tile with and without
   that property (the same encoder both times, gzip level 6).

Usage: .venv/bin/python scripts/bench/cascade-encoding.py KARTPACK_BIN
"""
import gzip
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "interop"))
from conftest import read_pmtiles  # noqa: E402


def main(kartpack):
    import mapbox_vector_tile as mvt
    work = pathlib.Path(tempfile.mkdtemp(prefix="kp-cascade-"))
    sheet = ROOT / "SampleData" / "forest.kss"
    shps = sorted((ROOT / "SampleData" / "forest").glob("*.shp"))
    without = work / "without.kss"
    without.write_text(sheet.read_text(encoding="utf-8").replace(", CERTIFIER;", ";"), encoding="utf-8")
    sizes = {}
    for name, s in (("with", sheet), ("without", without)):
        out = work / f"{name}.pmtiles"
        subprocess.run([kartpack, "convert", *map(str, shps), "--style", str(s), "-o", str(out), "--min-zoom", "8",
                        "--max-zoom", "14", "--quiet", "--threads", "1"], check=True)
        sizes[name] = out.stat().st_size
    package = work / "with.pmtiles"
    feats = work / "features.json"
    subprocess.run([kartpack, "preview", str(package), "--style", str(sheet), "--bbox", "19.4,63.86,19.9,64.1",
                    "--zoom", "12", "-o", str(work / "p.svg"), "--features", str(feats)], check=True,
                   capture_output=True)
    looks, ids = {}, {}
    for f in json.loads(feats.read_text()):
        key = json.dumps(f["kinds"], sort_keys=True)
        ids[(f["layer"], f.get("id"))] = looks.setdefault((f["layer"], key), len([k for k in looks if k[0] == f["layer"]]))
    base = extra = features = 0
    for (z, x, y), blob in read_pmtiles(package).tiles.items():
        tile = mvt.decode(gzip.decompress(blob), default_options={"y_coord_down": True})
        layers = [{"name": n, "features": l["features"], "extent": l["extent"]} for n, l in tile.items()]
        plain = gzip.compress(mvt.encode(layers, default_options={"y_coord_down": True}), 6)
        for l in layers:
            for f in l["features"]:
                f["properties"] = dict(f["properties"], **{"kp:look": ids.get((l["name"], f.get("id")), 0)})
                features += 1
        marked = gzip.compress(mvt.encode(layers, default_options={"y_coord_down": True}), 6)
        base += len(plain)
        extra += len(marked) - len(plain)
    style = work / "style.json"
    subprocess.run([kartpack, "style", str(sheet), "--package", str(package), "-o", str(style)], check=True,
                   capture_output=True)
    print(f"| Design | Package bytes added | Notes |")
    print(f"|---|---|---|")
    print(f"| Expressions (chosen) | {sizes['with'] - sizes['without']:+,} ({(sizes['with'] / sizes['without'] - 1) * 100:+.2f} %) "
          f"| CERTIFIER kept for the dashed-outline rule; style.json {style.stat().st_size:,} bytes |")
    print(f"| Look per feature | {extra:+,} ({extra / base * 100:+.2f} % of {base:,} re-encoded tile bytes) "
          f"| {len(looks)} distinct looks, {features:,} feature instances; every sheet change needs a rebuild |")


if __name__ == "__main__":
    main(sys.argv[1])
