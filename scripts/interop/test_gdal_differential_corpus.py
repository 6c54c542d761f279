"""Kartpack reads what other readers read (issue 36): the GDAL differential test of test_gdal_differential.py over
every Shapefile set of the two peer corpora in ../shared/corpus — peer-v1 (63 sets: pyshp, shapefile-js, mapshaper)
and peer-v2 (273 sets of 19 projects' test suites; ../shared/corpus/README.md). The corpus is read where it is,
never copied into the project, and every test here is skipped cleanly where the folder is absent (a user's clone).

Per set: feature count, every attribute value and every vertex compared with `ogr2ogr -f GeoJSON` (a set without
.shx is read by GDAL from a temporary copy with SHAPE_RESTORE_SHX=YES; MultiPatch with -nlt MULTIPOLYGON); every
difference equal or in the documented list of docs/diagnostics.md; every record a feature or a skipped record with a
reason; and every set Kartpack refuses named in CORPUS_REFUSALS with its reason (only sets that are truly
unreadable). The sets are parametrized one by one, so a failure names its set; GDAL's and Kartpack's answers are
cached for the run in a temporary folder the xdist workers share.
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

# The corpus sets Kartpack refuses, each with the reason code it names (the test fails when a set is refused for
# another reason, or read although listed here): only sets that are truly unreadable.
CORPUS_REFUSALS = {
    # Not Shapefiles: bad magic numbers (GDAL refuses them too).
    "peer-v1/calvinmetcalf+shapefile-js/test/data/bad.shp": "not_a_shapefile",
    "peer-v2/NetTopologySuite+NetTopologySuite.IO.ShapeFile/test/NetTopologySuite.IO.ShapeFile.Test/TestShapefiles/"
    "christchurch-canterbury-h.shp": "not_a_shapefile",  # its zero bytes became spaces
    # dBASE II and dBASE 7 tables: not dBASE III headers; read as one, every value would be shifted.
    "peer-v2/infused+dbf/spec/fixtures/dbase_02.shp": "bad_dbf_header",
    "peer-v2/infused+dbf/spec/fixtures/dbase_8c.shp": "bad_dbf_header",
    # Text in code pages iconv has no table for (Mazovia, DOS Persian "Iran System"): no reading is clean.
    "peer-v2/infused+dbf/spec/fixtures/mazovia.shp": "unknown_encoding",
    "peer-v2/yellowfeather+DbfDataReader/test/fixtures/MS__KHDM.shp": "unknown_encoding",
}


pytestmark = pytest.mark.skipif(not CORPUS_SETS, reason=f"{CORPUS} is absent")


@pytest.mark.parametrize("name,path", CORPUS_SETS, ids=[n for n, _ in CORPUS_SETS])
def test_kartpack_reads_what_gdal_reads_in_the_corpus(name, path, cache_dir):
    result = run_set(name, path, None, cache_dir)
    undocumented, _ = classify(result["diffs"], documented_differences())
    assert not undocumented, f"{name}: differences from GDAL not listed in docs/diagnostics.md:\n" + "\n".join(
        f"  {k} {c}: {d}" for k, c, d in undocumented[:20])
    assert not result["accounted"], f"{name}: records not accounted for: {result['accounted']}"
    expected = CORPUS_REFUSALS.get(name.removeprefix("corpus/"))
    assert result["rejected"] == expected, (
        f"{name}: Kartpack refuses it with {result['rejected']}, CORPUS_REFUSALS says {expected}")


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
