"""`kartpack style` and `kartpack preview` (the MapStyle module), checked with independent readers: the style
JSON with `json` against the MapLibre rules the generator promises, the sprite sheets with Pillow against
`sprite.json`, the preview SVG with `xml.etree`.

These tests need the `style` and `preview` commands; they are skipped (module-level) only while
`kartpack style --help` exits non-zero (or prints a help without `--package`), so they switch on by themselves once
the commands exist.
"""
import json
import os
import pathlib
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, read_pmtiles, run_convert, sample_shapefiles

SHEET = ROOT / "SampleData" / "forest.kss"
SVG = "{http://www.w3.org/2000/svg}"
SHEET_CLASSES = {
    "kommuner": {"municipality"}, "fastigheter": {"property", "company-property"},
    "avdelningar": {"stand", "conifer-stand", "mixed-stand", "broadleaf-stand", "clearcut", "mire",
                    "old-conifer-stand", "protected-stand"},
    "hansyn": {"consideration", "natura2000", "national-park", "key-biotope", "conservation-agreement",
               "heritage-area", "habitat-protection", "nature-value", "nature-reserve"},
    "vagar": {"road", "major-road", "minor-road"},
    "fornminnen": {"monument", "burial", "industrial-remain", "trapping-pit", "historic-building"},
}
PATTERNS = {"diagonal-hatch", "backward-diagonal", "cross-hatch", "horizontal", "vertical", "dots", "grid"}


def _binary():
    path = os.environ.get("KARTPACK_BIN")
    if not path:
        try:
            out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                                 timeout=120).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        path = os.path.join(out, "kartpack")
    return path if os.path.exists(path) else None


