import Testing

@testable import Publishing

/// The keys of issue 12: `onInputError`, `maxShrink`, per-source `minFeatures`, `maxShrink`, `requireFeatures`,
/// `idField`, `idPolicy`; and `--set output.path` choosing the format by its extension.
@Suite struct SpecPublishingKeysTests {
    private let base = #"{"version":1,"sources":[{"path":"a.shp"SOURCE}],"output":{"path":"o.pmtiles"}TOP}"#

    private func json(source: String = "", top: String = "") -> String {
        base.replacingOccurrences(of: "SOURCE", with: source.isEmpty ? "" : "," + source)
            .replacingOccurrences(of: "TOP", with: top.isEmpty ? "" : "," + top)
    }

    @Test func publishingKeysAreReadWithDefaults() throws {
        let plain = try specParse(json())
        #expect(plain.onInputError == .fail && plain.maxShrink == nil)
        #expect(
            plain.sources[0].minFeatures == nil && !plain.sources[0].requireFeatures && plain.sources[0].idField == nil)
        let s = try specParse(
            json(
                source: #""minFeatures":10,"maxShrink":0.5,"requireFeatures":true,"idField":"AVDNR","idPolicy":"skip""#,
                top: #""onInputError":"skip","maxShrink":0.2"#))
        #expect(s.onInputError == .skip && s.maxShrink == 0.2)
        let src = s.sources[0]
        #expect(src.minFeatures == 10 && src.maxShrink == 0.5 && src.requireFeatures)
        #expect(src.idField == "AVDNR" && src.idPolicy == .skip)
        #expect(
            s.expectations == [
                LayerExpectation(
                    layer: "a", source: "sources[0]", minFeatures: 10, maxShrink: 0.5, requireFeatures: true)
            ])
        // The top-level maxShrink is every source's default.
        #expect(try specParse(json(top: #""maxShrink":0.3"#)).expectations[0].maxShrink == 0.3)
    }

    @Test func badValuesAreReportedWithTheirPath() {
        #expect(
            specIssues(json(top: #""onInputError":"ignore""#)) == [
                #"onInputError: expected one of "fail", "skip", got "ignore""#
            ])
        #expect(specIssues(json(top: #""maxShrink":1.5"#)) == ["maxShrink: must be between 0 and 1, got 1.5"])
        #expect(
            specIssues(json(source: #""requireFeatures":"yes""#)) == [
                #"sources[0].requireFeatures: expected true or false, got "yes""#
            ])
        #expect(
            specIssues(json(source: #""minFeatures":-1"#)) == [
                "sources[0].minFeatures: must be between 0 and 2147483647, got -1"
            ])
        #expect(
            specIssues(json(source: #""idPolicy":"skip""#)) == [
                "sources[0].idPolicy: only allowed with idField (record numbers are never missing or repeated)"
            ])
        #expect(
            specIssues(json(source: #""idField":"X","idPolicy":"first""#)) == [
                #"sources[0].idPolicy: expected one of "reject", "skip", "record", got "first""#
            ])
    }

    @Test func canonicalFormCarriesTheNewKeysOnlyWhenSet() throws {
        let plain = try specParse(json()).canonicalJSON
        #expect(!plain.contains("onInputError") && !plain.contains("idField") && !plain.contains("maxShrink"))
        let s = try specParse(
            json(source: #""idField":"AVDNR","requireFeatures":true"#, top: #""onInputError":"skip""#))
        #expect(s.canonicalJSON.contains(#""idField":"AVDNR","idPolicy":"reject""#))
        #expect(
            s.canonicalJSON.contains(#""onInputError":"skip""#) && s.canonicalJSON.contains(#""requireFeatures":true"#))
        #expect(try specParse(s.canonicalJSON) == s)
    }

    @Test func setOutputPathInfersTheFormatFromItsExtension() throws {
        let file = #"{"version":1,"sources":[{"path":"a.shp"}],"output":{"format":"pmtiles","path":"o.pmtiles"}}"#
        let s = try specParse(file, overrides: ["output.path=/tmp/x.mbtiles"])
        #expect(s.output.format == .mbtiles && s.output.path == "/tmp/x.mbtiles")
        // A format given with --set still has to match; a format in the file with its own path stays checked.
        #expect(
            specIssues(file, overrides: ["output.path=/tmp/x.mbtiles", "output.format=pmtiles"]) == [
                #"output.format: "pmtiles" does not match output.path, which ends in .mbtiles"#
            ])
        let both = try specParse(file, overrides: ["output.format=mbtiles", "output.path=/tmp/y.mbtiles"])
        #expect(both.output.format == .mbtiles)
        #expect(
            specIssues(#"{"version":1,"sources":[{"path":"a.shp"}],"output":{"format":"mbtiles","path":"o.pmtiles"}}"#)
                .count == 1)
    }
}
