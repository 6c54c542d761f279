import Foundation
import KartpackTestSupport
import Testing

/// `extract` from PMTiles archives whose directories hold run-length entries (one blob for consecutive tiles, as
/// Kartpack writes repeated tiles): every tile of a run that touches the area is copied, checked against the
/// tiles the PyPI `pmtiles` reader lists.
@Suite struct ExtractRunLengthTests {
    private static let python = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path

    /// Writes an archive of every tile at zooms `minZoom...maxZoom`: two blobs alternating every `period` ids
    /// (runs of `period` tiles), or one blob for all (`period` 0: a single run).
    private func archive(_ path: String, minZoom: Int, maxZoom: Int, period: Int) throws {
        let script = """
            import sys, gzip
            from pmtiles.writer import write
            from pmtiles.tile import zxy_to_tileid, TileType, Compression
            out, minz, maxz, period = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
            blobs = [gzip.compress(b"\\x1a\\x00tile-%d" % i, mtime=0) for i in range(2)]
            with write(out) as w:
                zs = range(minz, maxz + 1)
                for i in sorted(zxy_to_tileid(z, x, y) for z in zs for x in range(2**z) for y in range(2**z)):
                    w.write_tile(i, blobs[(i // period) % 2] if period else blobs[0])
                w.finalize({"tile_type": TileType.MVT, "tile_compression": Compression.GZIP, "min_zoom": minz,
                            "max_zoom": maxz, "min_lon_e7": -1800000000, "min_lat_e7": -850000000,
                            "max_lon_e7": 1800000000, "max_lat_e7": 850000000, "center_zoom": 0,
                            "center_lon_e7": 0, "center_lat_e7": 0}, {"name": "runs", "vector_layers": []})
            """
        let r = try runProcess(
            Self.python, ["-c", script, path, "\(minZoom)", "\(maxZoom)", "\(period)"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// The tiles of `source` touching `bbox` that `part` lacks or has wrongly, and the part's tile count.
    private func compare(source: String, part: String, bbox: String) throws -> (problems: String, count: Int) {
        let script = """
            import sys, math
            from pmtiles.reader import MmapSource, all_tiles
            def tiles(p):
                with open(p, 'rb') as f:
                    return {(z, x, y): d for (z, x, y), d in all_tiles(MmapSource(f))}
            src, part = tiles(sys.argv[1]), tiles(sys.argv[2])
            w, s, e, n = map(float, sys.argv[3].split(','))
            def touches(z, x, y):
                k = 2 ** z
                lon0, lon1 = x / k * 360 - 180, (x + 1) / k * 360 - 180
                lat = lambda t: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * t / k))))
                return lon0 <= e and lon1 >= w and lat(y + 1) <= n and lat(y) >= s
            want = {t for t in src if touches(*t)}
            bad = sorted(set(part) ^ want)[:5] + [t for t in part if part[t] != src.get(t)][:5]
            print(len(part), bad if bad else '')
            """
        let r = try runProcess(Self.python, ["-c", script, source, part, bbox])
        #expect(r.status == 0, "\(r.stderr)")
        let words = r.stdout.split(separator: " ", maxSplits: 1)
        return (words.count > 1 ? String(words[1]) : r.stderr, Int(words.first ?? "") ?? -1)
    }

    @Test func runsCrossingTheAreaEdgeAreCopiedTileByTile() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("runs.pmtiles")
        try archive(source, minZoom: 0, maxZoom: 6, period: 7)
        let part = dir.file("part.pmtiles")
        let bbox = "10,50,30,65"
        let x = try runKartpack(["extract", source, "--bbox", bbox, "-o", part])
        #expect(x.status == 0, "\(x.stderr)")
        let (problems, count) = try compare(source: source, part: part, bbox: bbox)
        #expect(problems.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(problems)")
        #expect(count > 20)
    }

    @Test func aRunStartingOutsideTheAreaStillGivesItsTiles() throws {
        let dir = try TemporaryDirectory()
        let source = dir.file("one-run.pmtiles")
        try archive(source, minZoom: 3, maxZoom: 6, period: 0)
        let part = dir.file("part.pmtiles")
        let bbox = "17,58,19,60"
        let x = try runKartpack(["extract", source, "--bbox", bbox, "-o", part])
        #expect(x.status == 0, "\(x.stderr)")
        let (problems, count) = try compare(source: source, part: part, bbox: bbox)
        #expect(problems.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(problems)")
        #expect(count >= 4)
    }
}
