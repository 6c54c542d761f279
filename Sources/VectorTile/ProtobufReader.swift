/// A bounds-checked Protocol Buffers reader over a byte array (or a range of it).
///
/// Every read checks the remaining length and throws a `ProtobufError` instead of trapping, whatever the bytes.
/// Nested messages are read with `subreader(_:)`, which shares the array storage (no copy).
public struct ProtobufReader: Sendable {
    /// The whole underlying buffer.
    public let buffer: [UInt8]
    /// The offset of the next byte to read.
    public private(set) var position: Int
    /// One past the last readable byte.
    public let end: Int

    /// Reads all of `buffer`.
    public init(_ buffer: [UInt8]) {
        self.buffer = buffer
        position = 0
        end = buffer.count
    }

    /// Reads `range` of `buffer` (clamped to the buffer).
    public init(_ buffer: [UInt8], range: Range<Int>) {
        self.buffer = buffer
        let lo = min(max(range.lowerBound, 0), buffer.count)
        let hi = min(max(range.upperBound, lo), buffer.count)
        position = lo
        end = hi
    }

    /// True when every byte has been read.
    public var isAtEnd: Bool { position >= end }

    /// Bytes left to read.
    public var remaining: Int { end - position }

    /// Reads a base-128 varint (at most 10 bytes).
    public mutating func readVarint() throws(ProtobufError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw .truncated(offset: start) }
            let b = buffer[position]
            position += 1
            if shift == 63 {
                // The 10th byte may only carry the top bit.
                guard b <= 1 else { throw .varintTooLong(offset: start) }
                return result | (UInt64(b) << 63)
            }
            result |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a varint that must fit in 32 bits.
    public mutating func readVarint32() throws(ProtobufError) -> UInt32 {
        let start = position
        let v = try readVarint()
        guard v <= UInt64(UInt32.max) else { throw .valueOutOfRange(offset: start) }
        return UInt32(v)
    }

    /// Reads a field tag. Throws on field number 0, numbers above 2^29 − 1 and wire types other than
    /// 0, 1, 2 and 5 (groups are rejected).
    public mutating func readTag() throws(ProtobufError) -> (field: Int, wireType: ProtobufWireType) {
        let start = position
        let v = try readVarint()
        let field = v >> 3
        guard field >= 1 && field <= 0x1FFF_FFFF else { throw .invalidFieldNumber(field, offset: start) }
        let raw = UInt8(v & 7)
        guard let wire = ProtobufWireType(rawValue: raw), wire != .startGroup, wire != .endGroup else {
            throw .invalidWireType(raw, offset: start)
        }
        return (Int(field), wire)
    }

    /// Reads a length prefix and returns the byte range of the content, advancing past it.
    public mutating func readLengthDelimited() throws(ProtobufError) -> Range<Int> {
        let start = position
        let length = try readVarint()
        guard length <= UInt64(remaining) else { throw .truncated(offset: start) }
        let lo = position
        position += Int(length)
        return lo..<position
    }

    /// A reader over `range` of the same buffer (typically from `readLengthDelimited()`).
    public func subreader(_ range: Range<Int>) -> ProtobufReader {
        ProtobufReader(buffer, range: range)
    }

    /// The bytes of `range` (a slice sharing storage).
    public func slice(_ range: Range<Int>) -> ArraySlice<UInt8> {
        let lo = min(max(range.lowerBound, 0), buffer.count)
        let hi = min(max(range.upperBound, lo), buffer.count)
        return buffer[lo..<hi]
    }

    /// Reads a little-endian fixed64.
    public mutating func readFixed64() throws(ProtobufError) -> UInt64 {
        guard remaining >= 8 else { throw .truncated(offset: position) }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(buffer[position + i]) << (8 * UInt64(i)) }
        position += 8
        return v
    }

    /// Reads a little-endian fixed32.
    public mutating func readFixed32() throws(ProtobufError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated(offset: position) }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(buffer[position + i]) << (8 * UInt32(i)) }
        position += 4
        return v
    }

    /// Skips the value of a field with the given wire type.
    public mutating func skip(_ wireType: ProtobufWireType) throws(ProtobufError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: _ = try readFixed64()
        case .fixed32: _ = try readFixed32()
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup, .endGroup: throw .invalidWireType(wireType.rawValue, offset: position)
        }
    }

    /// Appends the `uint32` varints of a packed field's content `range` to `values`. Stops with
    /// `.valueOutOfRange` on a value above 2^32 − 1; never reads outside `range`.
    public func readPackedUInt32(_ range: Range<Int>, into values: inout [UInt32]) throws(ProtobufError) {
        var r = subreader(range)
        while !r.isAtEnd { values.append(try r.readVarint32()) }
    }
}
