import Testing

@testable import Pipeline

/// Which of the previous catalog's files `package` deletes (issue 32, finding 2). The case-insensitive folder
/// is simulated: Linux folders are case-sensitive.
@Suite struct RegionOwnershipTests {
    static func entry(_ id: String, bytes: UInt64 = 10) -> Catalog.Region {
        Catalog.Region(
            id: id, name: id, file: id + ".pmtiles", bytes: bytes, sha256: "", bounds: [0, 0, 1, 1], minZoom: 0,
            maxZoom: 1, layers: [], built: "", fingerprint: "")
    }

    @Test func aRegionWhoseIdChangedCaseKeepsItsFreshPackageOnACaseInsensitiveFolder() {
        let insensitive = { (a: String, b: String) in a.lowercased() == b.lowercased() }
        let gone = RegionPackager.removable(
            previous: [Self.entry("R1"), Self.entry("r2")], kept: ["r1.pmtiles"], sameFile: insensitive,
            size: { _ in 10 })
        #expect(gone == ["r2.pmtiles"])
        let sensitive = RegionPackager.removable(
            previous: [Self.entry("R1"), Self.entry("r2")], kept: ["r1.pmtiles"], sameFile: { $0 == $1 },
            size: { _ in 10 })
        #expect(sensitive == ["R1.pmtiles", "r2.pmtiles"])
    }

    @Test func aFileNoLongerTheOneListedIsNotDeleted() {
        let gone = RegionPackager.removable(
            previous: [Self.entry("a", bytes: 10), Self.entry("b", bytes: 20), Self.entry("c")], kept: [],
            sameFile: { $0 == $1 }, size: { $0 == "b.pmtiles" ? 99 : $0 == "c.pmtiles" ? nil : 10 })
        #expect(gone == ["a.pmtiles"])
    }
}
