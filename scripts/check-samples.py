#!/usr/bin/python3
"""Checks SampleData/forest/ with independent readers; exits non-zero on any failure.

- The raw files against the ESRI whitepaper and dBASE III layout (headers, record numbers, .shx offsets, ring
  closure and winding, DBF header, LDID 0x57, .cpg, .prj).
- The layers through geopandas (GDAL via fiona/pyogrio): CRS EPSG:3006, feature counts, fields, decoded Swedish
  characters, valid geometries, AREAL fields that match the geometry.
- That the stands tile every property exactly: identical vertices on both sides of every shared edge, equal
  areas, union equal to the property, no overlaps; and that the municipalities tile their frame.
- That scripts/make-samples.py writes byte-identical files again (skip with --skip-regen).

Needs python3-geopandas (Debian 12: geopandas 0.12, shapely 1.8; shapely 2 works too). Usage: /usr/bin/python3 scripts/check-samples.py [--dir DIR] [--skip-regen]
"""

import argparse
import filecmp
import os
import struct
import subprocess
import sys
import tempfile

import geopandas as gpd
from shapely.geometry import LinearRing, Point, Polygon, box
from shapely.ops import unary_union

LAYERS = {
    # name: (shape type, geometry kinds, min count, max count, fields)
    "fastigheter": (5, {"Polygon", "MultiPolygon"}, 6, 10, ["FASTIGHET", "AGARE", "AREAL_HA", "KOMMUN"]),
    "avdelningar": (5, {"Polygon", "MultiPolygon"}, 80, 200,
                    ["AVDNR", "FASTIGHET", "BESTTYP", "AREAL", "ALDER", "TRADSLAG", "INVDATUM", "CERTIFIER"]),
    "hansyn": (5, {"Polygon", "MultiPolygon"}, 16, 40, ["TYP", "NAMN", "BESKRIVNIN", "AREAL"]),
    "fornminnen": (1, {"Point"}, 30, 60, ["RAA_NR", "TYP", "NAMN"]),
    "vagar": (3, {"LineString", "MultiLineString"}, 20, 40, ["KLASS", "NAMN", "BELAGGNING", "BREDD"]),
    "kommuner": (5, {"Polygon", "MultiPolygon"}, 2, 4, ["KOMMUNNAMN", "KOMMUNKOD"]),
}
HANSYN_TYPES = ["Natura2000", "Nationalpark", "Nyckelbiotop", "Naturvardsavtal", "Fornminne", "Biotopskydd",
                "Naturvarde", "Naturreservat"]
PRJ = ('PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",'
       'SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],'
       'UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],'
       'PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],'
       'PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],'
       'PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]')

failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
    return cond


# ---------------------------------------------------------------------------------------------------------------
# Raw file structure

