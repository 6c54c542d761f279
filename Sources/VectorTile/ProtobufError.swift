import KartpackCore

/// Why the protobuf reader stopped. `offset` is the byte offset in the buffer where the bad item starts.
public enum ProtobufError: Error, Sendable, Hashable, KartpackError {
    /// The buffer ended inside a varint, a fixed-width value or a length-delimited field.
    case truncated(offset: Int)
    /// A varint longer than 10 bytes, or a 10th byte that overflows 64 bits.
    case varintTooLong(offset: Int)
    /// Wire type 3, 4, 6 or 7 (groups are not supported; 6 and 7 do not exist).
    case invalidWireType(UInt8, offset: Int)
    /// Field number 0 or above 2^29 − 1.
    case invalidFieldNumber(UInt64, offset: Int)
    /// A varint that does not fit the declared field type (e.g. > 2^32 − 1 for `uint32`).
    case valueOutOfRange(offset: Int)
    /// A known field arrived with a wire type its declaration does not allow.
    case unexpectedWireType(field: Int, wireType: ProtobufWireType, offset: Int)

    /// Malformed input is a data error.
    public var exitCode: ExitCode { .dataError }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .truncated(let o): "protobuf truncated at byte \(o)"
        case .varintTooLong(let o): "protobuf varint too long at byte \(o)"
        case .invalidWireType(let w, let o): "protobuf invalid wire type \(w) at byte \(o)"
        case .invalidFieldNumber(let f, let o): "protobuf invalid field number \(f) at byte \(o)"
        case .valueOutOfRange(let o): "protobuf value out of range at byte \(o)"
        case .unexpectedWireType(let f, let w, let o):
            "protobuf field \(f) has unexpected wire type \(w.rawValue) at byte \(o)"
        }
    }
}
