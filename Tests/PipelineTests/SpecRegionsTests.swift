import Testing

@testable import PipelineFiles

/// The `regions` section (issue 13): parsed with paths resolved against the pipeline's folder, every problem with
/// its JSON path, and in the canonical form only when present.
@Suite struct SpecRegionsTests {
    private func json(_ regions: String) -> String {
        #"{"version":1,"sources":[{"path":"a.shp"}],"output":{"path":"o.pmtiles"}"#
            + (regions.isEmpty ? "" : #","regions":"# + regions) + "}"
    }

    @Test func sectionIsReadWithDefaultsAndResolvedPaths() throws {
        #expect(try specParse(json("")).regions == nil)
        let s = try specParse(json(#"{"path":"r/k.shp","idField":"ID","output":"../dist"}"#))
        #expect(s.regions == RegionsSpec(path: "/p/r/k.shp", idField: "ID", output: "/dist"))
        let full = try specParse(
            json(
                #"{"path":"k.shp","idField":"ID","nameField":"N","filter":"[N = \"x\"]","buffer":50,"maxZoom":12,"#
                    + #""output":"out","sign":"k.key","signPasswordFile":"pw"}"#))
        #expect(
            full.regions
                == RegionsSpec(
                    path: "/p/k.shp", idField: "ID", nameField: "N", filter: #"[N = "x"]"#, buffer: 50, maxZoom: 12,
                    output: "/p/out", sign: "/p/k.key", signPasswordFile: "/p/pw"))
        #expect(full.inputFiles == ["/p/a.shp"])
    }

    @Test func everyProblemIsReportedWithItsPath() {
        #expect(
            specIssues(json(#"{"path":"k.dbf","buffr":1,"buffer":-1,"maxZoom":30,"signPasswordFile":"pw"}"#)) == [
                "regions.buffr: unknown key; did you mean buffer?",
                #"regions.path: expected a .shp or .gpkg file, got "k.dbf""#,
                "regions.idField: missing required key (the field holding each region's id)",
                "regions.buffer: must be between 0 and 1000000, got -1",
                "regions.maxZoom: must be between 0 and 24, got 30",
                "regions.output: missing required key (the package folder)",
                "regions.signPasswordFile: only allowed with sign (the key it unlocks)",
            ])
        #expect(specIssues(json(#""dist""#)) == [#"regions: expected an object, got "dist""#])
        let located = specIssues(json("{\n\"path\":\"k.shp\",\n\"idField\":7,\"output\":\"o\"}"), located: true)
        #expect(located.contains { $0.hasSuffix("3:11: regions.idField: expected a string, got 7") }, "\(located)")
    }

    @Test func canonicalFormCarriesTheSectionOnlyWhenSetAndRoundTrips() throws {
        #expect(!(try specParse(json("")).canonicalJSON.contains("regions")))
        let s = try specParse(
            json(#"{"path":"k.shp","idField":"ID","filter":"[A = 1]","output":"../dist","sign":"k.key"}"#))
        #expect(
            s.canonicalJSON.contains(#""regions":{"buffer":0,"filter":"[A = 1]","idField":"ID","output":"../dist","#))
        #expect(try specParse(s.canonicalJSON) == s)
    }

    @Test func allowRemovalsIsReadCheckedAndCanonicalOnlyWhenTrue() throws {
        let base = #"{"path":"k.shp","idField":"ID","output":"out""#
        #expect(try specParse(json(base + "}")).regions?.allowRemovals == false)
        let s = try specParse(json(base + #","allowRemovals":true}"#))
        #expect(s.regions?.allowRemovals == true)
        #expect(s.canonicalJSON.contains(#""allowRemovals":true"#), "\(s.canonicalJSON)")
        #expect(try specParse(s.canonicalJSON) == s)
        #expect(!(try specParse(json(base + #","allowRemovals":false}"#)).canonicalJSON.contains("allowRemovals")))
        #expect(
            specIssues(json(base + #","allowRemovals":"yes"}"#)) == [
                #"regions.allowRemovals: expected true or false, got "yes""#
            ])
    }
}
