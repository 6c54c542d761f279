#!/usr/bin/env python3
"""Writes the synthetic Swedish forest-plan export in SampleData/forest/.

Six ESRI Shapefile sets (.shp, .shx, .dbf, .prj, .cpg) in SWEREF 99 TM (EPSG:3006), written byte by byte
from the ESRI Shapefile whitepaper and the dBASE III layout, with Latin-1 (ISO-8859-1) attribute tables.
Standard library only, fixed seeds and a fixed DBF date, so every run writes byte-identical files.

The area lies on the borders of Bjurholm, Vindeln, Vännäs and Umeå (Västerbotten). Properties and forest
stands come from one shared planar partition: a jittered lattice whose edges are wavy polylines stored once.
A stand is a union of one to three lattice cells, a property is a union of stands, and every boundary is
assembled from the same stored edges, so neighbouring polygons carry identical vertex sequences and the
stands tile each property exactly (holes and detached parcels included).

Usage: python3 scripts/make-samples.py [--out DIR]
Check: /usr/bin/python3 scripts/check-samples.py
"""

import argparse
import math
import os
import random
import struct

# ---------------------------------------------------------------------------------------------------------------
# Constants

SEED = 20260101
DBF_DATE = (2026, 1, 1)          # fixed "last update" date in every DBF header
LDID_LATIN1 = 0x57               # DBF language driver id 87, read as ISO-8859-1 by GDAL
ENCODING = "ISO-8859-1"

# ESRI WKT for SWEREF 99 TM, exactly as `gdalsrsinfo -o wkt_esri EPSG:3006` prints it (on one line).
PRJ_SWEREF99_TM = (
    'PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",'
    'SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],'
    'UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],'
    'PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],'
    'PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],'
    'PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]'
)

# Lattice of the shared partition (north-west of Vännäs, SWEREF 99 TM metres).
X0, Y0 = 722000.0, 7098000.0
CELL = 250.0
NX, NY = 40, 32

# Municipality frame that covers everything.
FRAME = (718000.0, 7094000.0, 737000.0, 7110000.0)

SHP_POINT, SHP_POLYLINE, SHP_POLYGON = 1, 3, 5


def q(v):
    """Rounds a coordinate to whole centimetres, so every platform stores the same doubles."""
    return round(v, 2)


# ---------------------------------------------------------------------------------------------------------------
# Small geometry helpers (plain floats)

def signed_area(ring):
    """Shoelace area of a closed ring; negative for clockwise (y up). Shifted to the lattice origin."""
    s = 0.0
    for k in range(len(ring) - 1):
        x1, y1 = ring[k][0] - X0, ring[k][1] - Y0
        x2, y2 = ring[k + 1][0] - X0, ring[k + 1][1] - Y0
        s += x1 * y2 - x2 * y1
    return s / 2.0


def polygon_area(parts):
    """Area of a polygon given as ESRI parts (clockwise outers count, counter-clockwise holes subtract)."""
    return -sum(signed_area(r) for r in parts)


def point_in_ring(x, y, ring):
    inside = False
    for k in range(len(ring) - 1):
        x1, y1 = ring[k]
        x2, y2 = ring[k + 1]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xc > x:
                inside = not inside
    return inside


def point_in_polygon(x, y, parts):
    return sum(1 for r in parts if point_in_ring(x, y, r)) % 2 == 1


def dist_point_segment(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = 0.0 if ll == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / ll))
    cx, cy = ax + t * dx, ay + t * dy
    return math.hypot(px - cx, py - cy)


def close_ring(points):
    pts = list(points)
    if pts[0] != pts[-1]:
        pts.append(pts[0])
    return pts


def oriented(ring, clockwise):
    """Returns the closed ring turned clockwise (outer) or counter-clockwise (hole)."""
    a = signed_area(ring)
    if (a < 0) != clockwise:
        return list(reversed(ring))
    return ring


def blob(rng, cx, cy, radius, n, clockwise=True, wobble=0.18):
    """A star-shaped (hence simple) irregular ring around (cx, cy)."""
    harm = [(rng.uniform(-wobble, wobble) / k, rng.uniform(0, 2 * math.pi)) for k in (2, 3, 5)]
    pts = []
    for k in range(n):
        t = 2 * math.pi * k / n
        r = radius * (1 + sum(a * math.sin(m * t + ph) for (a, ph), m in zip(harm, (2, 3, 5))))
        r *= 1 + rng.uniform(-0.04, 0.04)
        pts.append((q(cx + r * math.cos(t)), q(cy + r * math.sin(t))))
    return oriented(close_ring(pts), clockwise)


