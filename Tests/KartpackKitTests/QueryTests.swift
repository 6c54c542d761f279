import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackJSON
import KartpackKit
import KartpackTestSupport
import PMTiles
import Testing
import VectorTile

@Suite struct QueryTests {
    static let box = GeoRegion(west: 10, south: 50, east: 14, north: 53)

    static func stationPackage(_ dir: TemporaryDirectory, count: Int = 3_000, zoom: Int = 8)
        throws -> (KartpackPackage, [SyntheticPackage.Station])
    {
        let stations = SyntheticPackage.stations(count: count, in: box, seed: 7)
        let path = dir.file("stations.pmtiles")
        try SyntheticPackage.writePoints(stations, zoom: zoom, to: path)
        return (try KartpackPackage(contentsOf: URL(fileURLWithPath: path)), stations)
    }

    @Test func opensHeaderAndLayers() throws {
        let dir = try TemporaryDirectory()
        let (pkg, _) = try Self.stationPackage(dir)
        #expect(pkg.name == "synthetic")
        #expect(pkg.minZoom == 8 && pkg.maxZoom == 8)
        #expect(pkg.layers.map(\.name) == ["stations"])
        #expect(pkg.layers[0].fields.map(\.name) == ["name", "rank"])
        #expect(pkg.layers[0].fields.map(\.kind) == [.string, .number])
        #expect(pkg.bounds.west <= 10 && pkg.bounds.east >= 14)
    }

    @Test func everyPointOnceWithItsIdAndPosition() throws {
        let dir = try TemporaryDirectory()
        let (pkg, stations) = try Self.stationPackage(dir)
        let found = try pkg.features(in: Self.box, zoom: 8)
        #expect(found.count == stations.count)
        #expect(Set(found.compactMap(\.id)).count == stations.count)
        let byID = Dictionary(uniqueKeysWithValues: stations.map { ($0.id, $0) })
        // One tile unit at zoom 8, extent 4096, in degrees of longitude.
        let unit = 360.0 / 256 / 4096
        for f in found {
            guard let id = f.id, let s = byID[id], case .points(let p) = f.geometry, p.count == 1 else {
                Issue.record("unexpected feature \(f.layer) \(String(describing: f.id))")
                continue
            }
            #expect(abs(p[0].longitude - s.lon) <= unit)
            #expect(abs(p[0].latitude - s.lat) <= unit)
            #expect(f["rank"]?.numericValue == Double(s.rank))
            #expect(f["name"] == .string("station \(id)"))
        }
        // Overzoom reads the z8 tiles; a zoom below the package's has nothing.
        #expect(try pkg.features(in: Self.box, zoom: 11).count == stations.count)
        #expect(try pkg.features(in: Self.box, zoom: 7).isEmpty)
    }

    @Test func smallerRegionGivesTheSubset() throws {
        let dir = try TemporaryDirectory()
        let (pkg, _) = try Self.stationPackage(dir)
        let all = try pkg.features(in: Self.box, zoom: 8)
        let inner = GeoRegion(west: 11, south: 51, east: 12.5, north: 52)
        let part = try pkg.features(in: inner, zoom: 8)
        let expected = all.filter { inner.contains($0.geometry.coordinates[0]) }
        #expect(Set(part.compactMap(\.id)) == Set(expected.compactMap(\.id)))
    }

    @Test func limitIsAtMostNAndStableWhenTheRegionShrinks() throws {
        let dir = try TemporaryDirectory()
        let (pkg, _) = try Self.stationPackage(dir)
        var rng = SplitMix64(seed: 42)
        for spread in [Spread.even, .rank] {
            for n in [1, 10, 50, 200] {
                let chosen = try pkg.features(in: Self.box, zoom: 8, limit: n, spread: spread)
                #expect(chosen.count == n)
                #expect(try pkg.features(in: Self.box, zoom: 8, limit: n, spread: spread) == chosen)
                for _ in 0..<5 {
                    let w = Double.random(in: 10..<13, using: &rng)
                    let s = Double.random(in: 50..<52.5, using: &rng)
                    let inner = GeoRegion(
                        west: w, south: s, east: Double.random(in: w...14, using: &rng),
                        north: Double.random(in: s...53, using: &rng))
                    let smaller = Set(try pkg.features(in: inner, zoom: 8, limit: n, spread: spread).compactMap(\.id))
                    #expect(smaller.count <= n)
                    for f in chosen where inner.contains(f.geometry.coordinates[0]) {
                        #expect(smaller.contains(f.id!), "feature \(f.id!) left the smaller view \(inner)")
                    }
                }
            }
        }
    }

    @Test func evenSpreadBeatsRandomChoice() throws {
        let dir = try TemporaryDirectory()
        let (pkg, _) = try Self.stationPackage(dir)
        let all = try pkg.features(in: Self.box, zoom: 8)
        func minDistance(_ f: [MapFeature]) -> Double {
            let p = f.map {
                SyntheticPackage.world(
                    lon: $0.geometry.coordinates[0].longitude,
                    lat: $0.geometry.coordinates[0].latitude)
            }
            var best = Double.infinity
            for i in p.indices {
                for j in p.indices where j > i { best = min(best, hypot(p[i].x - p[j].x, p[i].y - p[j].y)) }
            }
            return best
        }
        let n = 40
        let even = minDistance(try pkg.features(in: Self.box, zoom: 8, limit: n))
        var rng = SplitMix64(seed: 1)
        let random = (0..<20).map { _ in minDistance(Array(all.shuffled(using: &rng).prefix(n))) }.sorted()
        #expect(even > random[random.count - 1], "even \(even) vs random up to \(random.last!)")
    }

    @Test func priorityWinsWithinTheLimit() throws {
        let dir = try TemporaryDirectory()
        let (pkg, stations) = try Self.stationPackage(dir)
        let top = try pkg.features(in: Self.box, zoom: 8, limit: 5, spread: .rank, priority: "rank")
        let best = stations.map(\.rank).sorted(by: >).prefix(5)
        #expect(top.compactMap { $0["rank"]?.numericValue }.map { Int64($0) } == Array(best))
    }

    @Test func badRequestsAreErrors() throws {
        let dir = try TemporaryDirectory()
        let (pkg, _) = try Self.stationPackage(dir)
        #expect(throws: KartpackKitError.self) {
            try pkg.features(in: GeoRegion(west: 5, south: 0, east: 4, north: 1), zoom: 3)
        }
        #expect(throws: KartpackKitError.self) { try pkg.features(in: Self.box, zoom: 32) }
        #expect(throws: KartpackKitError.self) { try pkg.features(in: Self.box, zoom: 8, layers: ["nope"]) }
        #expect(throws: KartpackKitError.self) { try pkg.features(in: Self.box, zoom: 8, limit: -1) }
        let few = try KartpackPackage(
            contentsOf: pkg.url,
            limits: {
                var l = KartpackPackage.Limits()
                l.maxTilesPerQuery = 2
                return l
            }())
        #expect(throws: KartpackKitError.self) { try few.features(in: Self.box, zoom: 8) }
    }
}
