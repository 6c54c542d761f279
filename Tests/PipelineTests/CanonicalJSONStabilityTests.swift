import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

@testable import PipelineFiles

/// The canonical form feeds the nightly fingerprint: it must stay byte for byte what it was before the JSON code
/// of TileArchive, MapStyle and Pipeline became one parser and one writer.
@Suite struct CanonicalJSONStabilityTests {
    @Test func forestPlanCanonicalFormIsUnchanged() throws {
        let path = RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path
        let spec = try PipelineSpec.load(path: path)
        #expect(
            spec.canonicalJSON
                == #"{"output":{"attribution":"Syntetiska exempeldata, inga verkliga fastigheter / Synthetic sample "#
                + #"data, no real properties","description":"Avdelningar, fastigheter, hänsynsytor, vägar, "#
                + #"fornminnen och kommungränser från en syntetisk skogsbruksplan. / Stands, properties, "#
                + #"consideration areas, roads, ancient monuments and municipal borders from a synthetic "#
                + #"forest plan.","format":"pmtiles","name":"Skogsbruksplan Vännäs (exempel) / Forest "#
                + #"plan Vännäs (sample)","path":"../out/forest-plan.pmtiles"},"#
                + #""sources":[{"layer":"kommuner","#
                + #""path":"../SampleData/forest/kommuner.shp"},{"layer":"fastigheter","#
                + #""path":"../SampleData/forest/fastigheter.shp"},"#
                + #"{"layer":"avdelningar","#
                + #""path":"../SampleData/forest/avdelningar.shp"},"#
                + #"{"layer":"hansyn","#
                + #""path":"../SampleData/forest/hansyn.shp"},"#
                + #"{"layer":"vagar","#
                + #""path":"../SampleData/forest/vagar.shp"},"#
                + #"{"layer":"fornminnen","#
                + #""path":"../SampleData/forest/fornminnen.shp"}],"style":"../SampleData/forest.kss","#
                + #""tiles":{"buffer":80,"extent":4096,"maxTileBytes":500000,"maxTileFeatures":200000,"#
                + #""maxZoom":14,"minZoom":8,"simplify":1},"version":1}"#
        )
    }

    @Test func escapesAndNumbersInTheCanonicalFormAreUnchanged() throws {
        let path = RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path
        let spec = try PipelineSpec.load(
            path: path,
            overrides: [
                "tiles.simplify=0.1", "tiles.maxZoom=12", "output.name=Skog \"och\" mark\u{8}\u{c}\u{1}\u{7f}\u{2028}é",
                "tiles.buffer=64", "output.attribution=a\\b",
            ])
        #expect(
            spec.canonicalJSON
                == #"{"output":{"attribution":"a\\b","description":"Avdelningar, fastigheter, hänsynsytor, vägar, "#
                + #"fornminnen och kommungränser från en syntetisk skogsbruksplan. / Stands, properties, "#
                + #"consideration areas, roads, ancient monuments and municipal borders from a synthetic "#
                + #"forest plan.","format":"pmtiles","name":"Skog \"och\" mark\b\f\u0001\u007f\u2028é","#
                + #""path":"../out/forest-plan.pmtiles"},"sources":[{"layer":"kommuner","#
                + #""path":"../SampleData/forest/kommuner.shp"},{"layer":"fastigheter","#
                + #""path":"../SampleData/forest/fastigheter.shp"},{"layer":"avdelningar","#
                + #""path":"../SampleData/forest/avdelningar.shp"},{"layer":"hansyn","#
                + #""path":"../SampleData/forest/hansyn.shp"},{"layer":"vagar","#
                + #""path":"../SampleData/forest/vagar.shp"},"#
                + #"{"layer":"fornminnen","#
                + #""path":"../SampleData/forest/fornminnen.shp"}],"#
                + #""style":"../SampleData/forest.kss","#
                + #""tiles":{"buffer":64,"extent":4096,"#
                + #""maxTileBytes":500000,"#
                + #""maxTileFeatures":200000,"maxZoom":12,"#
                + #""minZoom":8,"simplify":0.1},"#
                + #""version":1}"#
        )
    }

    @Test func canonicalHelpersKeepTheirForms() {
        #expect(JSONWriter.canonicalNumber(2) == "2")
        #expect(JSONWriter.canonicalNumber(0.1) == "0.1")
        #expect(JSONWriter.canonicalNumber(1e-7) == "1e-07")
        #expect(JSONWriter.canonicalNumber(9_007_199_254_740_992) == "9007199254740992.0")
        #expect(JSONWriter.canonicalNumber(.nan) == "null")
        #expect(JSONWriter.quoted("a\"\u{8}\u{C}\u{1}") == #""a\"\b\f\u0001""#)
        #expect(
            JSONValue.object([("b", .double(1)), ("a", .array([.double(0.5), .int(-1)])), ("B", .null)]).text(
                .canonical)
                == #"{"B":null,"a":[0.5,-1],"b":1}"#)
    }
}
