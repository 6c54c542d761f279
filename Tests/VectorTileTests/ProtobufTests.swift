import Testing
import VectorTile

@Suite struct ProtobufTests {
    @Test func zigzagValues() {
        let pairs: [(Int32, UInt32)] = [
            (0, 0), (-1, 1), (1, 2), (-2, 3), (2, 4), (25, 50), (17, 34), (-5, 9),
            (Int32.max, UInt32.max - 1), (Int32.min, UInt32.max),
        ]
        for (v, z) in pairs {
            #expect(ZigZag.encode(v) == z, "\(v)")
            #expect(ZigZag.decode(z) == v, "\(z)")
        }
        #expect(ZigZag.encode(Int64(-1)) == 1)
        #expect(ZigZag.encode(Int64.min) == UInt64.max)
        #expect(ZigZag.decode(UInt64.max - 1) == Int64.max)
    }

    @Test func varintBytesAndSizes() throws {
        let cases: [(UInt64, [UInt8])] = [
            (0, [0x00]), (1, [0x01]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
            (4096, [0x80, 0x20]),
            (UInt64.max, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        ]
        for (v, bytes) in cases {
            var w = ProtobufWriter()
            w.writeVarint(v)
            #expect(w.bytes == bytes)
            #expect(ProtobufWriter.varintSize(v) == bytes.count)
            var r = ProtobufReader(bytes)
            #expect(try r.readVarint() == v)
            #expect(r.isAtEnd)
        }
    }

    @Test func fieldsRoundTrip() throws {
        var w = ProtobufWriter()
        w.writeVarintField(15, 2)
        w.writeStringField(1, "hé")
        w.writeFixed64Field(3, (1.5 as Double).bitPattern)
        w.writeFloatField(2, 0.25)
        w.writePackedField(4, [9, 300, 0])
        w.writePackedField(5, [])  // writes nothing
        w.writeSignedVarintField(6, -3)
        #expect(Array(w.bytes.prefix(2)) == [0x78, 0x02])
        var r = ProtobufReader(w.bytes)
        #expect(try r.readTag() == (15, .varint))
        #expect(try r.readVarint() == 2)
        #expect(try r.readTag() == (1, .lengthDelimited))
        let s = try r.readLengthDelimited()
        #expect(Array(r.slice(s)) == Array("hé".utf8))
        #expect(try r.readTag() == (3, .fixed64))
        #expect(Double(bitPattern: try r.readFixed64()) == 1.5)
        #expect(try r.readTag() == (2, .fixed32))
        #expect(Float(bitPattern: try r.readFixed32()) == 0.25)
        #expect(try r.readTag() == (4, .lengthDelimited))
        let p = try r.readLengthDelimited()
        var packed: [UInt32] = []
        try r.readPackedUInt32(p, into: &packed)
        #expect(packed == [9, 300, 0])
        #expect(try r.readTag() == (6, .varint))
        #expect(ZigZag.decode(try r.readVarint()) == -3)
        #expect(r.isAtEnd)
    }

    @Test func readerRejectsGarbageWithTypedErrors() {
        func first(_ bytes: [UInt8], _ body: (inout ProtobufReader) throws(ProtobufError) -> Void) -> ProtobufError? {
            var r = ProtobufReader(bytes)
            do throws(ProtobufError) {
                try body(&r)
                return nil
            } catch {
                return error
            }
        }
        #expect(first([0x80]) { r throws(ProtobufError) in _ = try r.readVarint() } == .truncated(offset: 0))
        #expect(first([]) { r throws(ProtobufError) in _ = try r.readVarint() } == .truncated(offset: 0))
        let eleven = [UInt8](repeating: 0xFF, count: 11)
        #expect(first(eleven) { r throws(ProtobufError) in _ = try r.readVarint() } == .varintTooLong(offset: 0))
        let tenthTooBig: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]
        #expect(first(tenthTooBig) { r throws(ProtobufError) in _ = try r.readVarint() } == .varintTooLong(offset: 0))
        #expect(first([0x0B]) { r throws(ProtobufError) in _ = try r.readTag() } == .invalidWireType(3, offset: 0))
        #expect(first([0x0E]) { r throws(ProtobufError) in _ = try r.readTag() } == .invalidWireType(6, offset: 0))
        #expect(first([0x02]) { r throws(ProtobufError) in _ = try r.readTag() } == .invalidFieldNumber(0, offset: 0))
        #expect(
            first([0x05, 0x01]) { r throws(ProtobufError) in _ = try r.readLengthDelimited() } == .truncated(offset: 0))
        #expect(
            first([0x01, 0x02, 0x03]) { r throws(ProtobufError) in _ = try r.readFixed32() } == .truncated(offset: 0))
        #expect(first([0x01]) { r throws(ProtobufError) in _ = try r.readFixed64() } == .truncated(offset: 0))
        #expect(
            first([0x80, 0x80, 0x80, 0x80, 0x10]) { r throws(ProtobufError) in _ = try r.readVarint32() }
                == .valueOutOfRange(offset: 0))
        // A length that would pass the end of a sub-range, even though the whole buffer is long enough.
        #expect(
            first([0x00]) { r throws(ProtobufError) in
                let sub = ProtobufReader([0x03, 0x01, 0x02, 0x03], range: 0..<3)
                var s = sub
                _ = try s.readLengthDelimited()
            } == .truncated(offset: 0))
        // Huge length (2^63) must not overflow.
        let huge: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        #expect(first(huge) { r throws(ProtobufError) in _ = try r.readLengthDelimited() } == .truncated(offset: 0))
    }
}
