import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

/// The result of reading a whole fixture.
struct ReadResult {
    var features: [Feature]
    var stats: ReaderStats
    var schema: LayerSchema
    var prjText: String?
    var sink: DiagnosticSink

    /// Diagnostics with a code, in arrival order.
    func diagnostics(_ code: ReasonCode) -> [Diagnostic] { sink.samples.filter { $0.code == code } }
}

/// Writes the fixture into a fresh folder and reads every feature, checking the counting invariant.
func readFixture(
    _ fixture: ShapefileFixture, options: ShapefileReadOptions = .init(), baseName: String = "layer",
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ReadResult {
    let dir = try TemporaryDirectory(prefix: "kartpack-shp")
    let path = try fixture.write(to: dir.path, baseName: baseName)
    return try readPath(path, options: options, sourceLocation: sourceLocation)
}

/// Reads every feature of a Shapefile, checking the counting invariant.
func readPath(
    _ path: String, options: ShapefileReadOptions = .init(), sourceLocation: SourceLocation = #_sourceLocation
) throws -> ReadResult {
    let sink = DiagnosticSink(sampleLimit: 1000)
    let reader = try ShapefileReader(path: path, options: options, diagnostics: sink)
    var features: [Feature] = []
    while let f = try reader.next() { features.append(f) }
    #expect(try reader.next() == nil, sourceLocation: sourceLocation)
    let s = reader.stats
    #expect(s.recordsInFile == s.recordsRead, sourceLocation: sourceLocation)
    #expect(s.recordsRead == s.featuresEmitted + s.totalSkipped, sourceLocation: sourceLocation)
    #expect(s.featuresEmitted == features.count, sourceLocation: sourceLocation)
    // Every skip, repair and coercion is also a diagnostic with the same code and a record number.
    for (code, n) in s.skipped {
        #expect(sink.count(code) == n, "diagnostics for \(code)", sourceLocation: sourceLocation)
    }
    for d in sink.samples where s.skipped[d.code] != nil {
        #expect(d.record != nil && d.file != nil, sourceLocation: sourceLocation)
    }
    // Nothing non-finite leaves the reader.
    for f in features { #expect(f.geometry.isFinite, sourceLocation: sourceLocation) }
    return ReadResult(features: features, stats: s, schema: reader.schema, prjText: reader.prjText, sink: sink)
}

/// Expects opening to fail and returns the error.
func openError(
    _ fixture: ShapefileFixture, options: ShapefileReadOptions = .init(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> ShapefileError? {
    let dir = try TemporaryDirectory(prefix: "kartpack-shp")
    let path = try fixture.write(to: dir.path)
    do {
        _ = try ShapefileReader(path: path, options: options, diagnostics: DiagnosticSink())
        Issue.record("expected the open to fail", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// A closed square ring, clockwise (ESRI shell orientation) unless `ccw`.
func square(_ x: Double, _ y: Double, _ size: Double, ccw: Bool = false) -> [Double] {
    let cw = [x, y, x, y + size, x + size, y + size, x + size, y, x, y]
    if !ccw { return cw }
    var r: [Double] = []
    for i in stride(from: cw.count - 2, through: 0, by: -2) { r += [cw[i], cw[i + 1]] }
    return r
}

/// A one-field (`NAME C(20)`) fixture row list.
func nameRows(_ n: Int) -> [[[UInt8]]] { (0..<n).map { [Array("r\($0 + 1)".utf8)] } }

extension ShapefileFixture {
    /// Adds a `NAME C(20)` field with a row per shape.
    mutating func addNames() {
        fields = [Field("NAME", "C", width: 20)]
        rows = nameRows(shapes.count)
    }
}
