"""docs/diagnostics.md lists every reason code Kartpack can emit, and every code the hostile corpus expects (issue
12: docs and emitted codes agree). The codes are the cases of `ReasonCode` (Sources/KartpackCore/ReasonCode.swift):
every emitted code passes through that type (issue 33; Tests/KartpackCoreTests/ReasonCodeDocsTests.swift checks
both directions and that Sources write no code as a string literal). No binary needed: this reads the raw values."""
import json
import re

import pytest

from conftest import ROOT

# scripts/test.sh --quick runs the interop tests marked smoke (docs/testing.md).
pytestmark = pytest.mark.smoke

DOCS = ROOT / "docs" / "diagnostics.md"
REASON_CODE = ROOT / "Sources" / "KartpackCore" / "ReasonCode.swift"
RAW_VALUE = re.compile(r'\b\w+ =\s+"([a-z][a-z0-9_]*)"')


def documented_codes() -> set:
    """Backticked words in the first cell of rows of tables whose header's first cell is `Code` (the rule of
    docs/diagnostics.md, *Reason codes in the source*)."""
    codes, header, previous_was_row = set(), None, False
    for line in DOCS.read_text().splitlines():
        is_row = line.startswith("|")
        if is_row:
            first = line.split("|")[1].strip()
            if not previous_was_row:
                header = first
            elif header == "Code" and not line.startswith("|---"):
                codes |= set(re.findall(r"`([^`]+)`", first))
        previous_was_row = is_row
    return codes


def test_every_reason_code_is_documented():
    codes = set(RAW_VALUE.findall(REASON_CODE.read_text()))
    missing = sorted(codes - documented_codes())
    assert not missing, f"ReasonCode cases missing from docs/diagnostics.md: {missing}"
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
    missing = sorted(codes - documented_codes())
    assert not missing, f"codes the hostile corpus expects but docs/diagnostics.md does not list: {missing}"
