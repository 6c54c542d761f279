import Foundation
import KartpackKit
import KartpackTestSupport
import Testing

/// A query's feature limit counts decoded features, pieces of one id apiece: tiles full of one id join into a
/// single feature but cost the work of all of them, so they stop the query as a package problem.
@Suite struct QueryLimitTests {
    @Test func sameIdPiecesCountTowardsTheLimit() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("same-id.pmtiles")
        var stations = SyntheticPackage.stations(count: 300, in: QueryTests.box, seed: 5)
        for i in stations.indices { stations[i].id = 1 }
        try SyntheticPackage.writePoints(stations, zoom: 6, to: path)
        let url = URL(fileURLWithPath: path)

        // Within the limit the pieces join into one feature.
        let open = try KartpackPackage(contentsOf: url)
        #expect(try open.features(in: QueryTests.box, zoom: 6).count == 1)

        var limits = KartpackPackage.Limits()
        limits.maxFeaturesPerQuery = 100
        let capped = try KartpackPackage(contentsOf: url, limits: limits)
        do {
            _ = try capped.features(in: QueryTests.box, zoom: 6)
            Issue.record("300 same-id pieces passed a limit of 100")
        } catch {
            guard case .invalidPackage(let p, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(p == path)
            #expect(reason.contains("more than 100 features"), "\(reason)")
        }
    }
}
