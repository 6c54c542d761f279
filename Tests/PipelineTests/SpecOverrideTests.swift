import KartpackCore
import KartpackJSON
@testable import PipelineFiles
import Testing

@Suite struct SpecOverrideTests {
    @Test func numbersReplaceValuesAndCreateMissingSections() throws {
        let spec = try specParse(minimalSpecJSON, overrides: ["tiles.maxZoom=12", "tiles.simplify=0.5"])
        #expect(spec.tiles.maxZoom == 12)
        #expect(spec.tiles.simplify == 0.5)
        let json =
            #"{"version":1,"sources":[{"path":"a.shp"}],"tiles":{"minZoom":2,"maxZoom":14},"#
            + #""output":{"path":"o.pmtiles"}}"#
        let replaced = try specParse(json, overrides: ["tiles.maxZoom=10"])
        #expect(replaced.tiles.minZoom == 2 && replaced.tiles.maxZoom == 10)
    }

    @Test func textThatIsNotJSONIsAString() throws {
        let spec = try specParse(
            minimalSpecJSON,
            overrides: ["output.path=/tmp/x.mbtiles", "sources[0].crs=EPSG:3006", "output.name=Skog och mark"])
        #expect(spec.output.path == "/tmp/x.mbtiles")
        #expect(spec.output.format == .mbtiles)
        #expect(spec.sources[0].crs == "EPSG:3006")
        #expect(spec.output.name == "Skog och mark")
    }

    @Test func relativeOverridePathsResolveAgainstThePipelineFolder() throws {
        let spec = try specParse(minimalSpecJSON, overrides: ["output.path=../out/y.pmtiles", "style=s.kss"])
        #expect(spec.output.path == "/out/y.pmtiles")
        #expect(spec.style == "/p/s.kss")
    }

    @Test func jsonValuesKeepTheirType() throws {
        let spec = try specParse(
            minimalSpecJSON,
            overrides: [
                #"clip={"bbox":[19.5,63.9,19.8,64.0],"buffer":50}"#, #"sources[0].keep=["A","B"]"#,
                #"output.name="42""#,
            ])
        #expect(spec.clip == ClipSpec(area: .bbox(Bounds(minX: 19.5, minY: 63.9, maxX: 19.8, maxY: 64)), buffer: 50))
        #expect(spec.sources[0].keep == ["A", "B"])
        #expect(spec.output.name == "42")
        // An unquoted number is JSON, so a string field rejects it with the usual message.
        #expect(
            specIssues(minimalSpecJSON, overrides: ["output.name=42"]) == ["output.name: expected a string, got 42"])
    }

    @Test func overridesApplyBeforeValidation() throws {
        let broken =
            #"{"version":1,"sources":[{"path":"a.shp"}],"tiles":{"maxZoom":"14"},"output":{"path":"o.pmtiles"}}"#
        #expect(specIssues(broken) == [#"tiles.maxZoom: expected an integer or "auto", got "14""#])
        #expect(try specParse(broken, overrides: ["tiles.maxZoom=13"]).tiles.maxZoom == 13)
        #expect(
            specIssues(minimalSpecJSON, overrides: ["tiles.maxZoom=40"]) == [
                "tiles.maxZoom: must be between 0 and 24, got 40"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["tiles.minZoom=15"]) == [
                "tiles.minZoom: 15 is above tiles.maxZoom 14"
            ])
    }

    @Test func nullRemovesAnOptionalSection() throws {
        let json =
            #"{"version":1,"sources":[{"path":"a.shp"}],"clip":{"bbox":[0,0,1,1]},"output":{"path":"o.pmtiles"}}"#
        #expect(try specParse(json).clip != nil)
        #expect(try specParse(json, overrides: ["clip=null"]).clip == nil)
    }

    @Test func anIndexOnePastTheEndAppends() throws {
        let spec = try specParse(minimalSpecJSON, overrides: [#"sources[1]={"path":"b.shp","layer":"bee"}"#])
        #expect(spec.sources.map(\.layer) == ["a", "bee"])
    }

    @Test func unknownPathsGetTheUsualMessages() {
        #expect(
            specIssues(minimalSpecJSON, overrides: ["tiles.maxzoom=3"]) == [
                "tiles.maxzoom: unknown key; did you mean maxZoom?"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["sources[0].crz=EPSG:3006"]) == [
                "sources[0].crz: unknown key; did you mean crs?"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["outputs.path=x.pmtiles"]) == [
                "outputs: unknown key; did you mean output?"
            ])
    }

    @Test func overridesThatCannotApplyAreReportedAlongsideTheRest() {
        #expect(
            specIssues(minimalSpecJSON, overrides: ["sources[3].crs=EPSG:3006"]) == [
                "sources[3]: --set sources[3].crs=EPSG:3006: index 3 is out of range (sources has 1 entry)"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["tiles.maxZoom"]) == [
                "--set tiles.maxZoom: expected KEY.PATH=VALUE"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["tiles..maxZoom=3"]) == [
                #"--set tiles..maxZoom=3: cannot read the key path "tiles..maxZoom" (write it like tiles.maxZoom or "#
                    + #"sources[0].crs)"#
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["sources.crs=x"]) == [
                "sources: --set sources.crs=x: sources is an array, not an object"
            ])
        #expect(
            specIssues(minimalSpecJSON, overrides: ["output[0]=x"]) == [
                "output: --set output[0]=x: output is an object, not an array"
            ])
        // Both a bad override and a bad file value are listed.
        let broken = #"{"version":1,"sources":[{"path":"a.shp"}],"tiles":{"extent":3},"output":{"path":"o.pmtiles"}}"#
        #expect(
            specIssues(broken, overrides: ["nope"]) == [
                "--set nope: expected KEY.PATH=VALUE", "tiles.extent: must be between 256 and 16384, got 3",
            ])
    }

    @Test func jsonPathsParseAndPrint() {
        let cases: [(String, [JSONPath.Component])] = [
            ("tiles.maxZoom", [.key("tiles"), .key("maxZoom")]),
            ("sources[0].crs", [.key("sources"), .index(0), .key("crs")]),
            (#"sources[12].rename["A.B"]"#, [.key("sources"), .index(12), .key("rename"), .key("A.B")]),
            ("clip", [.key("clip")]),
        ]
        for (text, components) in cases {
            #expect(JSONPath.parse(text) == JSONPath(components), "\(text)")
            #expect(JSONPath(components).description == text)
        }
        for bad in ["", ".a", "a.", "a..b", "a[", "a[x]", "a[0]b", "a[-1]", #"a["b"#] {
            #expect(JSONPath.parse(bad) == nil, "\(bad)")
        }
        #expect(JSONPath.root.description == "")
        #expect(JSONPath([.key("rename"), .key("Ä Ö")]).description == #"rename["Ä Ö"]"#)
    }

    @Test func suggestionsNeedToBeClose() {
        #expect(KeySuggestion.closest(to: "minzom", among: SourceSpec.keys) == "minZoom")
        #expect(KeySuggestion.closest(to: "MAXZOOM", among: TileSpec.keys) == "maxZoom")
        #expect(KeySuggestion.closest(to: "ouptut", among: PipelineSpec.keys) == "output")
        #expect(KeySuggestion.closest(to: "colour", among: PipelineSpec.keys) == nil)
        #expect(KeySuggestion.closest(to: "x", among: ["y"]) == "y")
        #expect(KeySuggestion.distance(Array("kitten"), Array("sitting")) == 3)
        #expect(KeySuggestion.distance(Array("ab"), Array("ba")) == 1)
    }
}
