"""Kartpack reads what other readers read (issue 36): the GDAL differential test of test_gdal_differential.py over
every Shapefile set of the two peer corpora in ../shared/corpus — peer-v1 (63 sets: pyshp, shapefile-js, mapshaper)
and peer-v2 (273 sets of 19 projects' test suites; ../shared/corpus/README.md). The corpus is read where it is,
never copied into the project, and every test here is skipped cleanly where the folder is absent (a user's clone).

Per set: feature count, every attribute value and every vertex compared with `ogr2ogr -f GeoJSON` (a set without
.shx is read by GDAL from a temporary copy with SHAPE_RESTORE_SHX=YES; MultiPatch with -nlt MULTIPOLYGON); every
difference equal or in the documented list of docs/diagnostics.md; every record a feature or a skipped record with a
reason; and every set Kartpack refuses named in CORPUS_REFUSALS with its reason code and the words of its message
that name the reason (only sets that cannot be read without guessing). The sets are parametrized one by one, so a
failure names its set; GDAL's and Kartpack's answers are cached for the run in a temporary folder the xdist workers
share.
"""
import pytest

from conftest import ROOT
from test_gdal_differential import cache_dir, classify, documented_differences, run_set  # noqa: F401 (fixture)

CORPUS = ROOT.parent / "shared" / "corpus"


def corpus_sets() -> list:
    """Every Shapefile set of the peer corpora, by its .shp (any case), named corpus/<corpus>/<owner+repo>/<path>."""
    if not CORPUS.is_dir():
        return []
    sets = []
    for corpus in ("peer-v1", "peer-v2"):
        for p in sorted((CORPUS / corpus).rglob("*")):
            if p.suffix.lower() == ".shp" and p.is_file():
                sets.append(("corpus/" + str(p.relative_to(CORPUS)), p))
    return sets


CORPUS_SETS = corpus_sets()

# The corpus sets Kartpack refuses: set -> (the reason code it names, words its message must hold). The test fails
# when a set is refused for another reason or with another message, or read although listed here. Only sets that
# cannot be read without guessing are here: not Shapefiles, and text whose code page neither anything in the files
# declares nor the text tells (docs/reading.md says what a user does: a .cpg naming the code page).
CORPUS_REFUSALS = {
    # Not Shapefiles: bad magic numbers (GDAL refuses them too).
    "peer-v1/calvinmetcalf+shapefile-js/test/data/bad.shp": ("not_a_shapefile", "bad magic number"),
    "peer-v2/NetTopologySuite+NetTopologySuite.IO.ShapeFile/test/NetTopologySuite.IO.ShapeFile.Test/TestShapefiles/"
    "christchurch-canterbury-h.shp": ("not_a_shapefile", "bad magic number"),  # its zero bytes became spaces
    # LDID 0x69 declares Mazovia (DOS code page 620): no maintained table exists here (glibc iconv, ICU 72); the
    # only other one found, Debian's konwert-filters, is a 1999 upstream no longer maintained. Reading the bytes in
    # another code page would be a guess against the declaration. (infused/dbf's own expected reading, "Ś╫êëτ⌡ś",
    # is itself random bytes.)
    "peer-v2/infused+dbf/spec/fixtures/mazovia.shp": ("unknown_encoding", "Mazovia (DOS code page 620)"),
    # DOS Persian "Iran System" (visual order, contextual letter forms), LDID 0 and no .cpg: no table exists here
    # (glibc iconv, ICU 72's IBM-1097/1098 Farsi pages read it as noise), and no code page tried reads it cleanly.
    # DbfDataReader's own test reads it as CP1251, i.e. garbled.
    "peer-v2/yellowfeather+DbfDataReader/test/fixtures/MS__KHDM.shp": ("unknown_encoding", "reads the text cleanly"),
    # One value, "éà toto" (0xE9 0xE0), LDID 0 and no .cpg: French letters in CP1252, Slovak "éŕ toto" in CP1250.
    # The text cannot tell; the file name says Latin-1, which a .cpg would declare. (pyshp's latin1 set, "Ñandú",
    # is read: no language writes ń with ú, CP1250's reading.)
    "peer-v2/MapServer+MapServer/msautotest/misc/data/latin1.shp": ("unknown_encoding", "reads as well in CP1252"),
}


pytestmark = pytest.mark.skipif(not CORPUS_SETS, reason=f"{CORPUS} is absent")


@pytest.mark.parametrize("name,path", CORPUS_SETS, ids=[n for n, _ in CORPUS_SETS])
def test_kartpack_reads_what_gdal_reads_in_the_corpus(name, path, cache_dir):
    result = run_set(name, path, None, cache_dir)
    undocumented, _ = classify(result["diffs"], documented_differences())
    assert not undocumented, f"{name}: differences from GDAL not listed in docs/diagnostics.md:\n" + "\n".join(
        f"  {k} {c}: {d}" for k, c, d in undocumented[:20])
    assert not result["accounted"], f"{name}: records not accounted for: {result['accounted']}"
    code, words = CORPUS_REFUSALS.get(name.removeprefix("corpus/"), (None, ""))
    assert result["rejected"] == code, (
        f"{name}: Kartpack refuses it with {result['rejected']} ({result['why']}), CORPUS_REFUSALS says {code}")
    assert words in result["why"], f"{name}: the refusal does not name its reason ({words!r}): {result['why']}"


def test_every_documented_corpus_difference_still_occurs(cache_dir):
    documented = documented_differences()
    used = set()
    for name, path in CORPUS_SETS:
        used |= classify(run_set(name, path, None, cache_dir)["diffs"], documented)[1]
    stale = sorted(k for k in set(documented) - used if documented[k].get("corpus"))
    assert not stale, f"documented GDAL differences marked corpus that no corpus set shows: {stale}"


def test_every_listed_refusal_is_a_corpus_set():
    names = {n.removeprefix("corpus/") for n, _ in CORPUS_SETS}
    assert not set(CORPUS_REFUSALS) - names, sorted(set(CORPUS_REFUSALS) - names)
