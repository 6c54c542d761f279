/// Protocol Buffers wire types (the low three bits of a field tag).
public enum ProtobufWireType: UInt8, Sendable, Hashable {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    case varint = 0
    /// fixed64, sfixed64, double.
    case fixed64 = 1
    /// string, bytes, embedded messages, packed repeated fields.
    case lengthDelimited = 2
    /// Deprecated group start (never written; rejected by the reader).
    case startGroup = 3
    /// Deprecated group end (never written; rejected by the reader).
    case endGroup = 4
    /// fixed32, sfixed32, float.
    case fixed32 = 5
}