def read_shp(path):
    """Returns (shape type, header bbox, [record geometry]) straight from the bytes."""
    with open(path, "rb") as f:
        data = f.read()
    code, = struct.unpack(">i", data[0:4])
    length_words, = struct.unpack(">i", data[24:28])
    version, stype = struct.unpack("<2i", data[28:36])
    bbox = struct.unpack("<8d", data[36:100])
    check(code == 9994, "%s: file code %d" % (path, code))
    check(version == 1000, "%s: version %d" % (path, version))
    check(length_words * 2 == len(data), "%s: header length %d words, file %d bytes" % (path, length_words,
                                                                                          len(data)))
    records, offsets = [], []
    pos, expected = 100, 1
    while pos < len(data):
        number, words = struct.unpack(">2i", data[pos:pos + 8])
        check(number == expected, "%s: record number %d, expected %d" % (path, number, expected))
        offsets.append((pos // 2, words))
        content = data[pos + 8:pos + 8 + 2 * words]
        rtype, = struct.unpack("<i", content[:4])
        check(rtype == stype, "%s: record %d has type %d" % (path, number, rtype))
        if rtype == 1:
            records.append(struct.unpack("<2d", content[4:20]))
            check(words == 10, "%s: point record of %d words" % (path, words))
        else:
            nparts, npoints = struct.unpack("<2i", content[36:44])
            starts = list(struct.unpack("<%di" % nparts, content[44:44 + 4 * nparts]))
            base = 44 + 4 * nparts
            check(len(content) == base + 16 * npoints, "%s: record %d length" % (path, number))
            pts = [struct.unpack("<2d", content[base + 16 * k:base + 16 * k + 16]) for k in range(npoints)]
            rbox = struct.unpack("<4d", content[4:36])
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            check(rbox == (min(xs), min(ys), max(xs), max(ys)), "%s: record %d bbox" % (path, number))
            records.append([pts[s:e] for s, e in zip(starts, starts[1:] + [npoints])])
        pos += 8 + 2 * words
        expected += 1
    return stype, bbox, records, offsets


def check_raw(folder, name, stype_expected):
    base = os.path.join(folder, name)
    stype, bbox, records, offsets = read_shp(base + ".shp")
    check(stype == stype_expected, "%s: shape type %d" % (name, stype))
    with open(base + ".shx", "rb") as f:
        shx = f.read()
    with open(base + ".shp", "rb") as f:
        shp_header = f.read(100)
    check(shx[:24] == shp_header[:24] and shx[28:100] == shp_header[28:100], "%s: .shx header differs" % name)
    check(struct.unpack(">i", shx[24:28])[0] * 2 == len(shx) == 100 + 8 * len(records), "%s: .shx length" % name)
    for k, (off, words) in enumerate(offsets):
        check(struct.unpack(">2i", shx[100 + 8 * k:108 + 8 * k]) == (off, words), "%s: .shx entry %d" % (name, k))
    if stype == 1:
        xs, ys = [p[0] for p in records], [p[1] for p in records]
    else:
        xs = [p[0] for r in records for part in r for p in part]
        ys = [p[1] for r in records for part in r for p in part]
    check(bbox[:4] == (min(xs), min(ys), max(xs), max(ys)) and bbox[4:] == (0, 0, 0, 0), "%s: header bbox" % name)
    if stype == 5:
        for number, parts in enumerate(records, start=1):
            rings = [LinearRing(p) for p in parts]
            for k, p in enumerate(parts):
                check(p[0] == p[-1] and len(p) >= 4, "%s: record %d ring %d not closed" % (name, number, k))
                inside = sum(1 for m, other in enumerate(parts) if m != k
                             and Polygon(other).contains(Point(p[0])))
                want_cw = inside % 2 == 0
                check(rings[k].is_ccw != want_cw, "%s: record %d ring %d wrong winding (%s expected)"
                      % (name, number, k, "clockwise" if want_cw else "counter-clockwise"))
    with open(base + ".cpg", "rb") as f:
        check(f.read().strip() == b"ISO-8859-1", "%s: .cpg is not ISO-8859-1" % name)
    with open(base + ".prj", "rb") as f:
        check(f.read().decode("ascii").strip() == PRJ, "%s: .prj is not the ESRI WKT of SWEREF99_TM" % name)
    with open(base + ".dbf", "rb") as f:
        dbf = f.read()
    nrec, hlen, rlen = struct.unpack("<IHH", dbf[4:12])
    nfields = (hlen - 33) // 32
    check(dbf[0] == 3 and dbf[29] == 0x57, "%s: DBF version %d / LDID %d" % (name, dbf[0], dbf[29]))
    check(dbf[hlen - 1] == 0x0D and (hlen - 33) % 32 == 0, "%s: DBF header terminator" % name)
    widths = [dbf[32 + 32 * k + 16] for k in range(nfields)]
    check(rlen == 1 + sum(widths), "%s: DBF record length" % name)
    check(nrec == len(records), "%s: DBF has %d records, .shp %d" % (name, nrec, len(records)))
    check(len(dbf) == hlen + nrec * rlen + 1 and dbf[-1] == 0x1A, "%s: DBF size or EOF marker" % name)
    check(all(dbf[hlen + k * rlen] == 0x20 for k in range(nrec)), "%s: DBF deleted flag" % name)
    return records


# ---------------------------------------------------------------------------------------------------------------
# Layers through GDAL

def segments(geom):
    """Undirected segments of every ring of a (multi)polygon, as exact coordinate pairs."""
    out = []
    polys = geom.geoms if geom.geom_type == "MultiPolygon" else [geom]
    for poly in polys:
        for ring in [poly.exterior, *poly.interiors]:
            c = list(ring.coords)
            for a, b in zip(c, c[1:]):
                out.append((a, b) if a < b else (b, a))
    return out


def check_layers(folder, raw):
    frames = {}
    for name, (_stype, kinds, lo, hi, fields) in LAYERS.items():
        df = gpd.read_file(os.path.join(folder, name + ".shp"))
        frames[name] = df
        check(df.crs is not None and df.crs.to_epsg() == 3006, "%s: CRS is %s" % (name, df.crs))
        check(lo <= len(df) <= hi, "%s: %d features, expected %d-%d" % (name, len(df), lo, hi))
        check([c for c in df.columns if c != "geometry"] == fields, "%s: fields %s" % (name, list(df.columns)))
        check(set(df.geom_type) <= kinds, "%s: geometry types %s" % (name, set(df.geom_type)))
        check(bool(df.is_valid.all()), "%s: invalid geometries at %s" % (name, list(df.index[~df.is_valid])))
        text = " ".join(str(v) for c in df.columns if df[c].dtype == object and c != "geometry"
                        for v in df[c] if v is not None)
        check("Ã" not in text and "\ufffd" not in text, "%s: text decoded wrongly" % name)
        check(any(ch in text for ch in "åäöÅÄÖ"), "%s: no Swedish characters decoded" % name)

    props, stands = frames["fastigheter"], frames["avdelningar"]
    check(set("åäöÅÄÖ") <= set("".join(props["FASTIGHET"]) + "".join(props["AGARE"])),
          "fastigheter: not every one of åäöÅÄÖ occurs")
    for k, parts in enumerate(raw["fastigheter"]):
        n = sum(len(p) for p in parts)
        check(30 <= n <= 200, "fastigheter: %s has %d vertices" % (props["FASTIGHET"][k], n))
    check(any(len(g.interiors) for g in props.geometry if g.geom_type == "Polygon")
          or any(len(p.interiors) for g in props.geometry if g.geom_type == "MultiPolygon" for p in g.geoms),
          "fastigheter: no property with a hole")
    check((props.geom_type == "MultiPolygon").sum() >= 2, "fastigheter: fewer than two multipart properties")
    for name, col in (("fastigheter", "AREAL_HA"), ("avdelningar", "AREAL"), ("hansyn", "AREAL")):
        df = frames[name]
        bad = [k for k in range(len(df)) if abs(df.geometry.iloc[k].area / 1e4 - df[col].iloc[k]) > 0.0051]
        check(not bad, "%s: %s differs from the geometry at %s" % (name, col, bad))

    # Stands tile their property exactly.
    check(set(stands["FASTIGHET"]) == set(props["FASTIGHET"]), "avdelningar: FASTIGHET values differ")
    check(stands["ALDER"].isna().any(), "avdelningar: no null ALDER")
    check(set(stands["TRADSLAG"].dropna()) >= {"Tall", "Gran", "Björk", "Ek", "Asp", "Contorta"},
          "avdelningar: TRADSLAG misses a species")
    check(set(stands["BESTTYP"]) == {"Barrskog", "Lövskog", "Blandskog", "Hygge", "Myr"},
          "avdelningar: BESTTYP values %s" % set(stands["BESTTYP"]))
    for _, prop in props.iterrows():
        mine = stands[stands["FASTIGHET"] == prop["FASTIGHET"]]
        name = prop["FASTIGHET"]
        check(sorted(mine["AVDNR"]) == list(range(1, len(mine) + 1)), "%s: AVDNR not 1..n" % name)
        pa, sa = prop.geometry.area, mine.geometry.area.sum()
        check(abs(pa - sa) <= 1e-6 * pa, "%s: stand areas %.4f != property area %.4f" % (name, sa, pa))
        union = unary_union(list(mine.geometry))
        check(union.symmetric_difference(prop.geometry).area <= 1e-6 * pa, "%s: union of stands differs" % name)
        counts = {}
        for g in mine.geometry:
            for s in segments(g):
                counts[s] = counts.get(s, 0) + 1
        boundary = set(segments(prop.geometry))
        wrong = [s for s, n in counts.items() if n != (1 if s in boundary else 2)]
        missing = [s for s in boundary if s not in counts]
        check(not wrong and not missing, "%s: %d stand edges and %d border edges do not match vertex for vertex"
              % (name, len(wrong), len(missing)))
        others = props[props["FASTIGHET"] != name]
        for _, st in mine.iterrows():
            check(st.geometry.intersection(prop.geometry).area >= st.geometry.area * (1 - 1e-9),
                  "%s avd %s: not inside its property" % (name, st["AVDNR"]))
            check(all(st.geometry.intersection(o).area <= 1e-6 for o in others.geometry),
                  "%s avd %s: overlaps another property" % (name, st["AVDNR"]))
    for name in ("avdelningar", "fastigheter", "kommuner"):
        geoms = list(frames[name].geometry)
        for a in range(len(geoms)):
            for b in range(a + 1, len(geoms)):
                if geoms[a].intersects(geoms[b]):
                    check(geoms[a].intersection(geoms[b]).area <= 1e-6,
                          "%s: features %d and %d overlap" % (name, a, b))

    # Municipalities cover everything and agree with KOMMUN.
    kommuner = frames["kommuner"]
    frame = box(*kommuner.total_bounds)
    check(abs(kommuner.geometry.area.sum() - frame.area) <= 1e-6 * frame.area
          and unary_union(list(kommuner.geometry)).symmetric_difference(frame).area <= 1e-3,
          "kommuner: do not tile their frame")
    for name in LAYERS:
        check(frames[name].geometry.within(frame).all(), "%s: outside the municipalities" % name)
    for _, prop in props.iterrows():
        names = set(kommuner[kommuner.intersects(prop.geometry)]["KOMMUNNAMN"])
        check(prop["KOMMUN"] in names, "%s: KOMMUN %s is not one of the municipalities it lies in (%s)"
              % (prop["FASTIGHET"], prop["KOMMUN"], sorted(names)))

    # Consideration areas, monuments, roads.
    hansyn = frames["hansyn"]
    for typ in HANSYN_TYPES:
        check((hansyn["TYP"] == typ).sum() >= 2, "hansyn: TYP %s fewer than twice" % typ)
    check(set(hansyn["TYP"]) == set(HANSYN_TYPES), "hansyn: unexpected TYP %s" % set(hansyn["TYP"]))
    check(all(80 <= len(t) <= 200 for t in hansyn["BESKRIVNIN"]), "hansyn: BESKRIVNIN not 80-200 characters")
    allprops = unary_union(list(props.geometry))
    check(all(g.intersects(allprops) for g in hansyn.geometry), "hansyn: an area misses every property")
    forn = frames["fornminnen"]
    check(forn["RAA_NR"].is_unique and forn["RAA_NR"].str.match(r"^L19\d\d:\d+$").all(), "fornminnen: RAA_NR")
    check(forn["NAMN"].isna().any() or (forn["NAMN"] == "").any(), "fornminnen: no empty NAMN")
    vagar = frames["vagar"]
    check((vagar.geom_type == "MultiLineString").sum() >= 2, "vagar: fewer than two multipart roads")
    check(vagar["KLASS"].isna().any() and set(vagar["KLASS"].dropna()) == {1, 2, 3, 4, 5}, "vagar: KLASS")
    check(set(vagar["BELAGGNING"]) == {"Grus", "Asfalt", "Skogsbilväg"}, "vagar: BELAGGNING")
    check(vagar["NAMN"].isna().any() or (vagar["NAMN"] == "").any(), "vagar: no blank NAMN")
    return frames


def check_regen(folder):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-samples.py")
    with tempfile.TemporaryDirectory(prefix="kp-samples-") as tmp:
        subprocess.run([sys.executable, script, "--out", tmp], check=True)
        made = sorted(os.listdir(tmp))
        check(made == sorted(f for f in os.listdir(folder) if f.rsplit(".", 1)[-1] in
                             {"shp", "shx", "dbf", "prj", "cpg"}), "regenerated file set differs")
        for f in made:
            check(filecmp.cmp(os.path.join(tmp, f), os.path.join(folder, f), shallow=False),
                  "%s: regenerated file differs from the committed one" % f)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=os.path.join(os.path.dirname(here), "SampleData", "forest"))
    parser.add_argument("--skip-regen", action="store_true", help="do not rerun make-samples.py")
    args = parser.parse_args()
    total = sum(os.path.getsize(os.path.join(args.dir, f)) for f in os.listdir(args.dir))
    check(total < 2 * 1024 * 1024, "SampleData/forest is %d bytes" % total)
    raw = {name: check_raw(args.dir, name, spec[0]) for name, spec in LAYERS.items()}
    frames = check_layers(args.dir, raw)
    if not args.skip_regen:
        check_regen(args.dir)
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    if failures:
        return 1
    print("sample data OK: %s (%d bytes)" % (", ".join("%s %d" % (n, len(d)) for n, d in frames.items()), total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
