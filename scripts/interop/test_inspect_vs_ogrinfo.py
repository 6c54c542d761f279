"""`kartpack inspect --format json` must agree with GDAL's `ogrinfo -al -so` on real and sample Shapefiles:
same record counts, field names and types, geometry type and bounds (within 1e-6)."""
import json
import pathlib
import re
import subprocess

import pytest

from conftest import ROOT, require_tool

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

SAMPLES = sorted((ROOT / "SampleData" / "forest").glob("*.shp"))

# ogrinfo type name -> our field types that may correspond to it.
TYPE_MAP = {
    "String": {"string", "logical"},
    "Integer": {"integer", "logical"},
    "Integer64": {"integer"},
    "Real": {"double", "integer"},
    "Date": {"date"},
}
GEOMETRY_MAP = {
    "Point": {"point"}, "3D Point": {"point"}, "Measured Point": {"point"},
    "Multi Point": {"multiPoint"}, "3D Multi Point": {"multiPoint"},
    "Line String": {"lineString", "multiLineString"}, "3D Line String": {"lineString", "multiLineString"},
    "Polygon": {"polygon", "multiPolygon"}, "3D Polygon": {"polygon", "multiPolygon"},
}


def ogrinfo_summary(path: pathlib.Path) -> dict:
    require_tool("ogrinfo")
    text = subprocess.run(["ogrinfo", "-ro", "-al", "-so", str(path)], check=True, capture_output=True,
                          text=True).stdout
    info = {"fields": []}
    m = re.search(r"^Geometry: (.+)$", text, re.M)
    info["geometry"] = m.group(1).strip()
    info["count"] = int(re.search(r"^Feature Count: (\d+)$", text, re.M).group(1))
    m = re.search(r"^Extent: \(([-\d.e+]+), ([-\d.e+]+)\) - \(([-\d.e+]+), ([-\d.e+]+)\)$", text, re.M)
    info["extent"] = [float(m.group(i)) for i in range(1, 5)]
    # Field lines follow the CRS block: "NAME: Type (width.precision)"
    for line in text.splitlines():
        fm = re.match(r"^([^\s:][^:]*): (String|Integer|Integer64|Real|Date)(?:\((\w+)\))? \((\d+)\.(\d+)\)$", line)
        if fm:
            info["fields"].append((fm.group(1), fm.group(2), int(fm.group(4))))
    return info


def kartpack_inspect(kartpack: str, path: pathlib.Path, *extra: str) -> dict:
    proc = subprocess.run([kartpack, "inspect", str(path), "--format", "json", *extra], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert len(report["layers"]) == 1
    return report["layers"][0]


def compare(layer: dict, ogr: dict):
    assert layer["records"] == ogr["count"]
    assert layer["geometryKind"] in GEOMETRY_MAP[ogr["geometry"]], (layer["geometryKind"], ogr["geometry"])
    ours = [(f["name"], f["type"], f["width"]) for f in layer["fields"]]
    assert [f[0] for f in ours] == [f[0] for f in ogr["fields"]]
    for (name, our_type, width), (_, ogr_type, ogr_width) in zip(ours, ogr["fields"]):
        assert our_type in TYPE_MAP[ogr_type], (name, our_type, ogr_type)
        if ogr_type == "Date":
            # DBF stores dates as YYYYMMDD (width 8); GDAL reports the width of its YYYY/MM/DD form.
            assert (width, ogr_width) == (8, 10), name
        else:
            assert width == ogr_width, name
    b = layer["bounds"]
    for ours_v, theirs in zip([b["minX"], b["minY"], b["maxX"], b["maxY"]], ogr["extent"]):
        assert abs(ours_v - theirs) <= 1e-6 * max(1.0, abs(theirs)), (ours_v, theirs)


@pytest.mark.parametrize("shp", SAMPLES, ids=[p.stem for p in SAMPLES])
def test_sample_data_matches_ogrinfo(kartpack, shp):
    layer = kartpack_inspect(kartpack, shp)
    compare(layer, ogrinfo_summary(shp))
    assert layer["crs"]["epsg"] == 3006
    assert layer["encoding"]["name"] == "ISO-8859-1"
    assert layer["encoding"]["origin"] == "cpg"
    assert layer["errors"] == []


def test_sample_folder_lists_every_layer(kartpack):
    proc = subprocess.run([kartpack, "inspect", str(ROOT / "SampleData" / "forest"), "--format", "json"],
                          capture_output=True, text=True, check=True)
    names = [l["name"] for l in json.loads(proc.stdout)["layers"]]
    assert names == sorted(p.stem for p in SAMPLES)
    assert {"fastigheter", "avdelningar", "hansyn", "fornminnen", "vagar", "kommuner"} <= set(names)


def test_natural_earth_matches_ogrinfo(kartpack, natural_earth):
    for name, shp in natural_earth.items():
        layer = kartpack_inspect(kartpack, shp)
        compare(layer, ogrinfo_summary(shp))
        assert layer["crs"]["epsg"] == 4326, name
        # Geographic data: WGS84 bounds equal the native ones.
        for k in ("minX", "minY", "maxX", "maxY"):
            assert abs(layer["bounds"][k] - layer["boundsWGS84"][k]) < 1e-9


def test_nyc_boroughs_us_feet_matches_ogrinfo(kartpack, nyc_boroughs):
    layer = kartpack_inspect(kartpack, nyc_boroughs)
    compare(layer, ogrinfo_summary(nyc_boroughs))
    assert layer["crs"]["epsg"] == 2263
    w = layer["boundsWGS84"]
    # New York City: about 74.26..73.70 W, 40.49..40.92 N.
    assert -74.3 < w["minX"] < -74.2 and -73.75 < w["maxX"] < -73.65
    assert 40.45 < w["minY"] < 40.55 and 40.85 < w["maxY"] < 40.95


def test_pyproj_agrees_on_wgs84_bounds(kartpack, nyc_boroughs):
    import pyproj
    layer = kartpack_inspect(kartpack, nyc_boroughs)
    b = layer["bounds"]
    t = pyproj.Transformer.from_crs("EPSG:2263", "EPSG:4326", always_xy=True)
    expected = t.transform_bounds(b["minX"], b["minY"], b["maxX"], b["maxY"], densify_pts=21)
    got = layer["boundsWGS84"]
    for ours, theirs in zip([got["minX"], got["minY"], got["maxX"], got["maxY"]], expected):
        assert abs(ours - theirs) < 1e-6
