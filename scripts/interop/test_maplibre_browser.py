"""The client styles in real MapLibre GL JS (5.24.0 and 5.3.0 from PyPI wheels) in headless Chromium with
SwiftShader WebGL, everything served from 127.0.0.1 (HTTP ranges for PMTiles) and every other host unresolvable.

For the sample job (Pipelines/forest-plan.json) and Natural Earth (Debian's geopandas) the style is loaded exactly
as `kartpack style --base-url` wrote it, and the tests assert: no map errors, no missing images, glyphs only from
the style's folder, features rendered for every class at the zooms where the tiles carry it, visible patterns,
the look MapLibre evaluates per feature equal to the Swift cascade's (`preview --features`), and a screenshot
that matches `kartpack preview` of the same view.
"""
import io
import json
import math
import re
import subprocess

import pytest

import browser
from conftest import HALF_WORLD, ROOT, decode_tile, read_pmtiles, run_convert
from style_validator import validate_styles

VERSIONS = ["5.24.0", "5.3.0"]
SHEET = ROOT / "SampleData" / "forest.kss"
KINDS = ("fill", "pattern", "outline", "line", "circle", "icon", "label")

WORLD_SHEET = """
@map { background: aliceblue; }
countries { class: country; fill: #e0dccf; stroke: #7a7060; stroke-width: 0.8; label: name; text-size: 11; }
countries[continent = "Europe"] { class: european; fill: #d6e4c8; }
countries[continent = "Africa"] { class: african; fill: #f3e3c3; fill-pattern: dots; pattern-color: sienna; }
countries[zoom < 3] { class: lowzoom; fill: #cccccc; label: none; }
countries[pop_est > 100000000] { stroke: #b71c1c; stroke-width: 2; }
countries[name ^= "S"] { stroke-dasharray: 3 2; }
countries[gdp_md_est >= 1000000][zoom >= 3] { text-color: darkred; text-size: 14; }
cities { class: city; icon: dot; label: name; text-size: 10; min-zoom: 2; }
countries[continent = "Europe"] cities { class: european-city; icon: star; fill: #1565c0; }
"""


def kp(kartpack, *args, expect=0):
    proc = subprocess.run([kartpack, *map(str, args)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == expect, f"kartpack {' '.join(map(str, args))}: exit {proc.returncode}\n{proc.stderr}"
    return proc


def lonlat(mx, my):
    return mx / HALF_WORLD * 180, math.degrees(2 * math.atan(math.exp(my / HALF_WORLD * math.pi)) - math.pi / 2)


def merc(lon, lat):
    return lon / 180 * HALF_WORLD, math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)) / math.pi * HALF_WORLD


def grid_views(bounds, zoom, width=1024, height=768, name="grid"):
    """Views of `width`×`height` px at `zoom` that together cover `bounds` (w, s, e, n)."""
    w, s, e, n = bounds
    (x0, y0), (x1, y1) = merc(w, s), merc(e, n)
    metres = 2 * HALF_WORLD / (512 * 2 ** zoom)
    vw, vh = width * metres, height * metres
    nx, ny = max(1, math.ceil((x1 - x0) / vw)), max(1, math.ceil((y1 - y0) / vh))
    views = []
    for i in range(nx):
        for j in range(ny):
            cx = x0 + (i + 0.5) * (x1 - x0) / nx
            cy = y0 + (j + 0.5) * (y1 - y0) / ny
            views.append({"name": f"{name}-{zoom}-{i}-{j}", "center": list(lonlat(cx, cy)), "zoom": zoom})
    return views


def tile_classes(package, zoom):
    """{layer: classes} carried by the package's tiles at `zoom` (independent reader)."""
    out = {}
    for (z, x, y), blob in read_pmtiles(package).tiles.items():
        if z != zoom:
            continue
        for name, layer in decode_tile(blob, f"{z}/{x}/{y}").items():
            for f in layer.features:
                if "class" in f.properties:
                    out.setdefault(name, set()).add(f.properties["class"])
    return out


