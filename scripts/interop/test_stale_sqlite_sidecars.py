"""A `--force` publish of an MBTiles package removes the `-wal`/`-shm`/`-journal` files a killed reader or writer of
the previous file left next to it (issue 15): otherwise SQLite would apply the stale write-ahead log to the new
file and read it as "malformed". Checked with Python's sqlite3 and GDAL's ogrinfo, not with kartpack's reader."""
import json
import pathlib
import shutil
import sqlite3
import subprocess

from conftest import ROOT, require_tool

SAMPLE = ROOT / "SampleData" / "forest"


def convert(kartpack, out, *layers, extra=()):
    inputs = [str(SAMPLE / f"{layer}.shp") for layer in layers]
    proc = subprocess.run([kartpack, "convert", *inputs, "-o", str(out), "--max-zoom", "8", "--quiet", *extra],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def stale_wal_of(path, tmp_path):
    """A real write-ahead log and shared-memory index of `path`, saved while a writer had uncommitted-to-the-main-
    file changes in them (as a killed process leaves them), then `path` itself unchanged."""
    saved = tmp_path / "saved"
    saved.mkdir()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("CREATE TABLE IF NOT EXISTS junk (x BLOB)")
    for _ in range(50):
        con.execute("INSERT INTO junk VALUES (randomblob(4000))")
    con.execute("UPDATE metadata SET value = 'from the stale log' WHERE name = 'name'")
    con.commit()
    for side in ("-wal", "-shm"):
        shutil.copy(f"{path}{side}", saved / side)
    con.close()  # checkpoints and removes the log: put the saved one back below
    return saved


def test_force_publish_removes_a_stale_wal_shm_and_journal(kartpack, tmp_path):
    ogrinfo = require_tool("ogrinfo")
    out = tmp_path / "out.mbtiles"
    convert(kartpack, out, "kommuner")
    saved = stale_wal_of(out, tmp_path)
    for side in ("-wal", "-shm"):
        shutil.copy(saved / side, f"{out}{side}")
    (tmp_path / "out.mbtiles-journal").write_bytes(b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + b"\0" * 504)

    convert(kartpack, out, "fornminnen", "vagar", extra=("--force",))

    for side in ("-wal", "-shm", "-journal"):
        assert not (tmp_path / f"out.mbtiles{side}").exists(), f"{side} survived the publish"
    con = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        assert "junk" not in tables, "the stale log was applied to the new file"
        name = con.execute("SELECT value FROM metadata WHERE name = 'name'").fetchone()
        assert name and name[0] != "from the stale log"
        assert con.execute("SELECT count(*) FROM tiles").fetchone()[0] > 0
    finally:
        con.close()
    proc = subprocess.run([ogrinfo, "-ro", "-al", "-so", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "malformed" not in (proc.stdout + proc.stderr).lower(), proc.stderr
    assert "ERROR" not in proc.stderr, proc.stderr
    layers = sorted(line.split(": ", 1)[1] for line in proc.stdout.splitlines() if line.startswith("Layer name: "))
    assert layers == ["fornminnen", "vagar"], layers


def test_sidecars_of_another_file_are_left_alone(kartpack, tmp_path):
    """Only the output's own sidecars go: `other.mbtiles-wal` next to it stays."""
    out = tmp_path / "out.mbtiles"
    other = tmp_path / "other.mbtiles-wal"
    other.write_bytes(b"not ours")
    convert(kartpack, out, "fornminnen")
    convert(kartpack, out, "fornminnen", extra=("--force",))
    assert other.read_bytes() == b"not ours"


def mbtiles_plan(tmp_path):
    """The sample pipeline writing MBTiles region packages (z8-10), with its paths made absolute."""
    pipelines = ROOT / "Pipelines"
    spec = json.loads((pipelines / "forest-plan.json").read_text())
    for source in spec["sources"]:
        source["path"] = str((pipelines / source["path"]).resolve())
    spec["style"] = str((pipelines / spec["style"]).resolve())
    spec["tiles"]["maxZoom"] = 10
    spec["output"].update({"format": "mbtiles", "path": str(tmp_path / "unused.mbtiles")})
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(spec))
    return plan


def test_region_packages_report_a_planted_wal_and_the_next_night_removes_it(kartpack, tmp_path):
    """MBTiles region packages are written in rollback-journal mode; a real write-ahead log planted beside a published
    one (which a plain SQLite reader applies: shown with Python's sqlite3) makes `verify` fail, naming it, while
    Kartpack's readers still read the signed bytes; the next night removes the one beside the folder's top-level
    name and publishes a generation without it."""
    plan = mbtiles_plan(tmp_path)
    out = tmp_path / "regions"
    args = [kartpack, "package", str(plan), "--regions", str(SAMPLE / "kommuner.shp"), "--id-field", "KOMMUNKOD",
            "-o", str(out), "--quiet"]
    subprocess.run(args, check=True, timeout=600)
    entry = json.loads((out / "catalog.json").read_text())["regions"][0]
    top = out / entry["file"]
    published = top.resolve()
    assert published.parent.parent.name == ".generations"
    header = published.read_bytes()[:100]
    assert (header[18], header[19]) == (1, 1), "not in rollback-journal mode"
    assert subprocess.run([kartpack, "verify", str(out)], capture_output=True, timeout=300).returncode == 0

    copy = tmp_path / "copy.mbtiles"
    shutil.copy(published, copy)
    saved = stale_wal_of(copy, tmp_path)
    for side in ("-wal", "-shm"):
        shutil.copy(saved / side, f"{published}{side}")
        shutil.copy(saved / side, f"{top}{side}")
    con = sqlite3.connect(f"file:{published}?mode=ro", uri=True)
    try:
        applied = con.execute("SELECT value FROM metadata WHERE name = 'name'").fetchone()[0]
    finally:
        con.close()
    assert applied == "from the stale log", "the planted log is not one a plain reader applies"

    v = subprocess.run([kartpack, "verify", str(out)], capture_output=True, text=True, timeout=300)
    assert v.returncode == 65, v.stderr
    assert f"{entry['file']}-wal: a SQLite -wal file beside the package" in v.stderr, v.stderr
    info = subprocess.run([kartpack, "inspect", str(top), "--format", "json"], capture_output=True, text=True,
                          timeout=300)
    assert info.returncode == 0, info.stderr
    assert "from the stale log" not in info.stdout

    subprocess.run(args, check=True, timeout=600)
    for side in ("-wal", "-shm"):
        assert not pathlib.Path(f"{top}{side}").exists(), f"{side} beside the top-level name survived the night"
    assert top.resolve() != published
    v = subprocess.run([kartpack, "verify", str(out)], capture_output=True, text=True, timeout=300)
    assert v.returncode == 0, v.stderr
