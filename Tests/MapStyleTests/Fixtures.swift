import Foundation
import GeometryAlgorithms
import Gzip
import KartpackCore
import KartpackJSON
import MapStyle
import Styling
import Testing
import TileArchive
import VectorTile

/// A unique temp folder for one test, removed afterwards.
final class ScratchFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "kp-mapstyle-test-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Parses a sheet that must be free of errors.
func parseSheet(_ text: String, file: String = "test.kss") throws -> Stylesheet {
    let (sheet, diagnostics) = Stylesheet.parse(text, file: file)
    guard let sheet else {
        Issue.record("sheet errors: \(diagnostics.map(\.description))")
        throw CocoaError(.fileReadCorruptFile)
    }
    return sheet
}

/// A sheet using every client declaration (and min-zoom / max-zoom).
let everyDeclarationSheet = """
    /* base rule: applies to every feature of areas */
    areas { stroke: #333333; }
    areas[TYP = "A"] { class: plain; fill: #c8e6c9; fill-opacity: 0.5; stroke: #2e7d32; stroke-width: 2;
                       opacity: 0.9; label: namn; text-color: #102030; text-size: 13; min-zoom: 2; max-zoom: 10; }
    areas[TYP = "H"] { class: hatched; fill-pattern: diagonal-hatch; stroke: #1b5e20; stroke-dasharray: 2 1; }
    areas[TYP = "C"] { class: crossed; fill: #ffeeaa80; fill-pattern: cross-hatch; }
    roads { class: road; stroke: #884400; stroke-width: 3; stroke-dasharray: 4 2; label: NAMN; }
    sites[KIND = "monument"] { class: monument; icon: monument; fill: #aa0000; }
    sites { class: site; fill: #0000ff; stroke: #ffffff; stroke-width: 1; }
    """

/// The run summary the pipeline writes under `kartpack`, as a JSON string.
func runSummary(_ layers: [(String, String, [(String, Int)])]) -> String {
    let members: [(key: String, value: JSONValue)] = layers.map { name, geometry, classes in
        (
            name,
            .object([
                ("records", .int(10)), ("written", .int(10)), ("rejected", .object([])), ("repaired", .object([])),
                ("geometry", .string(geometry)),
                ("classes", .object(classes.map { ($0.0, .int(Int64($0.1))) })),
            ])
        )
    }
    return StyleJSON.compact(.object([("layers", .object(members))]))
}

/// Package metadata for the layers `areas` (polygons), `roads` (lines) and `sites` (points).
func testMetadata(classes: Bool = true, geometry: Bool = true) -> JSONValue {
    var summary: [(String, String, [(String, Int)])] = [
        ("areas", "polygon", [("plain", 3), ("hatched", 2), ("crossed", 1)]),
        ("roads", "line", [("road", 4)]),
        ("sites", "point", [("monument", 1), ("site", 2)]),
    ]
    if !classes { summary = summary.map { ($0.0, $0.1, []) } }
    var text = runSummary(summary)
    if !classes {
        // Drop the `classes` members entirely.
        text = text.replacingOccurrences(of: ",\"classes\":{}", with: "")
    }
    if !geometry {
        for g in ["polygon", "line", "point"] {
            text = text.replacingOccurrences(of: ",\"geometry\":\"\(g)\"", with: "")
        }
    }
    func layer(_ id: String, _ fields: [String]) -> JSONValue {
        .object([
            ("fields", .object(fields.map { ($0, .string("String")) })), ("id", .string(id)), ("maxzoom", .int(14)),
            ("minzoom", .int(0)),
        ])
    }
    return .object([
        ("kartpack", .string(text)), ("name", .string("test package")),
        (
            "vector_layers",
            .array([layer("areas", ["TYP", "NAMN"]), layer("roads", ["NAMN"]), layer("sites", ["KIND"])])
        ),
    ])
}

/// One feature to encode.
struct TestFeature {
    var id: UInt64?
    var type: MVTGeometryType
    var geometry: [[TilePoint]]
    var properties: [(String, PropertyValue)]
}

/// Encodes a tile from layers of features.
func encodeTestTile(_ layers: [(String, [TestFeature])]) throws -> [UInt8] {
    var builders: [MVTLayerBuilder] = []
    for (name, features) in layers {
        var b = MVTLayerBuilder(name: name)
        for f in features {
            let commands: [UInt32]
            switch f.type {
            case .point: commands = MVTGeometryEncoder.points(f.geometry.flatMap { $0 })
            case .lineString: commands = MVTGeometryEncoder.lines(f.geometry)
            default: commands = MVTGeometryEncoder.polygons([f.geometry])
            }
            b.addFeature(id: f.id, type: f.type, geometry: commands, properties: Properties(f.properties))
        }
        builders.append(b)
    }
    return try Gzip.compress(try encodeTile(builders))
}

