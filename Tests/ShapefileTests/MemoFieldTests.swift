import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

/// dBASE memo fields (`M`) come from the `.dbt`/`.fpt`, never as their block number (issue 15).
@Suite struct MemoFieldTests {
    /// Three points with a `NOTE` memo field holding the given block numbers (as 10 ASCII digits).
    func memoFixture(blocks: [String], version: UInt8 = 0x83) -> ShapefileFixture {
        var f = ShapefileFixture(shapeType: .point, shapes: blocks.indices.map { .point(Double($0), 0) })
        f.dbfVersion = version
        f.fields = [.init("NAME", "C", width: 4), .init("NOTE", "M", width: 10)]
        f.rows = blocks.enumerated().map { [Array("r\($0.offset + 1)".utf8), Array($0.element.utf8)] }
        return f
    }

    func notes(_ r: ReadResult) -> [PropertyValue?] { r.features.map { $0.properties["NOTE"] } }

    /// A dBASE III `.dbt`: 512-byte header, then each text in its own 512-byte blocks ended by 0x1A 0x1A.
    func dBase3(_ texts: [[UInt8]]) -> (bytes: [UInt8], blocks: [Int]) {
        var out = [UInt8](repeating: 0, count: 512)
        var blocks: [Int] = []
        for t in texts {
            blocks.append(out.count / 512)
            out += t + [0x1A, 0x1A]
            while out.count % 512 != 0 { out.append(0) }
        }
        out[0] = UInt8(out.count / 512)
        return (out, blocks)
    }

    @Test func dBaseIIIMemosAreReadFromTheDBT() throws {
        let long = Array(String(repeating: "lång text ", count: 120).utf8)  // spans three blocks
        let (dbt, blocks) = dBase3([Array("first note".utf8), long])
        var f = memoFixture(blocks: ["\(blocks[0])", "", "\(blocks[1])"])
        f.extraFiles = ["dbt": dbt]
        f.cpg = Array("UTF-8".utf8)
        let r = try readFixture(f)
        #expect(notes(r) == [.string("first note"), .null, .string(String(decoding: long, as: UTF8.self))])
        #expect(r.schema.fields.map(\.type) == [.string, .string] && r.schema.fields[1].nativeType == "M")
        #expect(r.stats.coercedToNull.isEmpty)
    }

    @Test func dBaseIVMemosUseTheirLengthHeader() throws {
        var dbt = [UInt8](repeating: 0, count: 512)
        dbt[20] = 0x00
        dbt[21] = 0x02  // block size 512
        let text = Array("fourth\u{1A}dimension".utf8)  // a 0x1A inside: the length, not a marker, ends it
        var block = [0xFF, 0xFF, 0x08, 0x00] as [UInt8]
        block.appendLittleEndian(UInt32(8 + text.count))
        dbt += block + text
        while dbt.count % 512 != 0 { dbt.append(0) }
        var f = memoFixture(blocks: ["1", "0"], version: 0x8B)
        f.extraFiles = ["dbt": dbt]
        let r = try readFixture(f)
        #expect(notes(r) == [.string("fourth\u{1A}dimension"), .null])
    }

    @Test func foxProMemosComeFromTheFPTByBinaryBlockNumber() throws {
        var fpt = [UInt8](repeating: 0, count: 512)
        fpt[7] = 64  // block size 64 (big-endian at bytes 6-7)
        let text = Array("vfp memo".utf8)
        var block: [UInt8] = [0, 0, 0, 1]
        block += [0, 0, 0, UInt8(text.count)]
        fpt += block + text
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.dbfVersion = 0x30
        f.fields = [.init("NOTE", "M", width: 4)]
        f.dbfHeaderLengthOverride = UInt16(32 + 32 + 1 + 263)
        f.dbfRawRows = [[8, 0, 0, 0], [0, 0, 0, 0]]  // block 8 = byte 512; block 0 = no memo
        f.extraFiles = ["fpt": fpt]
        let r = try readFixture(f)
        #expect(notes(r) == [.string("vfp memo"), .null])
    }

    @Test func missingMemoFileGivesNullWithACountedWarningNeverTheBlockNumber() throws {
        let f = memoFixture(blocks: ["1", "", "2"])
        let r = try readFixture(f)
        #expect(notes(r) == [.null, .null, .null])
        #expect(r.stats.coercedToNull == [.memoFileMissing: 2])
        let w = try #require(r.sink.samples.first { $0.code == .memoFileMissing && $0.record == nil })
        #expect(w.message.contains("NOTE") && w.message.contains(".dbt or .fpt") && w.file == "layer.dbf")
    }

    @Test func hostileBlockNumbersAndLengthsAreRefused() throws {
        let (dbt, _) = dBase3([Array("ok".utf8)])
        var f = memoFixture(blocks: ["99999999", "12a", "1"])
        f.extraFiles = ["dbt": dbt]
        let r = try readFixture(f)
        #expect(notes(r) == [.null, .null, .string("ok")])
        #expect(r.stats.coercedToNull == [.badMemoBlock: 2])

        // A dBASE IV block claiming 4 GiB, and a dBASE III memo without any end marker past the 1 MiB cap.
        var iv = [UInt8](repeating: 0, count: 512)
        iv += [0xFF, 0xFF, 0x08, 0x00, 0xFF, 0xFF, 0xFF, 0xFF]
        var g = memoFixture(blocks: ["1"], version: 0x8B)
        g.extraFiles = ["dbt": iv]
        #expect(try readFixture(g).stats.coercedToNull == [.memoTooLarge: 1])
        var huge = [UInt8](repeating: 0, count: 512)
        huge += [UInt8](repeating: 0x41, count: MemoFile.maxMemoBytes + 10)
        var h = memoFixture(blocks: ["1"])
        h.extraFiles = ["dbt": huge]
        #expect(try readFixture(h).stats.coercedToNull == [.memoTooLarge: 1])
    }

    @Test func locatorFindsTheMemoFileInAnyCase() throws {
        let dir = try TemporaryDirectory(prefix: "kartpack-memo")
        var f = memoFixture(blocks: ["1"])
        f.extraFiles = ["DBT": dBase3([Array("x".utf8)]).bytes]
        try f.write(to: dir.path)
        let set = try #require(try ShapefileLocator.shapefiles(at: dir.path).first)
        #expect(set.memo == dir.file("layer.DBT"))
    }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendLittleEndian(_ v: UInt32) {
        append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)])
    }
}
