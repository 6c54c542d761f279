"""`kartpack convert` command-line behaviour: exit codes (0, 64, 65, 73), --force, a missing .prj with and without
--source-crs, and no temporary files left behind after success or failure."""
import json
import shutil
import subprocess

import pytest

from conftest import SAMPLE_DIR, decode_tile, read_pmtiles, run_convert

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

POINTS = SAMPLE_DIR / "fornminnen.shp"   # small: 46 points
ARGS = ("--max-zoom", "14", "--threads", "2", "--quiet")


def convert(kartpack, *args):
    return subprocess.run([kartpack, "convert", *[str(a) for a in args]], capture_output=True, text=True,
                          timeout=300)


def leftovers(folder) -> list:
    """Temporary files (`name.tmp-<pid>-<rand>`, SQLite journals) left in a folder."""
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name or p.name.endswith(("-journal", "-wal")))


def without_prj(tmp_path, name="fornminnen"):
    """A copy of a sample layer without its .prj."""
    src = tmp_path / "noprj"
    src.mkdir()
    for ext in ("shp", "shx", "dbf", "cpg"):
        shutil.copy(SAMPLE_DIR / f"{name}.{ext}", src / f"{name}.{ext}")
    return src / f"{name}.shp"


@pytest.mark.parametrize("ext", ["pmtiles", "mbtiles"])
def test_existing_output_needs_force(kartpack, tmp_path, ext):
    out = tmp_path / f"points.{ext}"
    old = b"not a tile archive, and it must survive\n"
    out.write_bytes(old)
    proc = convert(kartpack, POINTS, "-o", out, *ARGS)
    assert proc.returncode == 73, proc.stderr
    assert str(out) in proc.stderr and "--force" in proc.stderr, proc.stderr
    assert out.read_bytes() == old
    assert leftovers(tmp_path) == []

    proc = convert(kartpack, POINTS, "-o", out, *ARGS, "--force")
    assert proc.returncode == 0, proc.stderr
    new = out.read_bytes()
    assert new != old
    if ext == "pmtiles":
        assert new[:7] == b"PMTiles"
        assert len(read_pmtiles(out).tiles) > 0
    else:
        assert new[:16] == b"SQLite format 3\x00"
    assert leftovers(tmp_path) == []


def test_force_over_a_real_archive_gives_the_fresh_result(kartpack, tmp_path):
    """--force over an older, different archive: the result equals a conversion into an empty folder."""
    out = tmp_path / "a" / "points.pmtiles"
    out.parent.mkdir()
    run_convert(kartpack, [SAMPLE_DIR / "vagar.shp"], out, *ARGS)
    run_convert(kartpack, [POINTS], out, *ARGS, "--force")
    fresh = tmp_path / "b" / "points.pmtiles"
    fresh.parent.mkdir()
    run_convert(kartpack, [POINTS], fresh, *ARGS)
    assert out.read_bytes() == fresh.read_bytes()
    assert leftovers(out.parent) == [] and leftovers(fresh.parent) == []


def test_missing_prj_is_rejected_and_source_crs_fixes_it(kartpack, tmp_path):
    shp = without_prj(tmp_path)
    outdir = tmp_path / "out"
    outdir.mkdir()
    out = outdir / "fornminnen.pmtiles"
    proc = convert(kartpack, shp, "-o", out, *ARGS)
    assert proc.returncode == 65, proc.stderr
    assert str(shp) in proc.stderr, f"stderr must name the rejected file:\n{proc.stderr}"
    assert ".prj" in proc.stderr and "--source-crs" in proc.stderr, proc.stderr
    assert not out.exists(), "nothing to write, so no output"
    assert leftovers(outdir) == []

    run = run_convert(kartpack, [shp], out, *ARGS, "--source-crs", "EPSG:3006")
    assert run.report["inputs"][0]["crs"] == "EPSG:3006"
    assert run.report["featuresWritten"] == 46
    assert leftovers(outdir) == []
    # Same tiles as the original layer with its .prj.
    ref = tmp_path / "ref" / "fornminnen.pmtiles"
    ref.parent.mkdir()
    run_convert(kartpack, [POINTS], ref, *ARGS)
    a, b = read_pmtiles(out), read_pmtiles(ref)
    assert set(a.tiles) == set(b.tiles)
    for zxy in a.tiles:
        assert decode_tile(a.tiles[zxy]) == decode_tile(b.tiles[zxy]), zxy


