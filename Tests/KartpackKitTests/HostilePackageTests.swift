import Foundation
import KartpackKit
import KartpackTestSupport
import Testing

/// Damaged and hostile packages give `KartpackKitError`s, never traps: the package fuzzer's seed corpus and its
/// regressions, plus every truncation and byte flips of a valid package.
@Suite struct HostilePackageTests {
    static func exercise(_ url: URL) {
        do {
            let pkg = try KartpackPackage(contentsOf: url)
            _ = pkg.layers.map { pkg.classes(layer: $0.name, zoom: 5) }
            for z in Set([0, pkg.minZoom, pkg.maxZoom, 31]) {
                _ = try? pkg.features(in: .world, zoom: z, limit: 10)
                _ = try? pkg.features(in: pkg.bounds.isValid ? pkg.bounds : .world, zoom: z, geometry: .whole)
            }
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    @Test func fuzzCorpusGivesErrorsNotTraps() throws {
        let root = RepositoryPaths.root.appendingPathComponent("SampleData/fuzz-seeds")
        var seen = 0
        for folder in ["package", "regressions/package"] {
            let dir = root.appendingPathComponent(folder)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
                Self.exercise(dir.appendingPathComponent(name))
                seen += 1
            }
        }
        #expect(seen >= 9)
    }

    @Test func truncationsAndFlipsGiveErrorsNotTraps() throws {
        let dir = try TemporaryDirectory()
        let stations = SyntheticPackage.stations(count: 300, in: QueryTests.box, seed: 3)
        let path = dir.file("valid.pmtiles")
        try SyntheticPackage.writePoints(stations, zoom: 6, to: path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let broken = URL(fileURLWithPath: dir.file("broken.pmtiles"))
        var lengths = Array(0..<min(bytes.count, 200))
        lengths += stride(from: 200, to: bytes.count, by: max(1, bytes.count / 60))
        for n in lengths {
            try Data(bytes[..<n]).write(to: broken)
            Self.exercise(broken)
        }
        var rng = SplitMix64(seed: 99)
        for _ in 0..<300 {
            var copy = bytes
            for _ in 0..<Int(rng.next() % 4 + 1) {
                let i = Int(rng.next() % UInt64(copy.count))
                copy[i] = UInt8(truncatingIfNeeded: rng.next())
            }
            try Data(copy).write(to: broken)
            Self.exercise(broken)
        }
        #expect(throws: KartpackKitError.self) { try KartpackPackage(contentsOf: URL(fileURLWithPath: dir.path)) }
        #expect(throws: KartpackKitError.self) {
            try KartpackPackage(contentsOf: URL(string: "https://example.com/a")!)
        }
    }
}
