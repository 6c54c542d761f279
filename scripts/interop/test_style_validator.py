"""validateStyleMin from maplibre-gl.js (5.24.0 and 5.3.0) on the styles `kartpack style` writes, with a self-test
that it does catch errors."""
import json

import pytest

from conftest import ROOT, run_convert, sample_shapefiles
from style_validator import validate_styles
from test_mapstyle import SHEET, kp


@pytest.mark.parametrize("version", ["5.24.0", "5.3.0"])
def test_the_validator_catches_errors(tmp_path, version):
    bad = {"version": 8, "sources": {"s": {"type": "vector", "url": "pmtiles://x"}}, "layers": [
        {"id": "a", "type": "fill", "source": "s", "source-layer": "l", "paint": {"fill-color": 3}},
        {"id": "b", "type": "line", "source": "nowhere", "source-layer": "l"},
        {"id": "c", "type": "line", "source": "s", "source-layer": "l", "paint": {"line-width": -1}},
        {"id": "d", "type": "fill", "source": "s", "source-layer": "l", "filter": ["==", ["get", "a"]]},
    ]}
    good = {"version": 8, "sources": {}, "layers": [{"id": "bg", "type": "background"}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "good.json").write_text(json.dumps(good))
    result = validate_styles([tmp_path / "bad.json", tmp_path / "good.json"], version)
    errors = " | ".join(result[str(tmp_path / "bad.json")])
    assert "fill-color" in errors and "nowhere" in errors and "line-width" in errors and "filter" in errors, errors
    assert result[str(tmp_path / "good.json")] == []


@pytest.fixture(scope="module")
def styles(kartpack, tmp_path_factory):
    """Styles of the sample (PMTiles, relative and absolute URLs) and of an MBTiles package with a tiles URL."""
    d = tmp_path_factory.mktemp("validator")
    pm = run_convert(kartpack, sample_shapefiles(), d / "forest.pmtiles", "--style", str(SHEET), "--min-zoom", "8",
                     "--max-zoom", "14", "--quiet").output
    mb = run_convert(kartpack, sample_shapefiles(), d / "forest.mbtiles", "--style", str(SHEET), "--min-zoom", "8",
                     "--max-zoom", "12", "--quiet").output
    bare = run_convert(kartpack, sample_shapefiles(), d / "bare.pmtiles", "--min-zoom", "8", "--max-zoom", "10",
                       "--quiet").output
    out = []
    kp(kartpack, "style", SHEET, "--package", pm, "-o", d / "rel" / "style.json")
    out.append(d / "rel" / "style.json")
    kp(kartpack, "style", SHEET, "--package", pm, "-o", d / "abs" / "style.json", "--base-url", "http://127.0.0.1:9/m/")
    out.append(d / "abs" / "style.json")
    kp(kartpack, "style", SHEET, "--package", mb, "-o", d / "mb" / "style.json",
       "--tiles-url", "http://127.0.0.1:9/t/{z}/{x}/{y}.pbf")
    out.append(d / "mb" / "style.json")
    proc = kp(kartpack, "style", SHEET, "--package", bare, "-o", d / "bare" / "style.json")
    assert "no classes" in proc.stderr
    out.append(d / "bare" / "style.json")
    return out


@pytest.mark.parametrize("version", ["5.24.0", "5.3.0"])
def test_every_written_style_is_valid(styles, version):
    result = validate_styles(styles, version)
    assert set(result) == {str(s) for s in styles}
    for path, errors in result.items():
        assert errors == [], f"{path}: {errors}"
    for s in styles:
        text = s.read_text()
        assert ".invalid" not in text and "mbtiles://" not in text


def test_mbtiles_needs_a_tiles_url(kartpack, styles, tmp_path):
    mb = styles[2].parent.parent / "forest.mbtiles"
    proc = kp(kartpack, "style", SHEET, "--package", mb, "-o", tmp_path / "style.json", expect=64)
    assert "--tiles-url" in proc.stderr
    style = json.loads(styles[2].read_text())
    assert style["sources"]["kartpack"]["tiles"] == ["http://127.0.0.1:9/t/{z}/{x}/{y}.pbf"]
