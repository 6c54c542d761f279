import Foundation
import KartpackKit
import KartpackTestSupport
import Testing

/// `Catalog` reads what the producer writes: `kartpack package` over the sample by municipality, signed with a
/// fresh minisign key. Every region verifies; a flipped byte does not; the real signature parses and its key id
/// matches (valid with CryptoKit, `.unavailable` on Linux), another key's is `.invalid`.
@Suite struct CatalogProducerTests {
    @Test func readsAndVerifiesWhatKartpackPackageWrites() throws {
        let dir = try TemporaryDirectory(prefix: "kit-producer")
        let key = dir.file("k.key")
        let pub = dir.file("k.pub")
        let g = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", pub, "-s", key])
        try #require(g.status == 0, "\(g.stderr)")
        let out = dir.file("out")
        let r = try runKartpack([
            "package", RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path,
            "--regions", RepositoryPaths.sampleForest.appendingPathComponent("kommuner.shp").path,
            "--id-field", "KOMMUNKOD", "--max-zoom", "11", "--sign", key, "-o", out, "--quiet",
        ])
        try #require(r.status == 0, "\(r.stderr)")
        let catalog = try Catalog(contentsOf: URL(fileURLWithPath: out + "/catalog.json"))
        #expect(catalog.version == 1 && !catalog.kartpackVersion.isEmpty)
        // One model: the producer wrote exactly what the model's `text` gives for what the reader read.
        #expect(catalog.bytes == Data(catalog.text.utf8))
        try #require(!catalog.regions.isEmpty)
        for region in catalog.regions {
            let file = catalog.fileURL(of: region)
            try catalog.verify(region, file: file)
            let package = try KartpackPackage(contentsOf: file)
            #expect(package.minZoom == region.minZoom && package.maxZoom == region.maxZoom)
            #expect(package.layers.map(\.name) == region.layers.map(\.name))
            let middle = GeoCoordinate(
                longitude: (region.bounds.west + region.bounds.east) / 2,
                latitude: (region.bounds.south + region.bounds.north) / 2)
            #expect(catalog.regions(covering: middle).contains(region))
        }
        // A flipped byte in the middle of the first package.
        let first = catalog.fileURL(of: catalog.regions[0])
        var bytes = try Data(contentsOf: first)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: first)
        #expect(throws: KartpackKitError.self) { try catalog.verify(catalog.regions[0], file: first) }

        let signature = try String(contentsOfFile: out + "/catalog.json.minisig", encoding: .utf8)
        let publicKey = try String(contentsOfFile: pub, encoding: .utf8)
        let check = catalog.verifySignature(signature, publicKey: publicKey)
        #if canImport(CryptoKit)
            guard case .valid = check else {
                Issue.record("the producer's signature must verify: \(check)")
                return
            }
        #else
            guard case .unavailable = check else {
                Issue.record("on Linux the producer's signature must parse and be unavailable: \(check)")
                return
            }
        #endif
        let otherPub = dir.file("o.pub")
        _ = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", otherPub, "-s", dir.file("o.key")])
        let other = catalog.verifySignature(
            signature, publicKey: try String(contentsOfFile: otherPub, encoding: .utf8))
        guard case .invalid = other else {
            Issue.record("another key's signature must be invalid: \(other)")
            return
        }
    }
}