func square(_ x0: Int32, _ y0: Int32, _ x1: Int32, _ y1: Int32) -> [TilePoint] {
    // Clockwise on screen (y down): positive area, an MVT exterior.
    [TilePoint(x0, y0), TilePoint(x1, y0), TilePoint(x1, y1), TilePoint(x0, y1)]
}

/// The two tiles of the preview fixture: 3/4/2 and its east neighbour 3/5/2.
let tileA = TileCoordinate(z: 3, x: 4, y: 2)
let tileB = TileCoordinate(z: 3, x: 5, y: 2)

/// Tiles for the preview tests. Tile A holds: `plain` area 1 crossing into B (with a `<&>"` label), `hatched`
/// area 2, an unclassed area of TYP H (classified by the sheet as hatched), an unclassed area of TYP Z (no class),
/// a road, a monument, a site and, in its buffer, a point that tile B owns. Tile B holds the rest of area 1 and
/// that point.
func previewTiles() throws -> [(TileCoordinate, [UInt8])] {
    let a = try encodeTestTile([
        (
            "areas",
            [
                TestFeature(
                    id: 1, type: .polygon, geometry: [square(3000, 1000, 4176, 2000)],
                    properties: [("class", .string("plain")), ("TYP", .string("A")), ("NAMN", .string("A <&> \"B\""))]),
                TestFeature(
                    id: 2, type: .polygon,
                    geometry: [square(200, 2500, 1200, 3500), square(400, 2700, 600, 2900).reversed()],
                    properties: [("class", .string("hatched")), ("TYP", .string("H"))]),
                TestFeature(
                    id: 3, type: .polygon, geometry: [square(1500, 2500, 2500, 3500)],
                    properties: [("TYP", .string("H"))]),
                TestFeature(
                    id: 4, type: .polygon, geometry: [square(2600, 2500, 3500, 3500)],
                    properties: [("TYP", .string("Z"))]),
            ]
        ),
        (
            "roads",
            [
                TestFeature(
                    id: 5, type: .lineString, geometry: [[TilePoint(100, 100), TilePoint(2000, 3000)]],
                    properties: [("class", .string("road")), ("NAMN", .string("E4"))])
            ]
        ),
        (
            "sites",
            [
                TestFeature(
                    id: 6, type: .point, geometry: [[TilePoint(500, 500)]],
                    properties: [("class", .string("monument")), ("KIND", .string("monument"))]),
                TestFeature(
                    id: 7, type: .point, geometry: [[TilePoint(4000, 4000)]], properties: [("class", .string("site"))]),
                TestFeature(
                    id: 8, type: .point, geometry: [[TilePoint(4100, 10)]], properties: [("class", .string("site"))]),
            ]
        ),
    ])
    let b = try encodeTestTile([
        (
            "areas",
            [
                TestFeature(
                    id: 1, type: .polygon, geometry: [square(-80, 1000, 1000, 2000)],
                    properties: [("class", .string("plain")), ("TYP", .string("A")), ("NAMN", .string("A <&> \"B\""))])
            ]
        ),
        (
            "sites",
            [TestFeature(id: 8, type: .point, geometry: [[TilePoint(4, 10)]], properties: [("class", .string("site"))])]
        ),
    ])
    return [(tileA, a), (tileB, b)]
}

/// Writes the preview fixture as a PMTiles or MBTiles package with the test metadata.
func writePreviewPackage(_ path: String) throws {
    let tiles = try previewTiles()
    let meta = testMetadata()
    let summary = meta["kartpack"]?.stringValue ?? "{}"
    let metadata = ArchiveMetadata(
        name: "test package", minZoom: 3, maxZoom: 3,
        vectorLayers: [
            VectorLayerInfo(
                id: "areas", fields: [.init(name: "TYP", type: .string), .init(name: "NAMN", type: .string)]),
            VectorLayerInfo(id: "roads", fields: [.init(name: "NAMN", type: .string)]),
            VectorLayerInfo(id: "sites", fields: [.init(name: "KIND", type: .string)]),
        ],
        extra: [("kartpack", .string(summary))])
    if path.hasSuffix(".pmtiles") {
        let w = try PMTilesWriter(path: path)
        let ordered = tiles.sorted {
            (PMTilesTileID.id(z: $0.0.z, x: $0.0.x, y: $0.0.y) ?? 0)
                < (PMTilesTileID.id(z: $1.0.z, x: $1.0.x, y: $1.0.y) ?? 0)
        }
        for (t, bytes) in ordered { try w.write(z: t.z, x: t.x, y: t.y, data: bytes) }
        _ = try w.finish(metadata: metadata)
    } else {
        let w = try MBTilesWriter(path: path)
        for (t, bytes) in tiles.sorted(by: { ($0.0.x, $0.0.tmsY) < ($1.0.x, $1.0.tmsY) }) {
            try w.write(z: t.z, x: t.x, y: t.y, data: bytes)
        }
        _ = try w.finish(metadata: metadata)
    }
}