def wavy_line(rng, a, b, depth, rough):
    """Midpoint-displacement polyline from a to b (endpoints kept exactly)."""
    pts = [a, b]
    amp = rough
    for _ in range(depth):
        out = [pts[0]]
        for k in range(len(pts) - 1):
            (x1, y1), (x2, y2) = pts[k], pts[k + 1]
            dx, dy = x2 - x1, y2 - y1
            off = rng.uniform(-amp, amp)
            out.append((x1 + dx / 2 - dy * off, y1 + dy / 2 + dx * off))
            out.append(pts[k + 1])
        pts = out
        amp *= 0.72
    return [a] + [(q(x), q(y)) for x, y in pts[1:-1]] + [b]


# ---------------------------------------------------------------------------------------------------------------
# The shared planar partition

class Lattice:
    """Jittered lattice; each edge is one wavy polyline stored from its smaller vertex to its larger one."""

    def __init__(self, rng, owner):
        """owner maps a cell to its property index; edges between different owners are property borders."""
        self.v = {}
        for i in range(NX + 1):
            for j in range(NY + 1):
                jx = rng.uniform(-0.22, 0.22) * CELL
                jy = rng.uniform(-0.22, 0.22) * CELL
                self.v[(i, j)] = (q(X0 + i * CELL + jx), q(Y0 + j * CELL + jy))
        self.edges = {}
        for i in range(NX + 1):
            for j in range(NY + 1):
                if i < NX:   # horizontal edge: cells (i, j - 1) below and (i, j) above
                    border = owner.get((i, j - 1)) != owner.get((i, j))
                    self.edges[((i, j), (i + 1, j))] = self._edge(rng, (i, j), (i + 1, j), border)
                if j < NY:   # vertical edge: cells (i - 1, j) left and (i, j) right
                    border = owner.get((i - 1, j)) != owner.get((i, j))
                    self.edges[((i, j), (i, j + 1))] = self._edge(rng, (i, j), (i, j + 1), border)

    def _edge(self, rng, a, b, border):
        """A property border is a surveyed, nearly straight line with a few break points; a stand border
        inside a property is a wavy line digitised from aerial photos."""
        (x1, y1), (x2, y2) = self.v[a], self.v[b]
        dx, dy = x2 - x1, y2 - y1
        length = math.hypot(dx, dy)
        nx, ny = -dy / length, dx / length
        if border:
            n = rng.randint(1, 3)
            amps = (rng.uniform(-0.015, 0.015), 0.0, 0.0)
            noise = 0.004
        else:
            n = rng.randint(7, 12)
            amps = (rng.uniform(-0.05, 0.05), rng.uniform(-0.025, 0.025), rng.uniform(-0.012, 0.012))
            noise = 0.006
        pts = [self.v[a]]
        for k in range(1, n + 1):
            t = (k + rng.uniform(-0.3, 0.3)) / (n + 1)
            env = math.sin(math.pi * t)
            off = length * (amps[0] * env + amps[1] * math.sin(2 * math.pi * t)
                            + amps[2] * math.sin(3 * math.pi * t) + rng.uniform(-noise, noise) * env)
            pts.append((q(x1 + dx * t + nx * off), q(y1 + dy * t + ny * off)))
        pts.append(self.v[b])
        return pts

    def path(self, a, b):
        """Points of the directed lattice edge a -> b."""
        if a < b:
            return self.edges[(a, b)]
        return list(reversed(self.edges[(b, a)]))

    def cell_center(self, c):
        i, j = c
        corners = [self.v[(i, j)], self.v[(i + 1, j)], self.v[(i + 1, j + 1)], self.v[(i, j + 1)]]
        return (sum(p[0] for p in corners) / 4, sum(p[1] for p in corners) / 4)

    def rings(self, cells):
        """Boundary rings of a set of cells as closed point lists: outers clockwise, holes counter-clockwise."""
        edges = set()
        for (i, j) in sorted(cells):
            sw, se, ne, nw = (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)
            for e in ((sw, nw), (nw, ne), (ne, se), (se, sw)):       # clockwise cell boundary
                rev = (e[1], e[0])
                if rev in edges:
                    edges.remove(rev)
                else:
                    edges.add(e)
        nxt = {}
        for a, b in sorted(edges):
            if a in nxt:
                raise ValueError("cell set touches itself at a lattice vertex %r" % (a,))
            nxt[a] = b
        used = set()
        out = []
        for start in sorted(nxt):
            if start in used:
                continue
            verts = [start]
            used.add(start)
            cur = nxt[start]
            while cur != start:
                verts.append(cur)
                used.add(cur)
                cur = nxt[cur]
            pts = []
            for k in range(len(verts)):
                pts.extend(self.path(verts[k], verts[(k + 1) % len(verts)])[:-1])
            out.append(close_ring(pts))
        return out


def neighbours4(c):
    i, j = c
    return [(i, j + 1), (i + 1, j), (i, j - 1), (i - 1, j)]


