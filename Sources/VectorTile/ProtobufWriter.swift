/// Appends Protocol Buffers fields to a byte buffer.
///
/// Length-delimited fields need their size first: callers either compute it (`varintSize`, `packedSize`) and
/// write the content directly, or build the content in a scratch writer and pass its bytes.
public struct ProtobufWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer, reserving `capacity` bytes.
    public init(capacity: Int = 0) {
        bytes = []
        if capacity > 0 { bytes.reserveCapacity(capacity) }
    }

    /// Number of bytes written.
    public var count: Int { bytes.count }

    /// Forgets what was written, keeping the buffer's capacity.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    /// The number of bytes `writeVarint(v)` appends (1…10).
    @inlinable
    public static func varintSize(_ v: UInt64) -> Int {
        // 1 + floor(log128(v)), with 0 taking one byte.
        let bits = 64 - (v | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    /// The size of the content of a packed varint field holding `values` (without tag and length).
    public static func packedSize(_ values: [UInt32]) -> Int {
        var n = 0
        for v in values { n += varintSize(UInt64(v)) }
        return n
    }

    /// The size of a whole length-delimited field (tag + length + content of `contentSize` bytes).
    public static func lengthDelimitedFieldSize(field: Int, contentSize: Int) -> Int {
        tagSize(field: field) + varintSize(UInt64(contentSize)) + contentSize
    }

    /// The size of a field tag.
    public static func tagSize(field: Int) -> Int { varintSize(UInt64(field) << 3) }

    /// Appends a base-128 varint.
    public mutating func writeVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Appends a field tag (`field << 3 | wireType`). `field` must be in `1...2^29 − 1`.
    public mutating func writeTag(field: Int, wireType: ProtobufWireType) {
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// Appends a varint field.
    public mutating func writeVarintField(_ field: Int, _ value: UInt64) {
        writeTag(field: field, wireType: .varint)
        writeVarint(value)
    }

    /// Appends a zigzag-encoded (`sint64`) field.
    public mutating func writeSignedVarintField(_ field: Int, _ value: Int64) {
        writeVarintField(field, ZigZag.encode(value))
    }

    /// Appends a little-endian fixed64 field.
    public mutating func writeFixed64Field(_ field: Int, _ value: UInt64) {
        writeTag(field: field, wireType: .fixed64)
        var v = value
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    /// Appends a little-endian fixed32 field.
    public mutating func writeFixed32Field(_ field: Int, _ value: UInt32) {
        writeTag(field: field, wireType: .fixed32)
        var v = value
        for _ in 0..<4 {
            bytes.append(UInt8(truncatingIfNeeded: v))
            v >>= 8
        }
    }

    /// Appends a `float` field (fixed32 of the IEEE bit pattern).
    public mutating func writeFloatField(_ field: Int, _ value: Float) {
        writeFixed32Field(field, value.bitPattern)
    }

    /// Appends a length-delimited field holding `content`.
    public mutating func writeBytesField(_ field: Int, _ content: some Collection<UInt8>) {
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(content.count))
        bytes.append(contentsOf: content)
    }

    /// Appends a string field (its UTF-8 bytes).
    public mutating func writeStringField(_ field: Int, _ value: String) {
        writeBytesField(field, value.utf8)
    }

    /// Appends a packed repeated varint field; nothing when `values` is empty.
    public mutating func writePackedField(_ field: Int, _ values: [UInt32]) {
        guard !values.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeVarint(UInt64(Self.packedSize(values)))
        for v in values { writeVarint(UInt64(v)) }
    }

    /// Appends raw bytes (an already encoded field or message body).
    public mutating func writeRaw(_ raw: some Collection<UInt8>) {
        bytes.append(contentsOf: raw)
    }
}
