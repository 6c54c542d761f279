import Testing

@testable import Publishing
@testable import RegionPackages

/// `CatalogCheck`, the rules that refuse a region catalog's night (issue 32), as pure functions.
@Suite struct CatalogCheckTests {
    @Test func removalsAreErrorsNamingEachRegionInIDOrderUnlessAllowed() {
        let leaving: [(id: String, why: CatalogCheck.Leaving)] = [
            ("r3", .empty), ("r10", .gone(regionsFile: "regions.shp")),
        ]
        let findings = CatalogCheck.removals(leaving, allowed: false)
        #expect(findings.map(\.region) == ["r10", "r3"])
        #expect(findings.allSatisfy { $0.severity == .error && $0.code == .regionRemoved })
        #expect(findings[0].message.contains("is not in regions.shp tonight"), "\(findings[0].message)")
        #expect(findings[1].message.contains("holds no feature tonight"), "\(findings[1].message)")
        #expect(CatalogCheck.removals(leaving, allowed: true).isEmpty)
    }

    @Test func aRegionIsJudgedByMaxShrinkOnly() {
        let e = [LayerExpectation(layer: "pts", source: "sources[0]", minFeatures: 10, maxShrink: 0.5)]
        let previous = PackageSummary(writtenByInput: ["pts": 4], featuresByLayer: [:], missingLayers: [])
        // 1 of 4 left: shrank by 75 %; minFeatures 10 is not a region's business.
        let shrank = CatalogCheck.regionGuards(
            e, region: "r1", written: ["pts": 1], rejected: [], previous: previous)
        #expect(shrank.map(\.code) == [.layerShrank])
        #expect(shrank.first?.region == "r1")
        #expect(shrank.first?.message.hasPrefix("region 'r1': sources[0] (pts) has 1 features") == true)
        #expect(
            CatalogCheck.regionGuards(e, region: "r1", written: ["pts": 3], rejected: [], previous: previous).isEmpty)
        // No features in a region is no warning either.
        #expect(CatalogCheck.regionGuards(e, region: "r1", written: [:], rejected: [], previous: nil).isEmpty)
    }

    @Test func theCatalogIsJudgedByEveryGuardAgainstThePreviousCatalog() {
        let e = [LayerExpectation(layer: "pts", source: "sources[0]", minFeatures: 5, maxShrink: 0.1)]
        let findings = CatalogCheck.catalogGuards(e, written: ["pts": 4], rejected: [], previous: ["pts": 10])
        #expect(findings.map(\.code) == [.tooFewFeatures, .layerShrank])
        #expect(findings.allSatisfy { $0.message.hasPrefix("catalog: ") })
        #expect(findings[1].message.contains("the previous catalog 10"), "\(findings[1].message)")
        #expect(CatalogCheck.catalogGuards(e, written: ["pts": 10], rejected: [], previous: nil).isEmpty)
    }
}