def neighbours8(c):
    i, j = c
    return [(i + di, j + dj) for dj in (1, 0, -1) for di in (-1, 0, 1) if (di, dj) != (0, 0)]


def makes_pinch(cells, c):
    """True if adding cell c makes the set touch itself only diagonally at one of c's corners."""
    s = set(cells) | {c}
    i, j = c
    for vi, vj in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)):
        a, b = (vi - 1, vj - 1) in s, (vi, vj - 1) in s
        d, e = (vi - 1, vj) in s, (vi, vj) in s
        if (a and e and not b and not d) or (b and d and not a and not e):
            return True
    return False


def in_lattice(c):
    return 1 <= c[0] < NX - 1 and 1 <= c[1] < NY - 1


def assemble(rings):
    """Orders rings as ESRI parts: each outer ring followed by the holes it contains."""
    outers = [r for r in rings if signed_area(r) < 0]
    holes = [r for r in rings if signed_area(r) > 0]
    groups = [[o] for o in outers]
    for h in holes:
        best = None
        for g in groups:
            if point_in_ring(h[0][0], h[0][1], g[0]):
                if best is None or -signed_area(g[0]) < -signed_area(best[0]):
                    best = g
        if best is None:
            raise ValueError("hole outside every outer ring")
        best.append(h)
    return [r for g in groups for r in g]


# ---------------------------------------------------------------------------------------------------------------
# Layer content

PROPERTIES = [
    # name, owner, seed cell, target cells, detached parcel, enclave hole
    ("Granbäcken 1:12", "Norra Skogsägarna ek. för.", (6, 24), 30, False, True),
    ("Ålhult 3:4", "Per Öberg", (12, 26), 18, True, False),
    ("Hällnäs 2:7", "Åsa Lindström", (27, 25), 24, False, False),
    ("Tväråbäck 4:2", "Holmen Skog AB", (32, 22), 34, False, True),
    ("Pengsjö 5:18", "Märta Ängström", (8, 12), 16, True, False),
    ("Överrödå 2:3", "Dödsboet efter Örjan Näslund", (13, 14), 22, False, False),
    ("Kassjö 6:1", "Sveaskog Förvaltnings AB", (28, 9), 28, False, True),
    ("Brattby 3:11", "Ingrid Sjöström", (12, 4), 12, False, False),
    ("Östra Spöland 1:5", "Svenska kyrkan, Luleå stift", (23, 6), 14, True, False),
]


def grow_properties(rng):
    owner = {}
    sets = []
    for _name, _own, seed, target, _parcel, _hole in PROPERTIES:
        if seed in owner:
            raise ValueError("seed cell taken")
        cells = [seed]
        owner[seed] = len(sets)
        while len(cells) < target:
            frontier = []
            member = set(cells)
            for c in sorted(member):
                for nb in neighbours4(c):
                    if nb in member or nb in owner or not in_lattice(nb) or nb in frontier:
                        continue
                    if makes_pinch(cells, nb):
                        continue
                    frontier.append(nb)
            if not frontier:
                break
            frontier.sort()
            weights = [1 + 4 * (sum(1 for m in neighbours4(f) if m in member) - 1) ** 2 for f in frontier]
            pick = rng.choices(frontier, weights=weights)[0]
            cells.append(pick)
            owner[pick] = len(sets)
        sets.append(cells)
    # Detached parcels: two to four cells, not touching the main part, on free land nearby.
    for idx, (_n, _o, seed, _t, parcel, _h) in enumerate(PROPERTIES):
        if not parcel:
            continue
        main = set(sets[idx])
        candidates = []
        for di in range(-6, 7):
            for dj in range(-6, 7):
                c = (seed[0] + di, seed[1] + dj)
                if c in owner or not in_lattice(c):
                    continue
                if min(max(abs(c[0] - m[0]), abs(c[1] - m[1])) for m in main) < 2:
                    continue
                candidates.append(c)
        if not candidates:
            raise ValueError("no room for a detached parcel")
        start = rng.choice(candidates)
        part = [start]
        owner[start] = idx
        want = rng.randint(2, 4)
        while len(part) < want:
            ext = [nb for c in part for nb in neighbours4(c)
                   if nb not in owner and in_lattice(nb) and nb not in part
                   and all(max(abs(nb[0] - m[0]), abs(nb[1] - m[1])) >= 2 for m in main)
                   and not makes_pinch(part, nb)]
            if not ext:
                break
            pick = rng.choice(sorted(set(ext)))
            part.append(pick)
            owner[pick] = idx
        sets[idx].extend(part)
    # Enclaves: a cell fully surrounded by the property that belongs to someone else.
    enclaves = []
    for idx, (_n, _o, _s, _t, _p, hole) in enumerate(PROPERTIES):
        if not hole:
            continue
        member = set(sets[idx])
        inner = [c for c in sorted(member) if all(nb in member for nb in neighbours8(c))]
        if not inner:
            raise ValueError("no interior cell for an enclave in %s" % PROPERTIES[idx][0])
        c = rng.choice(inner)
        sets[idx].remove(c)
        del owner[c]
        enclaves.append(c)
    return sets, enclaves


