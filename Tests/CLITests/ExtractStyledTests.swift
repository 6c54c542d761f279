import Foundation
import KartpackTestSupport
import Testing

/// `extract --max-zoom` on a styled package (the sample pipeline): its label layers start above the part's top
/// zoom (`avdelningar_labels` at 13, `hansyn_labels` at 12), which once made every such extraction exit 70.
@Suite struct ExtractStyledTests {
    /// `id: minzoom-maxzoom` of each `vector_layers` entry, and the header zooms, as the PyPI reader sees them.
    private func layers(_ path: String) throws -> String {
        let script = """
            import sys
            from pmtiles.reader import Reader, MmapSource
            with open(sys.argv[1], 'rb') as f:
                r = Reader(MmapSource(f))
                h, m = r.header(), r.metadata()
                print(h['min_zoom'], h['max_zoom'], ' '.join(
                    f"{l['id']}:{l.get('minzoom')}-{l.get('maxzoom')}" for l in m['vector_layers']))
            """
        let py = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
        let r = try runProcess(py, ["-c", script, path])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func maxZoomBelowALabelLayerDropsThatLayerAndNarrowsTheOthers() throws {
        let dir = try TemporaryDirectory()
        let big = dir.file("plan.pmtiles")
        let pipeline = RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path
        let run = try runKartpack(["run", pipeline, "--set", "output.path=\(big)", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let whole = try layers(big)
        #expect(whole.contains("avdelningar_labels:13-14"), "\(whole)")
        #expect(whole.contains("hansyn_labels:12-14"), "\(whole)")
        let bbox = "19.4,63.8,19.9,64.1"
        for (top, expected) in [
            (
                11,
                "8 11 kommuner:8-11 kommuner_labels:8-11 fastigheter:8-11 fastigheter_labels:8-11 "
                    + "avdelningar:8-11 hansyn:8-11 vagar:8-11 fornminnen:10-11"
            ),
            (
                12,
                "8 12 kommuner:8-12 kommuner_labels:8-12 fastigheter:8-12 fastigheter_labels:8-12 "
                    + "avdelningar:8-12 hansyn:8-12 hansyn_labels:12-12 vagar:8-12 fornminnen:10-12"
            ),
        ] {
            let part = dir.file("part\(top).pmtiles")
            let x = try runKartpack(["extract", big, "--bbox", bbox, "--max-zoom", "\(top)", "-o", part])
            #expect(x.status == 0, "--max-zoom \(top): \(x.stderr)")
            #expect(try layers(part) == expected)
        }
        // Every zoom of the package: the layers keep their own ranges.
        let all = dir.file("all.pmtiles")
        let x = try runKartpack(["extract", big, "--bbox", bbox, "-o", all])
        #expect(x.status == 0, "\(x.stderr)")
        #expect(try layers(all).contains("avdelningar_labels:13-14"))
    }
}
