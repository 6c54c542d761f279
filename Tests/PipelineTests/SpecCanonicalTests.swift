import Foundation
import Testing

@testable import PipelineFiles

@Suite struct SpecCanonicalTests {
    @Test func canonicalFormFillsDefaultsSortsKeysAndUsesRelativePaths() throws {
        let spec = try specParse(
            minimalSpecJSON, file: "/work/Pipelines/p.json", overrides: ["output.path=/work/out/o.pmtiles"])
        #expect(
            spec.canonicalJSON
                == #"{"output":{"format":"pmtiles","path":"../out/o.pmtiles"},"sources":[{"layer":"a","#
                + #""path":"a.shp"}],"tiles":{"buffer":80,"extent":4096,"maxTileBytes":500000,"#
                + #""maxTileFeatures":200000,"maxZoom":14,"minZoom":0,"simplify":1},"version":1}"#
        )
    }

    @Test func equivalentFilesHaveTheSameCanonicalForm() throws {
        let a = #"{"version":1,"sources":[{"path":"a.shp"}],"output":{"path":"o.pmtiles"}}"#
        let b = #"""
            {
              "output": {"path": "./o.pmtiles", "format": "pmtiles"},
              "tiles": {"simplify": 1.0, "maxZoom": 14, "minZoom": 0, "buffer": 80, "extent": 4096},
              "sources": [{"layer": "a", "path": "sub/../a.shp", "crs": null}],
              "version": 1
            }
            """#
        #expect(try specParse(a).canonicalJSON == specParse(b).canonicalJSON)
    }

    @Test func canonicalFormChangesWithAnySetting() throws {
        let base = try specParse(minimalSpecJSON).canonicalJSON
        for o in [
            "tiles.maxZoom=13", "tiles.simplify=1.5", "sources[0].layer=b", "sources[0].crs=EPSG:3006",
            "sources[0].filter=[A = 1]", "sources[0].keep=[]", "output.path=p.pmtiles", "output.name=x", "style=s.kss",
            "clip={\"bbox\":[0,0,1,1]}", "sources[0].path=b/a.shp",
        ] {
            #expect(try specParse(minimalSpecJSON, overrides: [o]).canonicalJSON != base, "\(o)")
        }
    }

    @Test func movingTheWholeTreeKeepsTheCanonicalForm() throws {
        let json =
            #"{"version":1,"sources":[{"path":"../data/a.shp"}],"style":"../s.kss","clip":{"path":"../data/k.shp"},"#
            + #""output":{"path":"../out/o.pmtiles"}}"#
        let here = try specParse(json, file: "/home/a/repo/Pipelines/p.json")
        let there = try specParse(json, file: "/srv/checkout/Pipelines/p.json")
        #expect(here.sources[0].path != there.sources[0].path)
        #expect(here.canonicalJSON == there.canonicalJSON)
        #expect(here.canonicalJSON.contains(#""path":"../data/a.shp""#))
    }

    @Test func canonicalFormParsesBackToTheSameSpec() throws {
        let json = #"""
            {"version": 1,
             "sources": [{"path": "../d/a.shp", "layer": "Avdelningar – Vännäs", "crs": "EPSG:3006",
              "encoding": "CP1252",
                          "filter": "[T != \"Myr\"]", "keep": ["B", "A"], "rename": {"B": "b", "A": "a"},
                           "minZoom": 9, "maxZoom": 13},
                         {"path": "/abs/v.shp"}],
             "style": "forest.kss",
             "clip": {"path": "k.shp", "filter": "[N = \"x\"]", "buffer": 12.5},
             "tiles": {"minZoom": 8, "maxZoom": 14, "simplify": 0.25, "extent": 512},
             "output": {"path": "o.mbtiles", "name": "n", "description": "", "attribution": "<a href=\"x\">©</a>"}}
            """#
        let spec = try specParse(json, file: "/w/P/p.json")
        let again = try specParse(spec.canonicalJSON, file: "/w/P/p.json")
        #expect(again == spec)
        #expect(again.canonicalJSON == spec.canonicalJSON)
        // The canonical text is valid JSON for any other reader too.
        let object = try JSONSerialization.jsonObject(with: Data(spec.canonicalJSON.utf8)) as? [String: Any]
        #expect(object?["version"] as? Int == 1)
        let bbox = try specParse(
            #"{"version":1,"sources":[{"path":"a.shp"}],"clip":{"bbox":[-0.5,1e-7,2,3]},"output":{"path":"o.pmtiles"}}"#
        )
        #expect(try specParse(bbox.canonicalJSON) == bbox)
    }

    @Test func convertOptionsCarryTheSupportedSettings() throws {
        let json =
            #"{"version":1,"sources":[{"path":"a.shp","layer":"x","crs":"EPSG:3006","encoding":"CP850"}],"#
            + #""tiles":{"minZoom":3,"maxZoom":9,"simplify":2,"buffer":10,"maxTileBytes":2048,"maxTileFeatures":7,"#
            + #""extent":1024},"output":{"path":"o.mbtiles","name":"n","description":"d","attribution":"a"}}"#
        let o = try specParse(json).convertOptions
        #expect(o.inputs.count == 1)
        #expect(
            o.inputs[0].path == "/p/a.shp" && o.inputs[0].layerName == "x" && o.inputs[0].sourceCRS == "EPSG:3006"
                && o.inputs[0].encoding == "CP850")
        #expect(o.output == "/p/o.mbtiles" && o.format == .mbtiles)
        #expect(o.minZoom == 3 && o.maxZoom == 9 && o.simplify == 2 && o.buffer == 10 && o.extent == 1024)
        #expect(o.maxTileBytes == 2048 && o.maxTileFeatures == 7)
        #expect(o.name == "n" && o.description == "d" && o.attribution == "a")
        #expect(o.force == false)
    }

    @Test func pathArithmetic() {
        #expect(SpecPaths.normalize("/a/./b//c/../d/") == "/a/b/d")
        #expect(SpecPaths.normalize("/../x") == "/x")
        #expect(SpecPaths.absolute("x/y.shp", base: "/p/q") == "/p/q/x/y.shp")
        #expect(SpecPaths.absolute("/abs/y.shp", base: "/p/q") == "/abs/y.shp")
        #expect(SpecPaths.relative("/w/SampleData/a.shp", to: "/w/Pipelines") == "../SampleData/a.shp")
        #expect(SpecPaths.relative("/w/Pipelines/a.kss", to: "/w/Pipelines") == "a.kss")
        #expect(SpecPaths.relative("/w/Pipelines", to: "/w/Pipelines") == ".")
        #expect(SpecPaths.relative("/tmp/x.pmtiles", to: "/w/Pipelines") == "../../tmp/x.pmtiles")
        #expect(SpecPaths.folder(of: "/a/b/c.json") == "/a/b")
        #expect(SpecPaths.folder(of: "/c.json") == "/")
    }
}
