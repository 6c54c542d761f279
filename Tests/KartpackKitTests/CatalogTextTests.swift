import Foundation
import Testing

@testable import KartpackKit

/// `catalog.json` has one model: `Catalog.text` (what `kartpack package` writes) read back by the strict reader
/// gives the same catalog and the same text, and the producer's limits read catalogs a client would refuse.
@Suite struct CatalogTextTests {
    static func region(_ id: String, built: TimeInterval) -> CatalogRegion {
        CatalogRegion(
            id: id, name: "Vännäs \(id)", file: "\(id).pmtiles", bytes: 123_456, sha256: CatalogTests.digest,
            bounds: GeoRegion(west: 19.45, south: 63.89, east: 19.86, north: 64.05), minZoom: 8, maxZoom: 14,
            layers: [.init(name: "avdelningar", features: 412, classes: ["stand", "sumpskog"])],
            built: Date(timeIntervalSince1970: built), fingerprint: "f-\(id)")
    }

    @Test func theWrittenTextReadsBackToTheSameCatalogAndText() throws {
        let folder = URL(fileURLWithPath: "/srv/maps")
        let written = Catalog(
            created: Date(timeIntervalSince1970: 1_796_126_400), sequence: 42, kartpackVersion: "0.9.0",
            regions: [Self.region("a", built: 1_796_126_280), Self.region("b", built: 1_796_000_000)],
            folder: folder)
        #expect(written.bytes == Data(written.text.utf8))
        #expect(written.text.contains(#""created": "2026-12-01T12:00:00Z""#))
        #expect(written.text.contains(#""built": "2026-12-01T11:58:00Z""#))
        let read = try Catalog(data: written.bytes, folder: folder)
        #expect(read.text == written.text)
        #expect(read.regions == written.regions && read.sequence == 42 && read.created == written.created)
    }

    @Test func timesAreWholeSecondsInUTC() {
        #expect(Catalog.timeText(Date(timeIntervalSince1970: 1_796_126_400.75)) == "2026-12-01T12:00:00Z")
        #expect(Catalog.timeText(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }

    /// Both time forms read, with the formatters made once per catalog: whole seconds and fractions, `Z` only.
    @Test func timesReadWithAndWithoutFractions() throws {
        let head = #"{"catalogVersion": 1, "kartpack": "x", "regions": [], "created": "#
        let root = URL(fileURLWithPath: "/")
        let whole = try Catalog(data: Data((head + #""2026-12-01T12:00:00Z"}"#).utf8), folder: root)
        let fraction = try Catalog(data: Data((head + #""2026-12-01T12:00:00.250Z"}"#).utf8), folder: root)
        #expect(whole.created == Date(timeIntervalSince1970: 1_796_126_400))
        #expect(fraction.created == Date(timeIntervalSince1970: 1_796_126_400.25))
        #expect(throws: KartpackKitError.self) {
            try Catalog(data: Data((head + #""2026-12-01T12:00:00.250+00:00"}"#).utf8), folder: root)
        }
    }

    @Test func theProducerLimitsReadWhatAClientWouldRefuse() throws {
        let many = (0..<3).map { Self.region("r\($0)", built: 1_796_126_280) }
        let text = Catalog(
            created: Date(timeIntervalSince1970: 0), sequence: 1, kartpackVersion: "0.9.0", regions: many,
            folder: URL(fileURLWithPath: "/")
        ).bytes
        let tight = Catalog.Limits(maxBytes: 1 << 20, maxRegions: 2)
        #expect(throws: KartpackKitError.self) {
            try Catalog(data: text, folder: URL(fileURLWithPath: "/"), limits: tight)
        }
        #expect(try Catalog(data: text, folder: URL(fileURLWithPath: "/"), limits: .producer).regions.count == 3)
    }
}