def assert_every_class_drawn(result_views, package, zooms):
    """Features of every class the package's tiles carry at each of `zooms` are drawn in the views at that zoom.
    Label points may be hidden by MapLibre's collision detection: `_labels` layers are left out."""
    for zoom in zooms:
        drawn = {}
        for v in result_views:
            if v["zoom"] == zoom:
                for r in v["rendered"]:
                    if "class" in r["properties"]:
                        drawn.setdefault(r["sourceLayer"], set()).add(r["properties"]["class"])
        for layer, classes in tile_classes(package, zoom).items():
            if layer.endswith("_labels"):
                continue
            assert classes <= drawn.get(layer, set()), (zoom, layer, classes - drawn.get(layer, set()))


def kind_of(layer_id):
    for part in reversed(layer_id.split("-")):
        if part in KINDS:
            return part
    return None


def rgb(value):
    """A MapLibre evaluated colour ([r, g, b, a], premultiplied 0..1) as 0..255 straight RGB."""
    r, g, b, a = value
    return tuple(round(c / a * 255) if a else 0 for c in (r, g, b))


def hex_rgb(text):
    m = re.fullmatch(r"#([0-9a-f]{6})", text)
    if m:
        v = int(m.group(1), 16)
        return (v >> 16, (v >> 8) & 255, v & 255)
    m = re.fullmatch(r"rgba\((\d+), (\d+), (\d+), [0-9.]+\)", text)
    assert m, text
    return tuple(int(g) for g in m.groups())


def compare_looks(result_views, swift, min_checked):
    """Every rendered feature's evaluated look against the Swift cascade's; returns the number checked."""
    looks = {(f["layer"], f.get("id")): f for f in swift}
    checked, mismatches = 0, []
    for view in result_views:
        for r in view["rendered"]:
            kind = kind_of(r["layer"])
            look = looks.get((r["sourceLayer"].removesuffix("_labels"), r["id"]))
            if kind is None or look is None:
                continue
            want = look["kinds"].get(kind)
            if want is None:
                mismatches.append(f"{r['layer']} draws {r['sourceLayer']}/{r['id']} but the cascade has no {kind}")
                continue
            got = r["values"]
            for key, expected in want.items():
                if key == "text-field-attribute":
                    value = r["properties"].get(expected)
                    text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
                    ok = got.get("text-field") == text
                elif key.endswith("-color"):
                    ok = rgb(got.get(key)) == hex_rgb(expected) if isinstance(got.get(key), list) else False
                elif key == "line-dasharray":
                    ok = expected is None and got.get(key) in (None, []) or got.get(key) == expected
                else:
                    ok = got.get(key) == expected or (
                        isinstance(expected, (int, float)) and isinstance(got.get(key), (int, float))
                        and abs(got[key] - expected) < 1e-6)
                if not ok:
                    mismatches.append(f"{r['layer']} {r['sourceLayer']}/{r['id']}: {key} {got.get(key)!r} != {expected!r}")
            checked += 1
    assert not mismatches, "\n".join(mismatches[:20])
    assert checked >= min_checked, checked
    return checked


