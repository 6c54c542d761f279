import KartpackCore
import Reprojection

/// One input layer (a Shapefile set or a GeoPackage table) read into Web Mercator metres the way the features of
/// a run are: its reader, its CRS resolved as the read phase resolves it (the `.prj` or GeoPackage SRS text in a
/// child process, or the override), and `ReprojectStage` (the
/// 0–360° wrap, the polar clamp, `reprojection_failed` and `outside_web_mercator` as reasons). The one intake rule
/// of what is read before the read phase: clip regions and ancestor sets (`Regions`), region sets (`RegionSet`)
/// and the `--max-zoom auto` guess (`MaxZoomGuess`). A record that cannot be projected is handed on with its
/// reason and counted in `rejected`, never dropped unseen.
package struct IntakeReader {
    /// A record: its feature as read, and its geometry in metres or why it has none.
    package struct Record {
        package var feature: Feature
        package var projected: Result<Geometry, FeatureIssue>
    }

    package let set: InputLayer
    package let reader: any LayerReading
    package let crs: CRSInfo
    private let stage = ReprojectStage()
    /// Records that could not be projected, per reason code.
    private(set) var rejected: [ReasonCode: Int] = [:]

    /// Opens the set; the reader's own skips and repairs go to `diagnostics`.
    package init(set: InputLayer, sourceCRS: String?, encoding: String?, diagnostics: DiagnosticSink) throws {
        self.set = set
        reader = try set.open(encoding: encoding, diagnostics: diagnostics)
        crs = try reader.resolveCRS(override: sourceCRS)
    }

    /// The next record the reader yields, projected; nil at the end of the set.
    package mutating func next() throws -> Record? {
        guard let f = try reader.next() else { return nil }
        var g = f.geometry
        var repairs = Set<ReasonCode>()
        do throws(FeatureIssue) {
            try stage.apply(&g, from: crs, repairs: &repairs)
        } catch {
            rejected[error.code, default: 0] += 1
            return Record(feature: f, projected: .failure(error))
        }
        return Record(feature: f, projected: .success(g))
    }

    /// "reprojection_failed 2, outside_web_mercator 1": the rejected counts in code order.
    var rejectedSummary: String {
        rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
