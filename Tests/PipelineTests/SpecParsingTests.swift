import Foundation
import KartpackCore
import KartpackJSON
import KartpackTestSupport
@testable import PipelineFiles
import Testing

/// The smallest valid pipeline.
let minimalSpecJSON = #"{"version": 1, "sources": [{"path": "a.shp"}], "output": {"path": "out.pmtiles"}}"#

/// Parses pipeline text as if it were `/p/pipe.json`.
func specParse(_ json: String, file: String = "/p/pipe.json", overrides: [String] = []) throws(PipelineSpecError)
    -> PipelineSpec
{
    try PipelineSpec.parse(Array(json.utf8), file: file, overrides: overrides)
}

/// The issue lines for pipeline text that must be rejected (empty when it was accepted).
/// The issue lines of a pipeline text; without line:column unless `located` (the messages and paths are what most
/// tests check; `issuesNameTheirLineAndColumn` checks the places).
func specIssues(_ json: String, overrides: [String] = [], located: Bool = false) -> [String] {
    do throws(PipelineSpecError) {
        _ = try specParse(json, overrides: overrides)
        return []
    } catch {
        if located { return error.lines }
        return error.issues.map { issue in
            var i = issue
            i.line = nil
            i.column = nil
            return i.description
        }
    }
}

@Suite struct SpecParsingTests {
    @Test func minimalSpecGetsDefaults() throws {
        let spec = try specParse(minimalSpecJSON)
        #expect(spec.version == 1)
        #expect(spec.file == "/p/pipe.json")
        #expect(spec.directory == "/p")
        #expect(spec.sources.count == 1)
        #expect(spec.sources[0].path == "/p/a.shp")
        #expect(spec.sources[0].layer == "a")
        #expect(spec.sources[0].crs == nil && spec.sources[0].keep == nil && spec.sources[0].rename.isEmpty)
        #expect(spec.style == nil)
        #expect(spec.clip == nil)
        #expect(spec.tiles == TileSpec())
        #expect(
            spec.tiles.minZoom == 0 && spec.tiles.maxZoom == 14 && spec.tiles.simplify == 1 && spec.tiles.buffer == 80)
        #expect(
            spec.tiles.maxTileBytes == 500_000 && spec.tiles.maxTileFeatures == 200_000 && spec.tiles.extent == 4096)
        #expect(spec.output.format == .pmtiles)
        #expect(spec.output.path == "/p/out.pmtiles")
        #expect(spec.output.name == nil)
    }

    @Test func fullSpecParses() throws {
        let json = #"""
            { "version": 1,
              "sources": [ { "path": "../SampleData/forest/avdelningar.shp", "layer": "avdelningar", "crs": "EPSG:3006",
                             "encoding": "ISO-8859-1", "filter": "[BESTTYP != \"Myr\"][AREAL > 0.5]",
                             "keep": ["AVDNR", "BESTTYP"], "rename": {"BESTTYP": "typ"}, "minZoom": 10, "maxZoom": 14 },
                           { "path": "/data/vagar.SHP" } ],
              "style": "forest.kss",
              "clip": { "path": "../SampleData/forest/kommuner.shp", "filter": "[KOMMUNNAMN = \"Vännäs\"]",
               "buffer": 100 },
              "tiles": { "minZoom": 8, "maxZoom": 14, "simplify": 1.5, "buffer": 64, "maxTileBytes": 400000,
                         "maxTileFeatures": 100000, "extent": 8192 },
              "output": { "format": "mbtiles", "path": "../out/forest-plan.mbtiles", "name": "Skogsbruksplan",
                          "description": "Exempel", "attribution": "© Kartpack" } }
            """#
        let spec = try specParse(json, file: "/work/Pipelines/p.json")
        let s = spec.sources[0]
        #expect(s.path == "/work/SampleData/forest/avdelningar.shp")
        #expect(s.layer == "avdelningar")
        #expect(s.crs == "EPSG:3006")
        #expect(s.encoding == "ISO-8859-1")
        #expect(s.filter == #"[BESTTYP != "Myr"][AREAL > 0.5]"#)
        #expect(s.keep == ["AVDNR", "BESTTYP"])
        #expect(s.rename == [AttributeRename(from: "BESTTYP", to: "typ")])
        #expect(s.outputName(of: "BESTTYP") == "typ" && s.outputName(of: "AVDNR") == "AVDNR")
        #expect(s.minZoom == 10 && s.maxZoom == 14)
        #expect(s.zoomRange(within: spec.tiles) == 10...14)
        #expect(spec.sources[1].path == "/data/vagar.SHP")
        #expect(spec.sources[1].layer == "vagar")
        #expect(spec.sources[1].zoomRange(within: spec.tiles) == 8...14)
        #expect(spec.style == "/work/Pipelines/forest.kss")
        #expect(
            spec.clip
                == ClipSpec(
                    area: .file(path: "/work/SampleData/forest/kommuner.shp", filter: #"[KOMMUNNAMN = "Vännäs"]"#),
                    buffer: 100))
        var tiles = TileSpec()
        tiles.minZoom = 8
        tiles.simplify = 1.5
        tiles.buffer = 64
        tiles.maxTileBytes = 400_000
        tiles.maxTileFeatures = 100_000
        tiles.extent = 8192
        #expect(spec.tiles == tiles)
        #expect(
            spec.output
                == OutputSpec(
                    format: .mbtiles, path: "/work/out/forest-plan.mbtiles", name: "Skogsbruksplan",
                    description: "Exempel", attribution: "© Kartpack"))
        #expect(
            spec.inputFiles == [
                "/work/SampleData/forest/avdelningar.shp", "/data/vagar.SHP", "/work/Pipelines/forest.kss",
                "/work/SampleData/forest/kommuner.shp",
            ])
    }

    @Test func bboxClipAndFormatFromExtension() throws {
        let json =
            #"{"version":1,"sources":[{"path":"a.shp"}],"clip":{"bbox":[19.5,63.9,19.8,64]},"#
            + #""output":{"path":"x.MBTILES"}}"#
        let spec = try specParse(json)
        #expect(spec.clip == ClipSpec(area: .bbox(Bounds(minX: 19.5, minY: 63.9, maxX: 19.8, maxY: 64)), buffer: 0))
        #expect(spec.output.format == .mbtiles)
    }

    @Test func integralFloatsAreIntegersAndNullMeansUnset() throws {
        let json =
            #"{"version":1.0,"sources":[{"path":"a.shp","crs":null}],"style":null,"tiles":{"maxZoom":12.0},"#
            + #""output":{"path":"o.pmtiles"}}"#
        let spec = try specParse(json)
        #expect(spec.tiles.maxZoom == 12)
        #expect(spec.sources[0].crs == nil)
        #expect(spec.style == nil)
    }

    @Test func forestPlanPipelineLoads() throws {
        let path = RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path
        let spec = try PipelineSpec.load(path: path)
        let root = RepositoryPaths.root.standardizedFileURL.path
        #expect(
            spec.sources.map(\.layer) == ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"])
        #expect(spec.sources.allSatisfy { $0.path == root + "/SampleData/forest/\($0.layer).shp" })
        #expect(spec.style == root + "/SampleData/forest.kss")
        #expect(spec.tiles.minZoom == 8 && spec.tiles.maxZoom == 14)
        #expect(spec.output.path == root + "/out/forest-plan.pmtiles")
        #expect(spec.output.format == .pmtiles)
        #expect(spec.output.name?.contains("Skogsbruksplan") == true)
        // Every source file is there (the output folder may not exist yet in a fresh checkout).
        let missing = spec.missingFiles().filter {
            !$0.path.description.hasPrefix("output") && !$0.path.description.hasPrefix("style")
        }
        #expect(missing.isEmpty, "\(missing)")
    }

    @Test func missingFilesAreListedWithTheirPaths() throws {
        let dir = try TemporaryDirectory(prefix: "spec-missing")
        #expect(FileManager.default.createFile(atPath: dir.file("a.shp"), contents: Data([1])))
        let json =
            #"{"version":1,"sources":[{"path":"a.shp"},{"path":"b.shp"}],"style":"s.kss","#
            + #""output":{"path":"nope/o.pmtiles"}}"#
        let spec = try PipelineSpec.parse(Array(json.utf8), file: dir.file("p.json"))
        let lines = spec.missingFiles().map(\.description)
        #expect(
            lines == [
                "1:50: sources[1].path: b.shp: No such file or directory",
                "1:68: style: s.kss: No such file or directory",
                "1:93: output.path: the folder nope does not exist",
            ])
    }

    @Test func unreadablePipelineFileIsNoInput() {
        do throws(PipelineSpecError) {
            _ = try PipelineSpec.load(path: "/nonexistent-\(UUID().uuidString)/p.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .noInput)
            #expect(error.lines.first?.contains("No such file or directory") == true)
        }
    }

    @Test func loadReadsFromDiskAndResolvesAgainstTheFilesFolder() throws {
        let dir = try TemporaryDirectory(prefix: "spec-load")
        try FileManager.default.createDirectory(atPath: dir.file("pipes"), withIntermediateDirectories: true)
        try Data(
            #"{"version":1,"sources":[{"path":"../data/a.shp"}],"style":"./s/../x.kss","output":{"path":"o.pmtiles"}}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: dir.file("pipes/p.json")))
        let spec = try PipelineSpec.load(path: dir.file("pipes/p.json"))
        let base = URL(fileURLWithPath: dir.path).standardizedFileURL.path
        #expect(spec.sources[0].path == base + "/data/a.shp")
        #expect(spec.style == base + "/pipes/x.kss")
        #expect(spec.output.path == base + "/pipes/o.pmtiles")
    }

    @Test func relativePipelineFileResolvesAgainstTheWorkingFolder() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let spec = try specParse(minimalSpecJSON, file: "sub/dir/p.json")
        #expect(spec.directory == SpecPaths.normalize(cwd + "/sub/dir"))
        #expect(spec.sources[0].path == SpecPaths.normalize(cwd + "/sub/dir/a.shp"))
    }

    @Test func syntaxErrorsHaveLineAndColumn() {
        let cases: [(String, String)] = [
            ("{\n  \"version\": 1,\n  \"sources\": [}\n", "3:15: unexpected '}'; expected a JSON value"),
            ("{\"version\": 1,}", "1:15: trailing comma before '}'"),
            (
                "{\"version\": 1 \"sources\": []}",
                "1:15: expected ',' or '}' after the value of \"version\", found '\"'"
            ),
            ("", "1:1: the file is empty; expected a JSON object"),
            ("{\"a\": 'x'}", "1:7: strings must use double quotes"),
            ("{\"a\": 1} // note", "1:10: unexpected text after the end of the JSON value"),
            ("{\"name\": \"Vännäs\", x}", "1:20: expected a quoted key, found 'x'"),
        ]
        for (json, expected) in cases {
            #expect(specIssues(json, located: true) == [expected], "\(json)")
        }
        do throws(PipelineSpecError) {
            _ = try specParse("{")
        } catch {
            #expect(error.exitCode == .config)
            #expect(error.description == "/p/pipe.json:1:2: expected a quoted key, found the end of the file")
        }
    }

    @Test func errorDescriptionNamesFileAndPath() {
        do throws(PipelineSpecError) {
            _ = try PipelineSpec.parse(
                Array(#"{"version":1,"sources":[{"path":"a.shp","minzom":3}],"output":{"path":"o.pmtiles"}}"#.utf8),
                file: "Pipelines/x.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .config)
            #expect(error.exitCode.rawValue == 78)
            #expect(error.file == "Pipelines/x.json")
            #expect(error.issues.map(\.path) == [JSONPath([.key("sources"), .index(0), .key("minzom")])])
            #expect(error.description == "Pipelines/x.json:1:50: sources[0].minzom: unknown key; did you mean minZoom?")
        }
    }

    @Test func issuesNameTheirLineAndColumn() {
        let json = """
            {
              "version": 1,
              "sources": [
                { "path": "a.shp", "minzom": 3 },
                { "path": "b.shp", "maxZoom": "12" }
              ],
              "tiles": { "maxZoom": 40 },
              "output": { "path": "o.pmtiles" }
            }
            """
        #expect(
            specIssues(json, located: true) == [
                "7:25: tiles.maxZoom: must be between 0 and 24, got 40",
                "4:34: sources[0].minzom: unknown key; did you mean minZoom?",
                "5:35: sources[1].maxZoom: expected an integer, got \"12\"",
            ])
        // A value written by --set has no place in the file; the others keep theirs.
        #expect(
            specIssues(json, overrides: ["tiles.maxZoom=30"], located: true) == [
                "tiles.maxZoom: must be between 0 and 24, got 30",
                "4:34: sources[0].minzom: unknown key; did you mean minZoom?",
                "5:35: sources[1].maxZoom: expected an integer, got \"12\"",
            ])
    }
}
