"""KartpackKit's ClientStyle (through `kartpack query --style DIR`) against the Swift cascade's look that
`kartpack preview --features` reports — the look the browser tests hold against MapLibre's evaluated style — on
the sample forest plan (SampleData/forest.kss) at several zooms. Plus the sprite: every pattern and icon the
style names is in sprite.png and sprite@2x.png at the place sprite.json says, with its pixel ratio."""
import json
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHEET = ROOT / "SampleData" / "forest.kss"
BBOX = (19.45, 63.89, 19.86, 64.05)
SMALL = (19.60, 63.94, 19.72, 63.99)  # the preview caps its size at 4096 px: a smaller box for zooms 13 and 14


def kp(kartpack, *args, expect=0):
    r = subprocess.run([kartpack, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == expect, (args, r.stdout, r.stderr)
    return r


@pytest.fixture(scope="module")
def sample(kartpack, tmp_path_factory):
    folder = tmp_path_factory.mktemp("kit-style")
    package = folder / "forest-plan.pmtiles"
    kp(kartpack, "run", ROOT / "Pipelines" / "forest-plan.json", "--set", f"output.path={package}", "--force")
    kp(kartpack, "style", SHEET, "--package", package, "-o", folder / "style.json")
    return folder, package


def rgb(text):
    """(r, g, b, alpha) of `#rrggbb` or `rgba(r, g, b, a)`."""
    if text.startswith("#"):
        return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5)) + (1.0,)
    r, g, b, a = (float(x) for x in text[text.index("(") + 1:-1].split(","))
    return int(r), int(g), int(b), round(a, 3)


def client_looks(kartpack, package, folder, zoom, bbox):
    """{(package layer, id): {kind: drawn-layer values}} from `kartpack query --style`, label points joined."""
    out = json.loads(kp(kartpack, "query", package, "--bbox", ",".join(map(str, bbox)), "--zoom", zoom,
                        "--style", folder).stdout)
    looks, properties, label_points = {}, {}, set()
    for f in out["features"]:
        layer = f["properties"]["layer"]
        key = (layer.removesuffix("_labels"), f.get("id"))
        if layer.endswith("_labels"):
            label_points.add(key)
        kinds = looks.setdefault(key, {})
        for drawn in f["look"]:
            assert drawn["kind"] not in kinds, f"two {drawn['kind']} layers draw {key}: {kinds} {drawn}"
            kinds[drawn["kind"]] = drawn
        properties.setdefault(key, {}).update(f["properties"])
    return looks, properties, label_points


@pytest.mark.parametrize("zoom,bbox", [(8, BBOX), (10, BBOX), (11, BBOX), (12, BBOX), (13, SMALL), (14, SMALL)])
def test_client_style_gives_the_cascade_look(kartpack, sample, tmp_path, zoom, bbox):
    folder, package = sample
    features = tmp_path / "features.json"
    kp(kartpack, "preview", package, "--style", SHEET, "--bbox", ",".join(map(str, bbox)), "--zoom", zoom,
       "-o", tmp_path / "p.svg", "--no-legend", "--features", features)
    swift = json.loads(features.read_text())
    looks, properties, label_points = client_looks(kartpack, package, folder, zoom, bbox)
    style = json.loads((folder / "style.json").read_text())
    label_layers = {l["source-layer"].removesuffix("_labels") for l in style["layers"]
                    if l.get("source-layer", "").endswith("_labels")}
    checked, labels, mismatches = 0, 0, []
    kinds_seen = set()
    for f in swift:
        key = (f["layer"], f.get("id"))
        got = looks.get(key)
        if got is None:  # drawn by the preview from a tile piece outside the box
            continue
        want = dict(f["kinds"])
        if "label" in want and f["layer"] in label_layers and key not in label_points:
            want.pop("label")  # the feature's label point lies outside the box
        if set(want) != set(got):
            mismatches.append(f"{key}: kinds {sorted(got)} != {sorted(want)}")
            continue
        for kind, values in want.items():
            g = got[kind]
            kinds_seen.add(kind)
            for prop, expected in values.items():
                if prop == "text-field-attribute":
                    value = properties[key].get(expected)
                    text = "" if value is None else (
                        str(int(value)) if isinstance(value, float) and value.is_integer() else
                        ("true" if value is True else "false" if value is False else str(value)))
                    ok = g["text-field-attribute"] == expected and g["text"] == text
                    labels += 1
                elif prop.endswith("-color"):
                    ok = rgb(g[prop])[:3] == rgb(expected)[:3] and abs(rgb(g[prop])[3] - rgb(expected)[3]) < 0.01
                elif prop == "line-dasharray":
                    ok = g[prop] == expected or (expected is None and g[prop] in (None, []))
                elif isinstance(expected, (int, float)):
                    ok = abs(g[prop] - expected) < 1e-6
                else:
                    ok = g[prop] == expected
                if not ok:
                    mismatches.append(f"{key} {kind}: {prop} {g.get(prop)!r} != {expected!r}")
        checked += 1
    assert not mismatches, "\n".join(mismatches[:20])
    print(f"zoom {zoom}: {checked} features, {labels} labels, kinds {sorted(kinds_seen)}")
    assert checked >= 30, checked
    if zoom >= 11:
        assert labels >= 5 and {"fill", "pattern", "outline", "line", "icon", "label"} <= kinds_seen, kinds_seen


def test_sprite_images_of_the_look(kartpack, sample):
    """Patterns and icons come with their 1x and 2x images, placed as sprite.json / sprite@2x.json say."""
    folder, package = sample
    out = json.loads(kp(kartpack, "query", package, "--bbox", ",".join(map(str, BBOX)), "--zoom", 13,
                        "--style", folder).stdout)
    index = {1: json.loads((folder / "sprite.json").read_text()), 2: json.loads((folder / "sprite@2x.json").read_text())}
    seen = set()
    for f in out["features"]:
        for drawn in f["look"]:
            if drawn["kind"] not in ("pattern", "icon"):
                continue
            name = drawn["fill-pattern" if drawn["kind"] == "pattern" else "icon-image"]
            assert [i["pixelRatio"] for i in drawn["images"]] == [1, 2], drawn
            for image in drawn["images"]:
                entry = index[int(image["pixelRatio"])][name]
                assert {k: image[k] for k in ("x", "y", "width", "height")} == {
                    k: entry[k] for k in ("x", "y", "width", "height")}
            seen.add(name)
    assert len(seen) >= 5, seen


def test_query_style_errors(kartpack, sample, tmp_path):
    folder, package = sample
    bbox = ",".join(map(str, BBOX))
    r = kp(kartpack, "query", package, "--bbox", bbox, "--zoom", 12, "--style", tmp_path, expect=66)
    assert "style.json" in r.stderr
    style = json.loads((folder / "style.json").read_text())
    style["layers"][3]["paint"]["fill-color"] = ["hsl-magic", 1]
    bad = tmp_path / "bad"
    bad.mkdir()
    for p in folder.glob("sprite*"):
        (bad / p.name).write_bytes(p.read_bytes())
    (bad / "style.json").write_text(json.dumps(style))
    r = kp(kartpack, "query", package, "--bbox", bbox, "--zoom", 12, "--style", bad, expect=64)
    assert "hsl-magic" in r.stderr and style["layers"][3]["id"] in r.stderr, r.stderr
    kp(kartpack, "query", package, "--bbox", bbox, "--zoom", 12, "--style", folder, "--format", "text", expect=64)
