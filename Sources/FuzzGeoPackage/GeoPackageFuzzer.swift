import FuzzSupport
import GeoPackage
import GeometryAlgorithms
import KartpackCore

/// The GeoPackage fuzz target. An input starting with SQLite's magic is a whole `.gpkg`: every feature table is
/// read to the end with `GeoPackageReader` (at most 10 000 rows each). Any other input is one geometry blob: the
/// GeoPackage binary header, then the WKB after it, through `WKBReader` and `WKBGeometry` with small caps.
///
/// Invariants checked (a violation is a bug, not an answer): a built geometry's flat storage is consistent (an
/// even coordinate count, part and polygon starts in range and increasing, finite coordinates within the reader's
/// limit, no more vertices than the caps); the reader's counts balance (rows read = features + skipped). Thrown
/// errors and skips are answers; their messages are still built, since they quote hostile bytes.
enum GeoPackageFuzzer {
    static let limits: WKBReader.Limits = {
        var l = WKBReader.Limits()
        l.maxVertices = 100_000
        l.maxParts = 10_000
        return l
    }()

    /// Runs one input.
    static func run(_ raw: UnsafeRawBufferPointer) {
        if raw.count >= 16, Array(raw.prefix(16)) == Array("SQLite format 3\u{0}".utf8) {
            readFile(raw)
        } else {
            readBlob(raw)
        }
    }

    static func readBlob(_ raw: UnsafeRawBufferPointer) {
        do throws(GeometryBlobIssue) {
            let header = try GeoPackageBinaryHeader(raw)
            guard header.wkbOffset <= raw.count else { FuzzDriver.fail("WKB offset past the blob") }
            check(WKBGeometry.build(try WKBReader.read(raw, from: header.wkbOffset, limits: limits)))
        } catch {
            _ = error.message
        }
        // The same bytes as bare WKB.
        do throws(GeometryBlobIssue) {
            check(WKBGeometry.build(try WKBReader.read(raw, limits: limits)))
        } catch {
            _ = error.message
        }
    }

    static func check(_ assembly: GeometryAssembly) {
        guard case .built(let g, _) = assembly else { return }
        guard g.xy.count % 2 == 0, g.pointCount <= limits.maxVertices, !g.partStarts.isEmpty else {
            FuzzDriver.fail("bad flat storage: \(g.xy.count) values, \(g.partStarts.count) parts")
        }
        for (k, s) in g.partStarts.enumerated() {
            guard s >= 0, Int(s) < g.pointCount, k == 0 || s > g.partStarts[k - 1] else {
                FuzzDriver.fail("part \(k) starts at \(s) of \(g.pointCount) points")
            }
        }
        for (k, s) in g.polygonStarts.enumerated() {
            guard s >= 0, Int(s) < g.partCount, k == 0 || s > g.polygonStarts[k - 1] else {
                FuzzDriver.fail("polygon \(k) starts at part \(s) of \(g.partCount)")
            }
        }
        guard g.xy.allSatisfy({ $0.isFinite && abs($0) <= limits.maxAbsoluteCoordinate }) else {
            FuzzDriver.fail("a coordinate is not finite or beyond the limit")
        }
    }

    static func readFile(_ raw: UnsafeRawBufferPointer) {
        let scratch = FuzzScratch.shared
        scratch.write("f.gpkg", Array(raw))
        let file: GeoPackageFile
        do {
            file = try GeoPackageFile(path: scratch.file("f.gpkg"))
        } catch {
            _ = error.description
            return
        }
        for layer in file.layers.prefix(8) {
            let sink = DiagnosticSink(sampleLimit: 2)
            do {
                let reader = try GeoPackageReader(file: file, layer: layer, diagnostics: sink, limits: limits)
                var rows = 0
                while rows < 10_000, let f = try reader.next() {
                    check(.built(f.geometry, []))
                    rows += 1
                }
                let s = reader.stats
                if rows < 10_000, s.recordsRead != s.featuresEmitted + s.totalSkipped {
                    FuzzDriver.fail("unbalanced: \(s.recordsRead) read, \(s.featuresEmitted) + \(s.totalSkipped)")
                }
            } catch {
                _ = "\(error)"
            }
            for d in sink.samples { _ = d.formatted }
        }
    }
}
