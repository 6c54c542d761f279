import KartpackCore
import KartpackJSON
import Testing

@testable import ConvertEngine
@testable import Publishing

/// The publish rules: rejected inputs, empty layers, `minFeatures`, `maxShrink`; the missing-layer metadata; file
/// names as the user gave them.
@Suite struct PublishCheckTests {
    private let previous = PackageSummary(
        writtenByInput: ["avdelningar": 100, "vagar": 30], featuresByLayer: [:], missingLayers: [], fingerprint: nil)

    @Test func rejectionsAreErrorsUnlessSkipped() {
        let m = [
            MissingLayer(layer: "avdelningar", file: "data/avdelningar.shp", code: .badDbfHeader, reason: "bad")
        ]
        let fail = PublishCheck.rejections(m, policy: .fail)
        #expect(
            fail.map(\.severity) == [.error] && fail[0].code == .badDbfHeader
                && fail[0].file == "data/avdelningar.shp")
        #expect(fail[0].message.contains("--allow-partial"))
        #expect(PublishCheck.rejections(m, policy: .skip).map(\.severity) == [.warning])
    }

    @Test func shrinkGuardRefusesMoreThanTheAllowedShare() {
        let e = [LayerExpectation(layer: "avdelningar", source: "sources[0]", maxShrink: 0.2)]
        #expect(PublishCheck.guards(e, written: ["avdelningar": 80], rejected: [], previous: previous).isEmpty)
        let refused = PublishCheck.guards(e, written: ["avdelningar": 79], rejected: [], previous: previous)
        #expect(refused.map(\.code) == [.layerShrank] && refused[0].severity == .error)
        #expect(
            refused[0].message.contains("79") && refused[0].message.contains("100")
                && refused[0].message.contains("21.0%"))
        // Growth, no previous package, a layer the previous package lacks, a rejected (listed) layer: no guard.
        #expect(PublishCheck.guards(e, written: ["avdelningar": 500], rejected: [], previous: previous).isEmpty)
        #expect(PublishCheck.guards(e, written: ["avdelningar": 1], rejected: [], previous: nil).isEmpty)
        let other = [LayerExpectation(layer: "hansyn", maxShrink: 0)]
        #expect(PublishCheck.guards(other, written: ["hansyn": 1], rejected: [], previous: previous).isEmpty)
        #expect(PublishCheck.guards(e, written: [:], rejected: ["avdelningar"], previous: previous).isEmpty)
    }

    @Test func emptyLayersWarnUnlessRequiredAndMinFeaturesCounts() {
        let warn = PublishCheck.guards([LayerExpectation(layer: "vagar")], written: [:], rejected: [], previous: nil)
        #expect(warn.map(\.code) == [.noFeatures] && warn[0].severity == .warning)
        let required = [LayerExpectation(layer: "vagar", requireFeatures: true)]
        #expect(PublishCheck.guards(required, written: [:], rejected: [], previous: nil).map(\.severity) == [.error])
        // A required layer whose input was skipped still stops the publish.
        #expect(
            PublishCheck.guards(required, written: [:], rejected: ["vagar"], previous: nil).map(\.severity) == [.error])
        let min = [LayerExpectation(layer: "vagar", minFeatures: 31)]
        #expect(
            PublishCheck.guards(min, written: ["vagar": 30], rejected: [], previous: nil).map(\.code) == [
                .tooFewFeatures
            ])
        #expect(PublishCheck.guards(min, written: ["vagar": 31], rejected: [], previous: nil).isEmpty)
    }

    @Test func missingLayersRoundTripThroughTheMetadataText() throws {
        let m = [
            MissingLayer(layer: "a", file: "x/a.shp", code: .missingPrj, reason: "no \"prj\""),
            MissingLayer(layer: "b", file: "b.shp", code: .emptyLayer, reason: "empty"),
        ]
        let text = MissingLayer.metadataText(m)
        #expect(text.hasPrefix(#"[{"code":"missing_prj","file":"x/a.shp","layer":"a","reason":"no \"prj\""}"#))
        #expect(MissingLayer.parse(metadataText: text) == m)
        #expect(MissingLayer.parse(metadataText: "{}") == nil)
    }

    @Test func packageSummaryReadsTheKartpackMetadata() throws {
        let run = #"{"inputs":{"vagar":{"records":30,"written":29}},"layers":{"vagar":{"features":29}}}"#
        let metadata = JSONValue.object([
            ("kartpack", .string(run)), (MissingLayer.metadataKey, .string(MissingLayer.metadataText([]))),
            (PackageSummary.fingerprintKey, .string("abc")),
        ])
        let s = try #require(PackageSummary.from(metadata: metadata))
        #expect(s.writtenByInput == ["vagar": 29] && s.featuresByLayer == ["vagar": 29] && s.fingerprint == "abc")
        #expect(PackageSummary.from(metadata: .object([])) == nil)
    }

    @Test func fileNamesAreShownAsTheUserGaveThem() {
        var names = FileDisplayNames()
        names.add(folder: "/tmp/kartpack-import-x", shownAs: "")
        names.add(path: "/tmp/kartpack-import-x/export/skog/avd.shp", shownAs: "export/skog/avd.shp")
        names.add(path: "/tmp/kartpack-import-x/export/skog/avd.dbf", shownAs: "export/skog/avd.dbf")
        names.add(path: "/tmp/kartpack-import-x/a/roads.shp", shownAs: "a/roads.shp")
        names.add(path: "/tmp/kartpack-import-x/b/roads.shp", shownAs: "b/roads.shp")
        // A message naming the file: the file moves to `file`.
        let rejected = names.relabel(
            Diagnostic(.error, code: .fileRejected, "avd.dbf: bad .dbf header [bad_dbf_header]"))
        #expect(rejected.file == "export/skog/avd.dbf" && rejected.message == "bad .dbf header [bad_dbf_header]")
        // Absolute paths in the temporary folder become paths inside the export.
        let empty = names.relabel(
            Diagnostic(.error, code: .emptyLayer, "/tmp/kartpack-import-x/export/skog/avd.shp: no records"))
        #expect(empty.file == "export/skog/avd.shp" && empty.message == "no records")
        #expect(names.rewrite("see /tmp/kartpack-import-x/other/file.prj") == "see other/file.prj")
        // Record diagnostics carry bare names; an ambiguous bare name stays as it is.
        #expect(
            names.relabel(Diagnostic(.warning, code: .nullGeometry, "m", file: "avd.shp", record: 3)).file
                == "export/skog/avd.shp")
        #expect(names.relabel(Diagnostic(.warning, code: .nullGeometry, "m", file: "roads.shp")).file == "roads.shp")
        // Only standalone names are replaced, not parts of longer names or of paths already shown.
        #expect(names.rewrite("xavd.shp and export/skog/avd.shp") == "xavd.shp and export/skog/avd.shp")
        #expect(names.rewrite("(avd.shp)") == "(export/skog/avd.shp)")
    }
}