def split_stands(rng, cells):
    """Groups a property's cells into stands of one to three edge-connected cells, north-west first."""
    member = set(cells)
    order = sorted(cells, key=lambda c: (-c[1], c[0]))
    taken = set()
    stands = []
    for c in order:
        if c in taken:
            continue
        size = rng.choices((1, 2, 3), weights=(35, 40, 25))[0]
        group = [c]
        taken.add(c)
        while len(group) < size:
            ext = sorted({nb for g in group for nb in neighbours4(g) if nb in member and nb not in taken})
            if not ext:
                break
            pick = rng.choice(ext)
            group.append(pick)
            taken.add(pick)
        stands.append(group)
    return stands


STAND_TYPES = [("Barrskog", 52), ("Blandskog", 15), ("Lövskog", 11), ("Hygge", 14), ("Myr", 8)]


def stand_attributes(rng, besttyp):
    if besttyp == "Barrskog":
        tradslag = rng.choices(("Tall", "Gran", "Contorta"), weights=(55, 35, 10))[0]
        alder = rng.randint(12, 145) if tradslag != "Contorta" else rng.randint(10, 45)
    elif besttyp == "Blandskog":
        tradslag = rng.choices(("Gran", "Tall", "Björk"), weights=(45, 30, 25))[0]
        alder = rng.randint(20, 110)
    elif besttyp == "Lövskog":
        tradslag = rng.choices(("Björk", "Asp"), weights=(75, 25))[0]
        alder = rng.randint(15, 90)
    elif besttyp == "Hygge":
        tradslag = rng.choices(("Tall", "Gran", ""), weights=(60, 25, 15))[0]
        alder = rng.randint(0, 6)
    else:  # Myr
        tradslag = rng.choices(("Tall", ""), weights=(50, 50))[0]
        alder = None
    if alder is not None and rng.random() < 0.08:
        alder = None
    year = rng.randint(2019, 2025)
    month = rng.randint(5, 10)
    day = rng.randint(1, 28)
    certifier = rng.choices((True, False, None), weights=(70, 22, 8))[0]
    return tradslag, alder, (year, month, day), certifier


HANSYN = [
    # TYP, NAMN, BESKRIVNING, anchor property index, radius (m), extra ("hole", "multi" or None)
    ("Natura2000", "Vindelälvens Natura 2000-område",
     "Älvnära strandskogar och svämängar längs Vindelälven. Området ingår i EU:s nätverk Natura 2000; "
     "åtgärder kräver samråd med länsstyrelsen.", 3, 900, None),
    ("Natura2000", "Rödåns dalgång",
     "Bäckdal med naturlig hydrologi, örtrika granskogar och flodpärlmussla. Ingen körning över vattendraget.",
     5, 520, "hole"),
    ("Nationalpark", "Björnlandets nationalpark (del)",
     "Urskogsartad tallskog och branta lodytor. Nationalparkens gräns följer äldre rågångar; "
     "skogsbruk är förbjudet inom gränsen.", 0, 1500, None),
    ("Nationalpark", "Tjälmyrens nationalpark",
     "Stora orörda myrkomplex med strängflarkkärr, viktiga för häckande vadarfåglar. Tillträdesförbud "
     "1 maj-31 juli.", 6, 1300, None),
    ("Nyckelbiotop", "Gammal granskog vid Storbäcken",
     "Sumpgranskog med rikligt av döda träd, lunglav och garnlav. Lämnas helt orörd vid avverkning i närheten.",
     1, 120, "multi"),
    ("Nyckelbiotop", "Ängesbäckens bäckravin",
     "Djup bäckravin med fuktig mikromiljö, mossor och ormbunkar. Skyddszon om minst 15 m mot hygget.",
     7, 90, None),
    ("Naturvardsavtal", "Åkerholmens lövbränna",
     "Avtal med Skogsstyrelsen om naturvårdande skötsel i 50 år: gynna asp, sälg och björk, lämna all död ved.",
     2, 260, None),
    ("Naturvardsavtal", "Östra Spölandets hänglavsskog",
     "Naturvårdsavtal för gammal granskog med riklig förekomst av hänglavar. Försiktig plockhuggning av gran "
     "tillåts.", 8, 200, None),
    ("Fornminne", "Kolbottnar vid Hällnäs",
     "Område med flera kolbottnar och en tjärdal från 1800-talet. Körning med skogsmaskin är förbjuden inom "
     "området.", 2, 110, None),
    ("Fornminne", "Fångstgropssystemet vid Kassjön",
     "Rad av fångstgropar för älg längs en rullstensås. Skyddsavstånd 25 m; ingen markberedning.",
     6, 160, "multi"),
    ("Biotopskydd", "Källmyren vid Överrödå",
     "Biotopskyddsområde enligt miljöbalken: källpåverkad mark med ovanliga mossor. Dispens krävs för åtgärder.",
     5, 95, None),
    ("Biotopskydd", "Brattbyns ravinskog",
     "Ravin med äldre lövträd och rik kärlväxtflora. Biotopskyddet beslutades av Skogsstyrelsen år 2014.",
     7, 140, None),
    ("Naturvarde", "Tallöns brandfält",
     "Tallhed med brandljud, högstubbar och torrakor efter en skogsbrand på 1930-talet. Höga naturvärden.",
     4, 180, None),
    ("Naturvarde", "Granbäckens strandzon",
     "Strandzon längs Granbäcken med lövrik kantzon. Lämnas som hänsynsyta; inga körskador i bäckens närhet.",
     0, 150, None),
    ("Naturreservat", "Hällberget naturreservat",
     "Reservatet skyddar brandpräglad gammal tallskog på Hällberget. Föreskrifter: ingen avverkning, ingen "
     "ny väg, ingen markberedning.", 3, 700, "hole"),
    ("Naturreservat", "Åbacka naturreservat",
     "Lövrik sluttning ner mot Vindelälven med rik epifytflora. Reservatet förvaltas av länsstyrelsen i "
     "Västerbottens län.", 1, 480, None),
]