def test_one_rejected_input_of_two(kartpack, tmp_path):
    """A rejected input fails the run (65) and publishes nothing; with --allow-partial the others are written and
    the metadata lists the missing layer. Either way the report says which input failed."""
    shp = without_prj(tmp_path)
    out = tmp_path / "both.pmtiles"
    refused = run_convert(kartpack, [shp, SAMPLE_DIR / "vagar.shp"], out, *ARGS, expect=65)
    assert str(shp) in refused.stderr, refused.stderr
    assert not out.exists()
    assert refused.report["published"] is False
    assert [(i["layer"], i["errorCode"]) for i in refused.report["inputs"]] == [("fornminnen", "missing_prj")]
    assert leftovers(tmp_path) == []
    run = run_convert(kartpack, [shp, SAMPLE_DIR / "vagar.shp"], out, *ARGS, "--allow-partial", expect=65)
    assert str(shp) in run.stderr, run.stderr
    assert run.report["exitCode"] == 65
    by_layer = {i["layer"]: i for i in run.report["inputs"]}
    assert set(by_layer) == {"fornminnen", "vagar"}
    assert by_layer["fornminnen"].get("error"), by_layer["fornminnen"]
    assert by_layer["fornminnen"]["written"] == 0
    assert by_layer["vagar"].get("error") is None and by_layer["vagar"]["written"] == 30
    for i in run.report["inputs"]:
        assert i["records"] == i["written"] + sum(i["rejected"].values()), i
    archive = read_pmtiles(out)
    assert [l["id"] for l in archive.metadata["vector_layers"]] == ["vagar"]
    assert [m["layer"] for m in json.loads(archive.metadata["kartpack_missing_layers"])] == ["fornminnen"]
    assert leftovers(tmp_path) == []


def test_report_inputs_follow_command_line_order(kartpack, tmp_path):
    shp = without_prj(tmp_path)
    run = run_convert(kartpack, [shp, SAMPLE_DIR / "vagar.shp"], tmp_path / "o.pmtiles", *ARGS, "--allow-partial",
                      expect=65)
    assert [i["layer"] for i in run.report["inputs"]] == ["fornminnen", "vagar"]


def test_accepted_inputs_keep_command_line_order(kartpack, tmp_path):
    run = run_convert(kartpack, [SAMPLE_DIR / "vagar.shp", POINTS], tmp_path / "o.pmtiles", *ARGS)
    assert [i["layer"] for i in run.report["inputs"]] == ["vagar", "fornminnen"]
    assert [l["id"] for l in read_pmtiles(run.output).metadata["vector_layers"]] == ["vagar", "fornminnen"]


def test_layer_names(kartpack, tmp_path):
    run = run_convert(kartpack, [POINTS, SAMPLE_DIR / "vagar.shp"], tmp_path / "o.mbtiles", *ARGS,
                      "--layer", "sites", "--layer", "roads")
    assert [i["layer"] for i in run.report["inputs"]] == ["sites", "roads"]
    proc = convert(kartpack, POINTS, SAMPLE_DIR / "vagar.shp", "-o", tmp_path / "p.pmtiles", *ARGS,
                   "--layer", "same", "--layer", "same")
    assert proc.returncode == 64, proc.stderr


@pytest.mark.parametrize("args", [
    [],                                             # no -o
    ["-o", "{tmp}/out.geojson"],                    # unknown format
    ["-o", "{tmp}/out.pmtiles", "--min-zoom", "5", "--max-zoom", "3"],
    ["-o", "{tmp}/out.pmtiles", "--max-zoom", "25"],
    ["-o", "{tmp}/out.pmtiles", "--threads", "0"],
    ["-o", "{tmp}/out.pmtiles", "--no-such-option"],
], ids=["no-output", "bad-extension", "zoom-order", "zoom-range", "threads", "unknown-option"])
def test_usage_errors(kartpack, tmp_path, args):
    proc = convert(kartpack, POINTS, *[a.format(tmp=tmp_path) for a in args], "--quiet")
    assert proc.returncode == 64, (args, proc.returncode, proc.stderr)
    assert proc.stderr.strip(), "a usage error says why"
    assert list(tmp_path.iterdir()) == []


def test_missing_input_and_missing_folder(kartpack, tmp_path):
    proc = convert(kartpack, SAMPLE_DIR / "no_such_layer.shp", "-o", tmp_path / "o.pmtiles", "--quiet")
    assert proc.returncode == 66, proc.stderr
    assert "no_such_layer.shp" in proc.stderr
    proc = convert(kartpack, POINTS, "-o", tmp_path / "missing" / "o.pmtiles", "--quiet")
    assert proc.returncode == 73, proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_help(kartpack):
    proc = subprocess.run([kartpack, "convert", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for option in ("--min-zoom", "--max-zoom", "--layer", "--source-crs", "--simplify", "--buffer", "--threads",
                   "--id-field", "--max-tile-bytes", "--max-tile-features", "--report", "--force", "--quiet"):
        assert option in proc.stdout, option
