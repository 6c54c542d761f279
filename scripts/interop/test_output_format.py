"""OutputFormat.version (Sources/ConvertEngine/OutputFormat.swift) is raised with every change of package bytes
(issue 37): an incremental `run` copies tiles from last night's package only when it was built under the same
version and output format, so a rebuild of the same source keeps its tile index and another encoder does not.
The golden package digests (Tests/CLITests/Golden/package-digests.txt, `scripts/output-digests.sh --check`) show
every change of bytes; this test pins the output format to them (Tests/CLITests/Golden/output-format.txt)."""
import hashlib
import re

import pytest

from conftest import ROOT

GOLDEN = ROOT / "Tests" / "CLITests" / "Golden"


def recorded() -> list:
    lines = (GOLDEN / "output-format.txt").read_text().splitlines()
    return [line.split() for line in lines if line and not line.startswith("#")]


@pytest.mark.smoke
def test_the_output_format_is_raised_when_the_package_digests_change():
    source = (ROOT / "Sources" / "ConvertEngine" / "OutputFormat.swift").read_text()
    fmt = int(re.search(r"static let version = (\d+)", source).group(1))
    digests = hashlib.sha256((GOLDEN / "package-digests.txt").read_bytes()).hexdigest()
    history = recorded()
    assert [int(n) for n, _ in history] == list(range(1, len(history) + 1)), "formats must count up from 1"
    last, pinned = history[-1]
    assert int(last) == fmt, f"OutputFormat.version is {fmt}, output-format.txt's last line says {last}"
    assert pinned == digests, (
        f"package-digests.txt changed since output format {fmt} was recorded: raise OutputFormat.version to "
        f"{fmt + 1} and add the line '{fmt + 1} {digests}' to Tests/CLITests/Golden/output-format.txt")