def image_difference(png_a: bytes, png_b: bytes, threshold=64):
    """The share of pixels whose largest channel difference exceeds `threshold` (images flattened on white)."""
    from PIL import Image, ImageChops
    a = Image.open(io.BytesIO(png_a)).convert("RGB")
    b = Image.open(io.BytesIO(png_b)).convert("RGB")
    assert a.size == b.size, (a.size, b.size)
    diff = ImageChops.difference(a, b)
    channels = diff.split()
    mx = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    hist = mx.histogram()
    return sum(hist[threshold + 1:]) / (a.size[0] * a.size[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    browser.serve_vendor(root, browser.maplibre_builds())
    server = browser.LocalServer(root)
    yield root, server
    server.close()


@pytest.fixture(scope="module")
def sample(kartpack, site):
    """The sample job: `kartpack run Pipelines/forest-plan.json` into the site, and its offline style folder."""
    root, server = site
    folder = root / "sample"
    folder.mkdir()
    package = folder / "forest-plan.pmtiles"
    kp(kartpack, "run", ROOT / "Pipelines" / "forest-plan.json", "--set", f"output.path={package}", "--force")
    kp(kartpack, "style", SHEET, "--package", package, "-o", folder / "style.json", "--base-url", server.base + "sample/")
    return folder, package


@pytest.fixture(scope="module")
def world(kartpack, site, natural_earth):
    """Natural Earth countries and cities (Debian's geopandas) with a sheet of zoom, class-less and descendant rules."""
    root, server = site
    folder = root / "world"
    folder.mkdir()
    sheet = folder / "world.kss"
    sheet.write_text(WORLD_SHEET, encoding="utf-8")
    countries = folder / "countries.shp"
    cities = folder / "cities.shp"
    for src, dst in ((natural_earth["naturalearth_lowres"], countries), (natural_earth["naturalearth_cities"], cities)):
        for ext in (".shp", ".shx", ".dbf", ".prj", ".cpg"):
            if src.with_suffix(ext).exists():
                dst.with_suffix(ext).write_bytes(src.with_suffix(ext).read_bytes())
    package = folder / "world.pmtiles"
    run_convert(kartpack, [countries, cities], package, "--style", str(sheet), "--min-zoom", "0", "--max-zoom", "5",
                "--quiet", "--attribution", "Natural Earth")
    kp(kartpack, "style", sheet, "--package", package, "-o", folder / "style.json", "--base-url", server.base + "world/")
    return folder, package, sheet


def assert_clean(result, server, folder):
    assert result["errors"] == [], result["errors"][:5]
    assert result["missing"] == [], result["missing"][:5]
    glyphs = [r for r in server.requests if "/glyphs/" in r]
    assert glyphs, "no glyph request: labels did not ask for glyphs"
    assert all(r.startswith(f"/{folder}/glyphs/") for r in glyphs), glyphs[:5]
    assert server.ranges > 0, "the PMTiles protocol made no range request"


@pytest.mark.parametrize("version", VERSIONS)
def test_sample_job_in_maplibre(kartpack, site, sample, version, tmp_path):
    root, server = site
    folder, package = sample
    style = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    assert validate_styles([folder / "style.json"], version)[str(folder / "style.json")] == []
    header = read_pmtiles(package).header
    bounds = (header["min_lon_e7"] / 1e7, header["min_lat_e7"] / 1e7, header["max_lon_e7"] / 1e7,
              header["max_lat_e7"] / 1e7)
    views = [{"name": "first", "center": style["center"], "zoom": style["zoom"]}]
    views += [{"name": f"all-{z}", "center": style["center"], "zoom": z} for z in (9, 10)]
    views += grid_views(bounds, 12)
    result = browser.render(server, version, server.base + "sample/style.json", views, 1024, 768)
    assert result["version"] == version
    assert_clean(result, server, "sample")
    # The first view shows data, and features of every class the tiles carry at each zoom are drawn there.
    by_name = {v["name"]: v for v in result["views"]}
    assert len(by_name["first"]["rendered"]) > 50
    assert_every_class_drawn(result["views"], package, (9, 10, 12))
    # Polygon labels come from the `_labels` point layers, once per feature: never repeated at tile edges.
    labels = [(key, n) for v in result["views"] for key, n in v["symbolCounts"].items()
              if key.split("|")[1].endswith("_labels")]
    assert labels, "no polygon label was drawn"
    assert all(n == 1 for _, n in labels), [x for x in labels if x[1] > 1][:5]
    assert {k.split("|")[1] for k, _ in labels} >= {"kommuner_labels", "fastigheter_labels"}
    # Patterns are visible: pixels of each rendered pattern's line colour in a screenshot that shows it.
    import numpy as np
    from PIL import Image
    patterns = {}
    for v in result["views"]:
        for r in v["rendered"]:
            if kind_of(r["layer"]) == "pattern":
                patterns.setdefault(r["values"]["fill-pattern"], set()).add(v["name"])
    assert len(patterns) >= 8, patterns
    for name, names in patterns.items():
        color = np.array(hex_rgb("#" + re.match(r"pattern-[a-z-]+?-([0-9a-f]{6})", name).group(1)))
        best = 0
        for view in names:
            img = np.asarray(Image.open(io.BytesIO(browser.png_bytes(by_name[view]["png"]))).convert("RGB"), int)
            best = max(best, int((np.abs(img - color).max(axis=2) < 40).sum()))
        assert best >= 20, f"pattern {name}: {best} pixels of its colour in {sorted(names)}"
    # The look MapLibre evaluates per feature is the Swift cascade's.
    swift = tmp_path / "features.json"
    w, s, e, n = bounds
    kp(kartpack, "preview", package, "--style", SHEET, "--bbox", f"{w},{s},{e},{n}", "--zoom", "12",
       "-o", tmp_path / "all.svg", "--no-legend", "--features", swift)
    compare_looks([v for v in result["views"] if v["zoom"] == 12], json.loads(swift.read_text()), 300)


@pytest.mark.parametrize("version", VERSIONS)
def test_sample_screenshot_matches_the_preview(kartpack, site, sample, version, tmp_path):
    """A view of MapLibre at zoom 11 against `kartpack preview --bbox … --zoom 11` of the same box: under 4% of
    the pixels differ by more than 64 in a channel (labels are placed and hinted differently; geometry, fills,
    patterns, lines and symbols agree)."""
    root, server = site
    folder, package = sample
    bbox = (19.45, 63.89, 19.86, 64.05)
    png = tmp_path / "preview.png"
    proc = kp(kartpack, "preview", package, "--style", SHEET, "--bbox", ",".join(map(str, bbox)), "--zoom", "11",
              "-o", png, "--no-legend")
    width, height = map(int, re.search(r"(\d+)x(\d+) px", proc.stdout).groups())
    (x0, y0), (x1, y1) = merc(bbox[0], bbox[1]), merc(bbox[2], bbox[3])
    center = list(lonlat((x0 + x1) / 2, (y0 + y1) / 2))
    result = browser.render(server, version, server.base + "sample/style.json",
                            [{"name": "box", "center": center, "zoom": 11}], width, height)
    assert result["errors"] == []
    shot = browser.png_bytes(result["views"][0]["png"])
    (tmp_path / "maplibre.png").write_bytes(shot)
    share = image_difference(shot, png.read_bytes())
    assert share < 0.04, f"{share:.3f} of the pixels differ (see {tmp_path})"


@pytest.mark.parametrize("version", VERSIONS)
def test_natural_earth_screenshot_matches_the_preview(kartpack, site, world, version, tmp_path):
    """Europe at zoom 3 in MapLibre against `kartpack preview` of the same box: under 12 % of the pixels differ by
    more than 64 in a channel. The fills, patterns and borders agree; the dense country and city labels do not:
    MapLibre hides labels that collide (the preview draws them all) and, until the engine writes `countries_labels`,
    places polygon labels per tile piece."""
    root, server = site
    folder, package, sheet = world
    bbox = (-12.0, 35.0, 32.0, 60.0)
    png = tmp_path / "preview.png"
    proc = kp(kartpack, "preview", package, "--style", sheet, "--bbox", ",".join(map(str, bbox)), "--zoom", "3",
              "-o", png, "--no-legend")
    width, height = map(int, re.search(r"(\d+)x(\d+) px", proc.stdout).groups())
    (x0, y0), (x1, y1) = merc(bbox[0], bbox[1]), merc(bbox[2], bbox[3])
    result = browser.render(server, version, server.base + "world/style.json",
                            [{"name": "box", "center": list(lonlat((x0 + x1) / 2, (y0 + y1) / 2)), "zoom": 3}],
                            width, height)
    assert result["errors"] == []
    shot = browser.png_bytes(result["views"][0]["png"])
    (tmp_path / "maplibre.png").write_bytes(shot)
    share = image_difference(shot, png.read_bytes())
    assert share < 0.12, f"{share:.3f} of the pixels differ (see {tmp_path})"


@pytest.mark.parametrize("version", VERSIONS)
def test_natural_earth_in_maplibre(kartpack, site, world, version, tmp_path):
    root, server = site
    folder, package, sheet = world
    v = kp(kartpack, "validate", sheet)
    assert "client_cannot_test" not in v.stdout, v.stdout
    views = [{"name": "world-1", "center": [10, 30], "zoom": 1}, {"name": "europe-2", "center": [15, 50], "zoom": 2},
             {"name": "europe-4", "center": [10, 48], "zoom": 4}, {"name": "africa-4", "center": [20, 5], "zoom": 4}]
    result = browser.render(server, version, server.base + "world/style.json", views, 1024, 768)
    assert_clean(result, server, "world")
    classes = {v["name"]: {r["properties"].get("class") for r in v["rendered"]} for v in result["views"]}
    # The zoom rule's class exists below zoom 3 only, and is drawn there.
    assert "lowzoom" in classes["world-1"] and "lowzoom" in classes["europe-2"]
    assert "lowzoom" not in classes["europe-4"] and {"european", "european-city"} <= classes["europe-4"]
    assert "african" in classes["africa-4"]
    swift = tmp_path / "features.json"
    looks = []
    for name, box in (("europe-4", (-10, 38, 30, 58)), ("africa-4", (5, -8, 35, 18))):
        kp(kartpack, "preview", package, "--style", sheet, "--bbox", ",".join(map(str, box)), "--zoom", "4",
           "-o", tmp_path / f"{name}.svg", "--no-legend", "--features", swift)
        looks += json.loads(swift.read_text())
    compare_looks([v for v in result["views"] if v["zoom"] == 4], looks, 60)


def test_region_package_in_maplibre(kartpack, site, tmp_path):
    """One property's package from `kartpack package` (issue 13), styled by `kartpack style`, in MapLibre: no
    error, no missing image, glyphs from the style's folder, and the property's features drawn."""
    root, server = site
    folder = root / "region"
    folder.mkdir()
    props = tmp_path / "props.shp"
    subprocess.run(["ogr2ogr", "-q", "-dialect", "sqlite", "-lco", "ENCODING=UTF-8", "-nln", "props", str(props),
                    str(ROOT / "SampleData" / "forest" / "fastigheter.shp"), "-sql",
                    "SELECT geometry, FASTIGHET, 'p' || (rowid + 1) AS PID FROM fastigheter"], check=True)
    out = folder / "packages"
    kp(kartpack, "package", ROOT / "Pipelines" / "forest-plan.json", "--regions", props, "--id-field", "PID",
       "--name-field", "FASTIGHET", "--where", '[PID = "p4"]', "--buffer", "20", "--max-zoom", "13", "-o", out,
       "--quiet")
    catalog = json.loads((out / "catalog.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in catalog["regions"]] == ["p4"]
    package = out / catalog["regions"][0]["file"]
    kp(kartpack, "style", SHEET, "--package", package, "-o", folder / "style.json", "--base-url", server.base + "region/")
    style = json.loads((folder / "style.json").read_text(encoding="utf-8"))
    w, s, e, n = catalog["regions"][0]["bounds"]
    views = [{"name": "first", "center": style["center"], "zoom": style["zoom"]}]
    views += grid_views((w, s, e, n), 13, name="region")[:2]
    result = browser.render(server, VERSIONS[0], server.base + "region/style.json", views, 1024, 768)
    assert_clean(result, server, "region")
    rendered = [r for v in result["views"] for r in v["rendered"]]
    layers = {r["sourceLayer"] for r in rendered}
    assert len(rendered) > 20 and {"fastigheter", "avdelningar"} <= layers, (len(rendered), layers)
    names = {r["properties"].get("FASTIGHET") for r in rendered if r["sourceLayer"] == "fastigheter"}
    assert catalog["regions"][0]["name"] in names, names