FORNMINNE_TYPES = ["Gravfält", "Stensättning", "Kolbotten", "Fångstgrop", "Röse", "Tjärdal", "Boplats",
                   "Husgrund, historisk tid"]
FORNMINNE_NAMES = ["Offerkällan vid Tväråbäck", "Lappkåtan", "Fångstgroparna vid Kassjön", "Ängesbergets röse",
                   "Kolarkojan", "Storstenen", "Gamla Åbackavägens tjärdal", "Ödegården i Pengsjö"]

ROAD_NAMES = ["Hällnäsvägen", "Granbäcksvägen", "Ålhultsvägen", "Kassjövägen", "Övre Rödåvägen", "Älvvägen",
              "Tväråbäcksvägen", "Pengsjövägen", "Brattbyvägen", "Spölandsvägen", "Myrvägen", "Åkerholmsvägen",
              "Tjärdalsvägen", "Björkbacksvägen"]

KOMMUNER = [("Bjurholm", "2409"), ("Vindeln", "2404"), ("Vännäs", "2460"), ("Umeå", "2480")]


def make_kommuner(rng):
    x0, y0, x1, y1 = FRAME
    t1 = (q(726300.0), q(7101800.0))   # Bjurholm / Vindeln / Vännäs
    t2 = (q(731700.0), q(7102900.0))   # Vindeln / Vännäs / Umeå
    ea = (x0, q(7104300.0))            # Bjurholm | Vindeln, to the west edge
    eb = (q(723100.0), y0)             # Bjurholm | Vännäs, to the south edge
    ed = (q(734400.0), y1)             # Vindeln | Umeå, to the north edge
    ee = (q(735200.0), y0)             # Vännäs | Umeå, to the south edge
    a = wavy_line(rng, t1, ea, 9, 0.16)
    b = wavy_line(rng, t1, eb, 9, 0.16)
    c = wavy_line(rng, t1, t2, 8, 0.16)
    d = wavy_line(rng, t2, ed, 9, 0.16)
    e = wavy_line(rng, t2, ee, 9, 0.16)
    def rev(p):
        return list(reversed(p))
    bjurholm = a + [(x0, y0)] + rev(b)
    vindeln = rev(a) + c[1:] + d[1:] + [(x0, y1)]
    vannas = b + rev(e) + rev(c)[1:]
    umea = d + [(x1, y1), (x1, y0)] + rev(e)
    out = []
    for ring in (bjurholm, vindeln, vannas, umea):
        cleaned = [ring[0]]
        for p in ring[1:]:
            if p != cleaned[-1]:
                cleaned.append(p)
        out.append([oriented(close_ring(cleaned), True)])
    return out


def random_walk(rng, start, heading, steps, step_len, turn):
    x0, y0, x1, y1 = FRAME
    pts = [start]
    x, y = start
    h = heading
    for _ in range(steps):
        h += rng.gauss(0.0, turn)
        s = rng.uniform(*step_len)
        nx_, ny_ = x + s * math.cos(h), y + s * math.sin(h)
        if not (x0 + 300 < nx_ < x1 - 300 and y0 + 300 < ny_ < y1 - 300):
            break
        x, y = nx_, ny_
        p = (q(x), q(y))
        if p != pts[-1]:
            pts.append(p)
    return pts


