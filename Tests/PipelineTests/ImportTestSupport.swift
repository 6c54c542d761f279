import Foundation
import Glibc
import Gzip
import KartpackTestSupport
import Testing

@testable import Import
/// One entry for `TestZip.make`: the real data plus overrides that make the archive lie.
struct TestZipEntry {
    var name: [UInt8]
    var data: [UInt8] = []
    /// 0 stored, 8 deflate (any other value is written as is, with the data stored).
    var method = 8
    /// The Unix mode (type and permissions), written into the high 16 bits of the external attributes.
    var unixMode: UInt32 = 0o100644
    var flags = 0x800
    var declaredSize: Int?
    var declaredCompressedSize: Int?
    var declaredCRC: UInt32?
    /// A different name in the local header.
    var localName: [UInt8]?
    /// Sizes and CRC only in a data descriptor after the data (bit 3).
    var dataDescriptor = false

    init(_ name: String, _ data: [UInt8] = [], method: Int = 8) {
        self.name = Array(name.utf8)
        self.data = data
        self.method = method
    }

    static func folder(_ name: String) -> TestZipEntry {
        var e = TestZipEntry(name, method: 0)
        e.unixMode = 0o040755
        return e
    }
}

/// A tiny zip writer for tests (stored and deflate through `Gzip.deflateRaw`, optionally ZIP64).
enum TestZip {
    static func make(
        _ entries: [TestZipEntry], prefix: [UInt8] = [], comment: [UInt8] = [], zip64: Bool = false,
        repeatCentralRecords: [Int] = []
    ) throws -> [UInt8] {
        var out = prefix
        var central: [[UInt8]] = []
        for e in entries {
            let payload = e.method == 8 ? try Gzip.deflateRaw(e.data) : e.data
            let crc = e.declaredCRC ?? Gzip.crc32(e.data)
            let csize = e.declaredCompressedSize ?? payload.count
            let usize = e.declaredSize ?? e.data.count
            let flags = e.flags | (e.dataDescriptor ? 0x08 : 0)
            let offset = out.count - prefix.count
            let localName = e.localName ?? e.name
            var local: [UInt8] = []
            local.put32(0x0403_4b50)
            local.put16(zip64 ? 45 : 20)
            local.put16(flags)
            local.put16(e.method)
            local.put16(0)
            local.put16(0x21)
            local.put32(e.dataDescriptor ? 0 : Int(crc))
            if zip64 {
                local.put32(0xFFFF_FFFF)
                local.put32(0xFFFF_FFFF)
            } else {
                local.put32(e.dataDescriptor ? 0 : csize)
                local.put32(e.dataDescriptor ? 0 : usize)
            }
            local.put16(localName.count)
            local.put16(zip64 ? 20 : 0)
            local += localName
            if zip64 {
                local.put16(1)
                local.put16(16)
                local.put64(UInt64(usize))
                local.put64(UInt64(csize))
            }
            out += local + payload
            if e.dataDescriptor {
                out.put32(0x0807_4b50)
                out.put32(Int(crc))
                out.put32(csize)
                out.put32(usize)
            }
            var c: [UInt8] = []
            c.put32(0x0201_4b50)
            c.put16(3 << 8 | 45)
            c.put16(zip64 ? 45 : 20)
            c.put16(flags)
            c.put16(e.method)
            c.put16(0)
            c.put16(0x21)
            c.put32(Int(crc))
            c.put32(zip64 ? 0xFFFF_FFFF : csize)
            c.put32(zip64 ? 0xFFFF_FFFF : usize)
            c.put16(e.name.count)
            c.put16(zip64 ? 28 : 0)
            c.put16(0)
            c.put16(0)
            c.put16(0)
            c.put32(Int(e.unixMode) << 16)
            c.put32(zip64 ? 0xFFFF_FFFF : offset)
            c += e.name
            if zip64 {
                c.put16(1)
                c.put16(24)
                c.put64(UInt64(usize))
                c.put64(UInt64(csize))
                c.put64(UInt64(offset))
            }
            central.append(c)
        }
        for k in repeatCentralRecords { central.append(central[k]) }
        let cdStart = out.count - prefix.count
        for c in central { out += c }
        let cdSize = central.reduce(0) { $0 + $1.count }
        if zip64 {
            let z64At = out.count - prefix.count
            out.put32(0x0606_4b50)
            out.put64(44)
            out.put16(45)
            out.put16(45)
            out.put32(0)
            out.put32(0)
            out.put64(UInt64(central.count))
            out.put64(UInt64(central.count))
            out.put64(UInt64(cdSize))
            out.put64(UInt64(cdStart))
            out.put32(0x0706_4b50)
            out.put32(0)
            out.put64(UInt64(z64At))
            out.put32(1)
        }
        out.put32(0x0605_4b50)
        out.put16(0)
        out.put16(0)
        out.put16(zip64 ? 0xFFFF : central.count)
        out.put16(zip64 ? 0xFFFF : central.count)
        out.put32(zip64 ? 0xFFFF_FFFF : cdSize)
        out.put32(zip64 ? 0xFFFF_FFFF : cdStart)
        out.put16(comment.count)
        out += comment
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func put16(_ v: Int) { append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]) }
    mutating func put32(_ v: Int) {
        append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)])
    }
    mutating func put64(_ v: UInt64) {
        put32(Int(v & 0xFFFF_FFFF))
        put32(Int(v >> 32))
    }
}

/// A sandbox for one import test: `parent` receives the extractor's temp folders, so a test can check that
/// nothing is left behind; `dir` holds inputs.
final class ImportSandbox {
    let dir: TemporaryDirectory
    let parent: String

    init() throws {
        dir = try TemporaryDirectory(prefix: "kp-import-test")
        parent = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
    }

    /// Extracts with the sandbox as the temp parent.
    func extract(_ path: String, limits: ZipLimits = ZipLimits()) throws(ImportError) -> ExtractedArchive {
        try ZipExtractor(limits: limits, temporaryDirectory: parent).extract(path)
    }

    /// Writes `entries` as a zip and extracts it.
    func extract(_ entries: [TestZipEntry], limits: ZipLimits = ZipLimits()) throws -> ExtractedArchive {
        try extract(try write(TestZip.make(entries)), limits: limits)
    }

    /// Writes bytes to a file in `dir`; returns its path.
    func write(_ bytes: [UInt8], _ name: String = "in.zip") throws -> String {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The names left in the extractor's temp parent.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: parent).sorted()
    }
}

/// The `st_mode` of a path (not following links).
func modeOf(_ path: String) -> mode_t? {
    var st = stat()
    return lstat(path, &st) == 0 ? st.st_mode : nil
}

/// Reads a whole file.
func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// The `ImportError` that `body` throws; records an issue (and returns nil) when it succeeds or throws another error.
func refusal(
    _ body: () throws -> Any, sourceLocation: SourceLocation = #_sourceLocation
) -> ImportError? {
    do {
        let value = try body()
        if let extracted = value as? ExtractedArchive {
            Issue.record(
                "extracted \(extracted.files.map(\.relativePath)) instead of refusing", sourceLocation: sourceLocation)
        } else {
            Issue.record("succeeded instead of refusing", sourceLocation: sourceLocation)
        }
        return nil
    } catch let error as ImportError {
        return error
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