def _style_command_exists() -> bool:
    path = _binary()
    if not path:
        return False
    try:
        proc = subprocess.run([path, "style", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    # A binary that answers anything with exit 0 (a stub) is not the command: its help must name --package.
    return proc.returncode == 0 and "--package" in proc.stdout + proc.stderr


pytestmark = pytest.mark.skipif(not _style_command_exists(),
                                reason="`kartpack style --help` fails: the style/preview commands are not there yet")


def kp(kartpack, *args, expect=0):
    proc = subprocess.run([kartpack, *[str(a) for a in args]], capture_output=True, text=True, timeout=600)
    assert proc.returncode == expect, (
        f"kartpack {' '.join(map(str, args))}\nexit {proc.returncode}, expected {expect}\nstderr:\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def styled_pmtiles(kartpack, tmp_path_factory):
    """The forest sample converted with the sample sheet (every feature gets its `class`)."""
    out = tmp_path_factory.mktemp("styled") / "forest.pmtiles"
    return run_convert(kartpack, sample_shapefiles(), out, "--style", str(SHEET), "--min-zoom", "0",
                       "--max-zoom", "14", "--threads", "2", "--quiet").output


@pytest.fixture(scope="module")
def package_classes(styled_pmtiles):
    """{layer: {class: count}} from the package metadata (`kartpack` JSON string)."""
    meta = read_pmtiles(styled_pmtiles).metadata
    summary = json.loads(meta["kartpack"])
    return {layer: info.get("classes", {}) for layer, info in summary["layers"].items()}


@pytest.fixture(scope="module")
def style_dir(kartpack, styled_pmtiles, tmp_path_factory):
    d = tmp_path_factory.mktemp("style")
    kp(kartpack, "style", SHEET, "--package", styled_pmtiles, "-o", d / "style.json")
    return d


def class_of_filter(f):
    """The class a layer's filter selects: ["==", ["get", "class"], NAME], alone or first in an "all"."""
    if f and f[0] == "all":
        f = f[1]
    if f == ["!", ["has", "class"]]:
        return "unclassified"
    assert f[0] == "==" and f[1] == ["get", "class"] and isinstance(f[2], str), f
    return f[2]


def test_style_json_follows_the_contract(style_dir, package_classes):
    style = json.loads((style_dir / "style.json").read_text(encoding="utf-8"))
    assert style["version"] == 8
    source = style["sources"]["kartpack"]
    assert source["type"] == "vector" and source["url"] == "pmtiles://../styled0/forest.pmtiles" or \
        source["url"].startswith("pmtiles://")
    assert "sprite" in style and "glyphs" in style
    assert "{fontstack}" in style["glyphs"] and "{range}" in style["glyphs"] and ".invalid" not in style["glyphs"]
    for font_range in (style_dir / "glyphs" / "Noto Sans Regular").iterdir():
        assert font_range.name.endswith(".pbf") and font_range.stat().st_size > 1000
    ids = [layer["id"] for layer in style["layers"]]
    assert len(ids) == len(set(ids))
    assert style["layers"][0]["type"] == "background"
    seen = set()
    for layer in style["layers"][1:]:
        assert layer["type"] in {"fill", "line", "circle", "symbol"}
        assert layer["source"] == "kartpack"
        c = class_of_filter(layer["filter"])
        # The package's classes, and (without classes_by_zoom) every class the sheet can give the layer.
        # A polygon layer's label points (`L_labels`) carry the classes of L.
        base = layer["source-layer"].removesuffix("_labels")
        assert c in package_classes[layer["source-layer"]] or c in SHEET_CLASSES[base] | {"unclassified"}, (layer["id"], c)
        assert 0 <= layer.get("minzoom", 0) <= layer.get("maxzoom", 24) <= 24
        seen.add((layer["source-layer"], c))
    # Every class written into the package has a layer.
    written = {(layer, c) for layer, classes in package_classes.items() for c, n in classes.items() if n > 0}
    assert written <= seen, written - seen
    # Draw order: every fill layer comes before every line layer.
    types = [layer["type"] for layer in style["layers"][1:]]
    last_fill = max(i for i, t in enumerate(types) if t == "fill")
    first_line = min(i for i, t in enumerate(types) if t == "line")
    assert last_fill < first_line


def test_sprite_sheets_open_with_pillow_and_match_the_index(style_dir):
    from PIL import Image

    style = json.loads((style_dir / "style.json").read_text(encoding="utf-8"))

    def literals(v):
        if isinstance(v, str):
            yield v
        elif isinstance(v, list) and v and v[0] == "case":
            for i, x in enumerate(v[1:]):
                if i % 2 == 1 or i == len(v) - 2:
                    yield from literals(x)

    referenced = set()
    for layer in style["layers"]:
        for part in ("paint", "layout"):
            for key in ("fill-pattern", "icon-image"):
                if key in layer.get(part, {}):
                    referenced |= set(literals(layer[part][key]))
    assert referenced
    sizes = {}
    for suffix, ratio in (("", 1), ("@2x", 2)):
        index = json.loads((style_dir / f"sprite{suffix}.json").read_text())
        with Image.open(style_dir / f"sprite{suffix}.png") as im:
            im.load()
            assert im.format == "PNG" and im.mode == "RGBA"
            sizes[ratio] = im.size
            assert referenced <= set(index), referenced - set(index)
            for name, e in index.items():
                assert e["pixelRatio"] == ratio
                assert e["width"] % ratio == 0 and e["height"] % ratio == 0
                assert e["x"] + e["width"] <= im.width and e["y"] + e["height"] <= im.height
                crop = im.crop((e["x"], e["y"], e["x"] + e["width"], e["y"] + e["height"]))
                alpha = crop.getchannel("A").getextrema()
                assert alpha[1] > 0, f"{name} is empty"
        import re
        patterns = {re.match(r"pattern-([a-z-]+?)-[0-9a-f]{6}", n).group(1) for n in index if n.startswith("pattern-")}
        assert patterns == PATTERNS
        assert any(n.startswith("symbol-") for n in index) and any(n.startswith("icon-") for n in index)
    assert sizes[2] == (2 * sizes[1][0], 2 * sizes[1][1])


def test_style_url_option(kartpack, styled_pmtiles, tmp_path):
    kp(kartpack, "style", SHEET, "--package", styled_pmtiles, "-o", tmp_path / "style.json",
       "--url", "https://example.com/tiles/forest.pmtiles")
    style = json.loads((tmp_path / "style.json").read_text(encoding="utf-8"))
    assert style["sources"]["kartpack"]["url"] == "https://example.com/tiles/forest.pmtiles"


def _data_tile(package, zoom):
    """A tile at `zoom` holding the most bytes (surely with data)."""
    tiles = read_pmtiles(package).tiles
    candidates = [(len(b), zxy) for zxy, b in tiles.items() if zxy[0] == zoom]
    assert candidates, f"no tile at zoom {zoom}"
    return max(candidates)[1]


def _svg_counts(path):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    assert len(root.get("viewBox").split()) == 4
    maps = [g for g in root.iter(SVG + "g") if g.get("id") == "map"]
    assert len(maps) == 1
    return root, sum(1 for _ in maps[0].iter(SVG + "path")), sum(1 for _ in maps[0].iter(SVG + "text"))


def test_preview_of_a_tile_is_well_formed_svg(kartpack, styled_pmtiles, tmp_path):
    z, x, y = _data_tile(styled_pmtiles, 13)
    out = tmp_path / "map.svg"
    kp(kartpack, "preview", styled_pmtiles, "--style", SHEET, "--tile", f"{z}/{x}/{y}", "-o", out)
    root, paths, texts = _svg_counts(out)
    assert paths > 0
    assert root.get("viewBox") == "0 0 512 " + root.get("viewBox").split()[3]
    # Deterministic.
    again = tmp_path / "again.svg"
    kp(kartpack, "preview", styled_pmtiles, "--style", SHEET, "--tile", f"{z}/{x}/{y}", "-o", again)
    assert again.read_bytes() == out.read_bytes()


def test_preview_of_a_box(kartpack, styled_pmtiles, tmp_path):
    meta = read_pmtiles(styled_pmtiles).header
    w, s = meta["min_lon_e7"] / 1e7, meta["min_lat_e7"] / 1e7
    e, n = meta["max_lon_e7"] / 1e7, meta["max_lat_e7"] / 1e7
    out = tmp_path / "box.svg"
    kp(kartpack, "preview", styled_pmtiles, "--style", SHEET, "--bbox", f"{w},{s},{e},{n}", "--zoom", "12",
       "-o", out)
    _, paths, _ = _svg_counts(out)
    assert paths > 0


def test_preview_of_a_missing_tile_fails(kartpack, styled_pmtiles, tmp_path):
    proc = kp(kartpack, "preview", styled_pmtiles, "--style", SHEET, "--tile", "5/0/0", "-o", tmp_path / "x.svg",
              expect=64)
    assert "5/0/0" in proc.stderr
    assert not (tmp_path / "x.svg").exists()


def test_preview_png(kartpack, styled_pmtiles, tmp_path):
    z, x, y = _data_tile(styled_pmtiles, 12)
    out = tmp_path / "map.png"
    args = ("preview", styled_pmtiles, "--style", SHEET, "--tile", f"{z}/{x}/{y}", "-o", out)
    if shutil.which("rsvg-convert"):
        kp(kartpack, *args)
        from PIL import Image
        with Image.open(out) as im:
            assert im.format == "PNG" and im.width == 512
    else:
        proc = subprocess.run([kartpack, *map(str, args)], capture_output=True, text=True, timeout=300)
        assert proc.returncode != 0 and "rsvg-convert" in proc.stderr
        assert not out.exists()