def make_roads(rng):
    roads = []
    names = list(ROAD_NAMES)
    # Three through roads cross the area; every other road branches off a vertex of an earlier one.
    through = [(1, (X0 - 1500, Y0 + 3900), 0.15), (2, (X0 + 5200, Y0 - 1500), 1.45), (2, (X0 + 11500, Y0 + 7400), 3.6)]
    for k in range(30):
        if k < len(through):
            klass, (sx, sy), heading = through[k]
            start = (q(sx), q(sy))
            steps = 600
        else:
            klass = rng.choices((2, 3, 4, 5), weights=(2, 8, 10, 6))[0]
            parent = rng.choice(roads[:k])[0][0]
            at = rng.randint(2, len(parent) - 3)
            start = parent[at]
            (px, py), (nx_, ny_) = parent[at - 1], parent[at + 1]
            heading = math.atan2(ny_ - py, nx_ - px) + rng.choice((-1, 1)) * rng.uniform(1.1, 2.0)
            steps = {2: 220, 3: 160, 4: 110, 5: 60}[klass] + rng.randint(-20, 20)
        turn = {1: 0.02, 2: 0.035, 3: 0.055, 4: 0.085, 5: 0.11}[klass]
        main = random_walk(rng, start, heading, steps, (12.0, 28.0), turn)
        if len(main) < 6:
            main = random_walk(rng, start, heading + math.pi, steps, (12.0, 28.0), 0.02)
        parts = [main]
        if k % 6 == 2 and len(main) > 20:
            # a road with a washed-out stretch: two parts with a gap
            cut = len(main) // 2
            parts = [main[:cut], main[cut + 3:]]
        elif k % 6 == 4 and len(main) > 12:
            # a road with a spur that starts on one of its vertices
            at = main[len(main) // 3]
            spur = random_walk(rng, at, rng.uniform(0, 2 * math.pi), 36, (10.0, 20.0), 0.1)
            if len(spur) >= 3:
                parts.append(spur)
        if klass <= 2:
            belag = "Asfalt" if klass == 1 or rng.random() < 0.3 else "Grus"
            bredd = rng.choice((6.5, 7.0, 7.5)) if belag == "Asfalt" else rng.choice((5.5, 6.0))
        elif klass == 3:
            belag, bredd = "Grus", rng.choice((4.5, 5.0, 5.5))
        else:
            belag, bredd = "Skogsbilväg", rng.choice((3.5, 4.0, 4.5))
        name = ""
        if klass <= 3 or rng.random() < 0.35:
            name = names.pop(0) if names else ""
        klass_value = None if k in (7, 19, 26) else klass
        roads.append((parts, klass_value, name, belag, bredd if k != 11 else None))
    return roads


# ---------------------------------------------------------------------------------------------------------------
# Writers

def write_shapefile(base, shape_type, shapes):
    """Writes base.shp and base.shx. A point is (x, y); a polyline or polygon is a list of parts."""
    records = []
    allx, ally = [], []
    for geom in shapes:
        if shape_type == SHP_POINT:
            x, y = geom
            allx.append(x)
            ally.append(y)
            content = struct.pack("<idd", SHP_POINT, x, y)
        else:
            xs = [p[0] for part in geom for p in part]
            ys = [p[1] for part in geom for p in part]
            allx.extend(xs)
            ally.extend(ys)
            starts, n = [], 0
            for part in geom:
                starts.append(n)
                n += len(part)
            content = struct.pack("<i4d2i", shape_type, min(xs), min(ys), max(xs), max(ys), len(geom), n)
            content += struct.pack("<%di" % len(starts), *starts)
            content += b"".join(struct.pack("<2d", x, y) for part in geom for x, y in part)
        records.append(content)
    bbox = (min(allx), min(ally), max(allx), max(ally))

    def header(length_words):
        return (struct.pack(">7i", 9994, 0, 0, 0, 0, 0, length_words)
                + struct.pack("<2i", 1000, shape_type)
                + struct.pack("<8d", bbox[0], bbox[1], bbox[2], bbox[3], 0.0, 0.0, 0.0, 0.0))

    body, index = [], []
    offset = 50
    for number, content in enumerate(records, start=1):
        words = len(content) // 2
        body.append(struct.pack(">2i", number, words) + content)
        index.append(struct.pack(">2i", offset, words))
        offset += 4 + words
    with open(base + ".shp", "wb") as f:
        f.write(header(offset) + b"".join(body))
    with open(base + ".shx", "wb") as f:
        f.write(header(50 + 4 * len(records)) + b"".join(index))


def dbf_value(ftype, width, dec, value):
    if ftype == "C":
        raw = ("" if value is None else value).encode(ENCODING)
        if len(raw) > width:
            raise ValueError("text %r wider than %d" % (value, width))
        return raw.ljust(width, b" ")
    if ftype == "N":
        if value is None:
            return b" " * width
        text = ("%.*f" % (dec, value)) if dec else str(int(value))
        if len(text) > width:
            raise ValueError("number %r wider than %d" % (value, width))
        return text.rjust(width).encode("ascii")
    if ftype == "L":
        return {True: b"T", False: b"F", None: b"?"}[value]
    if ftype == "D":
        if value is None:
            return b" " * 8
        return ("%04d%02d%02d" % value).encode("ascii")
    raise ValueError(ftype)


def write_dbf(path, fields, rows):
    """dBASE III table: fields are (name, type, width, decimals)."""
    header_len = 32 + 32 * len(fields) + 1
    record_len = 1 + sum(f[2] for f in fields)
    y, m, d = DBF_DATE
    out = [struct.pack("<4BIHH", 0x03, y - 1900, m, d, len(rows), header_len, record_len),
           bytes(17), bytes([LDID_LATIN1]), bytes(2)]
    for name, ftype, width, dec in fields:
        if len(name) > 10:
            raise ValueError("field name %s longer than 10" % name)
        out.append(name.encode("ascii").ljust(11, b"\0") + ftype.encode("ascii") + bytes(4)
                   + bytes([width, dec]) + bytes(14))
    out.append(b"\x0d")
    for row in rows:
        rec = b" " + b"".join(dbf_value(t, w, dc, v) for (_n, t, w, dc), v in zip(fields, row))
        assert len(rec) == record_len
        out.append(rec)
    out.append(b"\x1a")
    with open(path, "wb") as f:
        f.write(b"".join(out))


def write_layer(out_dir, name, shape_type, shapes, fields, rows):
    base = os.path.join(out_dir, name)
    write_shapefile(base, shape_type, shapes)
    write_dbf(base + ".dbf", fields, rows)
    with open(base + ".prj", "wb") as f:
        f.write(PRJ_SWEREF99_TM.encode("ascii"))
    with open(base + ".cpg", "wb") as f:
        f.write(ENCODING.encode("ascii"))


# ---------------------------------------------------------------------------------------------------------------

def build(out_dir):
    prop_cells, _enclaves = grow_properties(random.Random(SEED + 2))
    owner = {c: idx for idx, cells in enumerate(prop_cells) for c in cells}
    lattice = Lattice(random.Random(SEED + 1), owner)

    kommun_geoms = make_kommuner(random.Random(SEED + 3))

    # Properties and stands
    rng = random.Random(SEED + 4)
    prop_shapes, prop_rows = [], []
    stand_shapes, stand_rows = [], []
    types, weights = zip(*STAND_TYPES)
    for idx, (name, owner, seed, _t, _p, _h) in enumerate(PROPERTIES):
        cells = prop_cells[idx]
        parts = assemble(lattice.rings(cells))
        sx, sy = lattice.cell_center(seed)
        kommun = next(KOMMUNER[k][0] for k, g in enumerate(kommun_geoms) if point_in_polygon(sx, sy, g))
        prop_shapes.append(parts)
        prop_rows.append([name, owner, round(polygon_area(parts) / 10000.0, 2), kommun])

        stands = [[ring for ring in lattice.rings(g)] for g in split_stands(rng, cells)]
        for s in stands:
            if len(s) != 1:
                raise ValueError("stand with more than one ring")
        # Wet islands: a small myr stand inside a bigger stand, which gets it as a hole.
        islands = []
        big = [k for k, s in enumerate(stands) if polygon_area(s) > 90000]
        for k in sorted(rng.sample(big, min(len(big), 1 if idx % 2 else 2))):
            outer = stands[k][0]
            cx = sum(p[0] for p in outer[:-1]) / (len(outer) - 1)
            cy = sum(p[1] for p in outer[:-1]) / (len(outer) - 1)
            if not point_in_ring(cx, cy, outer):
                continue
            room = min(dist_point_segment(cx, cy, *outer[m], *outer[m + 1]) for m in range(len(outer) - 1))
            radius = min(rng.uniform(28.0, 45.0), 0.55 * room)
            if radius < 12.0:
                continue
            island = blob(rng, cx, cy, radius, rng.randint(18, 34), clockwise=True, wobble=0.2)
            stands[k] = stands[k] + [list(reversed(island))]
            islands.append([island])
        for avdnr, parts_s in enumerate(stands + islands, start=1):
            is_island = avdnr > len(stands)
            besttyp = "Myr" if is_island else rng.choices(types, weights=weights)[0]
            tradslag, alder, datum, cert = stand_attributes(rng, besttyp)
            if idx == 7 and avdnr == 3:
                besttyp, tradslag, alder = "Lövskog", "Ek", 35   # a planted oak stand
            stand_shapes.append(parts_s)
            stand_rows.append([avdnr, name, besttyp, round(polygon_area(parts_s) / 10000.0, 2), alder,
                               tradslag, datum, cert])

    write_layer(out_dir, "fastigheter", SHP_POLYGON, prop_shapes,
                [("FASTIGHET", "C", 40, 0), ("AGARE", "C", 60, 0), ("AREAL_HA", "N", 10, 2),
                 ("KOMMUN", "C", 30, 0)], prop_rows)
    write_layer(out_dir, "avdelningar", SHP_POLYGON, stand_shapes,
                [("AVDNR", "N", 4, 0), ("FASTIGHET", "C", 40, 0), ("BESTTYP", "C", 20, 0),
                 ("AREAL", "N", 10, 2), ("ALDER", "N", 3, 0), ("TRADSLAG", "C", 20, 0),
                 ("INVDATUM", "D", 8, 0), ("CERTIFIER", "L", 1, 0)], stand_rows)

    # Consideration areas
    rng = random.Random(SEED + 5)
    hansyn_shapes, hansyn_rows = [], []
    fornminne_areas = []
    for typ, namn, text, anchor, radius, extra in HANSYN:
        if not 80 <= len(text) <= 200:
            raise ValueError("BESKRIVNING of %s is %d characters" % (namn, len(text)))
        cells = sorted(prop_cells[anchor])
        cx, cy = lattice.cell_center(rng.choice(cells))
        n = max(24, min(140, int(radius / 12)))
        parts = [blob(rng, cx, cy, radius, n)]
        if extra == "hole":
            parts.append(blob(rng, cx + radius * 0.15, cy - radius * 0.1, radius * 0.22, 20, clockwise=False,
                              wobble=0.1))
        elif extra == "multi":
            ang = rng.uniform(0, 2 * math.pi)
            parts.append(blob(rng, cx + 2.6 * radius * math.cos(ang), cy + 2.6 * radius * math.sin(ang),
                              radius * 0.6, 24))
        if typ == "Fornminne":
            fornminne_areas.append(parts)
        hansyn_shapes.append(parts)
        hansyn_rows.append([typ, namn, text, round(polygon_area(parts) / 10000.0, 2)])
    write_layer(out_dir, "hansyn", SHP_POLYGON, hansyn_shapes,
                [("TYP", "C", 20, 0), ("NAMN", "C", 60, 0), ("BESKRIVNIN", "C", 254, 0),
                 ("AREAL", "N", 12, 2)], hansyn_rows)

    # Ancient monuments
    rng = random.Random(SEED + 6)
    points, point_rows = [], []
    used_numbers = set()
    names = list(FORNMINNE_NAMES)
    for k in range(46):
        if k < 10:
            area = fornminne_areas[k % len(fornminne_areas)]
            outer = area[0]
            xs = [p[0] for p in outer]
            ys = [p[1] for p in outer]
            while True:
                x, y = rng.uniform(min(xs), max(xs)), rng.uniform(min(ys), max(ys))
                if point_in_polygon(x, y, area):
                    break
            typ = "Kolbotten" if k % 2 == 0 else "Fångstgrop"
        else:
            x = rng.uniform(X0 + CELL, X0 + (NX - 1) * CELL)
            y = rng.uniform(Y0 + CELL, Y0 + (NY - 1) * CELL)
            typ = rng.choice(FORNMINNE_TYPES)
        while True:
            nr = "L%d:%d" % (rng.choice((1960, 1961, 1962)), rng.randint(1000, 9999))
            if nr not in used_numbers:
                used_numbers.add(nr)
                break
        name = names.pop(0) if (names and rng.random() < 0.3) else ""
        points.append((q(x), q(y)))
        point_rows.append([nr, typ, name])
    write_layer(out_dir, "fornminnen", SHP_POINT, points,
                [("RAA_NR", "C", 16, 0), ("TYP", "C", 40, 0), ("NAMN", "C", 60, 0)], point_rows)

    # Forest roads
    roads = make_roads(random.Random(SEED + 7))
    write_layer(out_dir, "vagar", SHP_POLYLINE, [r[0] for r in roads],
                [("KLASS", "N", 1, 0), ("NAMN", "C", 50, 0), ("BELAGGNING", "C", 20, 0), ("BREDD", "N", 4, 1)],
                [list(r[1:]) for r in roads])

    # Municipalities
    write_layer(out_dir, "kommuner", SHP_POLYGON, kommun_geoms,
                [("KOMMUNNAMN", "C", 40, 0), ("KOMMUNKOD", "C", 4, 0)], [list(k) for k in KOMMUNER])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(os.path.dirname(here), "SampleData", "forest")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=default_out, help="output folder (default: %(default)s)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    build(args.out)


if __name__ == "__main__":
    main()
