"""docs/diagnostics.md lists every reason code the reader, the CRS resolver and `inspect` can emit, and every code
the hostile corpus expects (issue 12: docs and emitted codes agree). No binary needed: the codes are the snake_case
string literals of those sources."""
import json
import re

import pytest

from conftest import ROOT

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

DOCS = ROOT / "docs" / "diagnostics.md"
SOURCES = sorted((ROOT / "Sources" / "Shapefile").glob("*.swift")) + sorted(
    (ROOT / "Sources" / "GeoPackage").glob("*.swift")) + [ROOT / "Sources" / "ConvertEngine" / "InputLayer.swift"] + sorted(
    (ROOT / "Sources" / "Reprojection").glob("*.swift")) + [ROOT / "Sources" / "Inspection" / "ShapefileInspection.swift"] + [
    ROOT / "Sources" / "ConvertEngine" / "FeatureIDAssigner.swift"] + sorted((ROOT / "Sources" / "Publishing").glob("*.swift"))
# snake_case literals in those files that are not reason codes.
# PROJ string and PROJJSON keys the CRS sanitizer inspects.
# Package metadata keys (not reason codes).
NOT_CODES = {"d_unknown", "d_none", "geoid_model", "xy_grids", "z_grids", "kartpack_fingerprint"}
LITERAL = re.compile(r'"([a-z][a-z0-9]*(?:_[a-z0-9]+)+)"')


def documented(code: str) -> bool:
    return f"`{code}`" in DOCS.read_text()


def test_every_emitted_code_is_documented():
    codes = set()
    for path in SOURCES:
        codes |= set(LITERAL.findall(path.read_text()))
    missing = sorted(c for c in codes - NOT_CODES if not documented(c))
    assert not missing, f"codes emitted by the reader/CRS resolver but missing from docs/diagnostics.md: {missing}"
    assert {"hostile_prj", "unparseable_prj", "prj_too_large", "dbf_no_terminator", "record_length_overrun"} <= codes


def test_every_code_the_hostile_corpus_expects_is_documented():
    manifest = json.loads((ROOT / "SampleData" / "hostile" / "manifest.json").read_text())
    codes = set()
    for c in manifest["cases"]:
        e = c["expected"]
        if "reject" in e:
            codes.add(e["reject"]["reason"])
        for key in ("rejected", "repaired", "coerced"):
            codes |= set(e.get(key, {}))
        codes |= set(e.get("warnings", []))
    missing = sorted(c for c in codes if not documented(c))
    assert not missing, f"codes the hostile corpus expects but docs/diagnostics.md does not list: {missing}"
