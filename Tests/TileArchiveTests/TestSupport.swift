import KartpackTestSupport
import Foundation
import Glibc
import Testing

@testable import PMTiles
@testable import TileArchive

/// A unique temp folder for one test, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/kp-tilearchive-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buf in mkdtemp(buf.baseAddress!) }
    guard made != nil else { throw CocoaError(.fileWriteUnknown) }
    let path = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// File names in a folder, sorted.
func listing(_ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
}

/// Reads a whole file.
func readBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes a whole file.
func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The shared deterministic generator.
typealias SplitMix = KartpackTestSupport.SplitMix64

/// A tiny valid MVT 2.1 tile: layer `points` (extent 4096) with one point (25,17), id 1 and `name = "a"`.
func sampleMVT(name: String = "a") -> [UInt8] {
    func varint(_ v: Int) -> [UInt8] {
        var v = v
        var out: [UInt8] = []
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
        return out
    }
    func field(_ tag: UInt8, _ payload: [UInt8]) -> [UInt8] { [tag] + varint(payload.count) + payload }
    let feature: [UInt8] = [0x08, 0x01] + field(0x12, [0x00, 0x00]) + [0x18, 0x01] + field(0x22, [9, 50, 34])
    var layer: [UInt8] = [0x78, 0x02]
    layer += field(0x0A, Array("points".utf8))
    layer += field(0x12, feature)
    layer += field(0x1A, Array("name".utf8))
    layer += field(0x22, field(0x0A, Array(name.utf8)))
    layer += [0x28] + varint(4096)
    return field(0x1A, layer)
}

/// Metadata with one layer and a run-summary extra key.
func sampleMetadata() -> ArchiveMetadata {
    ArchiveMetadata(
        name: "Test tiles", description: "unit test", attribution: "© test", version: "1.0.0",
        vectorLayers: [
            VectorLayerInfo(
                id: "points",
                fields: [VectorLayerField(name: "name", type: .string), VectorLayerField(name: "area", type: .number)])
        ], generator: "kartpack-tests",
        extra: [("kartpack_summary", .object([("features", .int(1)), ("skipped", .object([]))]))])
}
