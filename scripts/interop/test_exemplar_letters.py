"""Sources/Shapefile/ExemplarLetters.swift is what scripts/generate-exemplar-letters.py writes from ICU's CLDR data
(issue 36: the encoding detector's letters come from a maintained source, none typed by hand). Skipped where ICU 72
(Debian: libicu72) is absent."""
import ctypes
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.smoke


def test_the_exemplar_letters_are_generated_from_icu():
    try:
        ctypes.CDLL("libicui18n.so.72")
    except OSError:
        pytest.skip("ICU 72 (libicui18n.so.72) is absent")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate-exemplar-letters.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr or proc.stdout
    text = (ROOT / "Sources" / "Shapefile" / "ExemplarLetters.swift").read_text()
    # Czech and French are there with the letters that tell CP1250 from CP1252.
    assert '("cs", "CP1250 CP852", "áéíóúýčďěňřšťůž")' in text
    assert '("fr", "CP1252", "àâæçèéêëîïôùûüÿœ")' in text
