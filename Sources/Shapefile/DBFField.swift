import KartpackCore

/// How the reader decodes the bytes of one DBF field.
enum DBFFieldKind: Equatable {
    /// `C`: text in the layer's encoding.
    case text
    /// `N`, `F`: a number written as text.
    case number
    /// `L`: T/F/Y/N/?.
    case logical
    /// `D`: `YYYYMMDD`.
    case date
    /// `M`: a memo in the `.dbt`/`.fpt`; the record holds its block number (10 ASCII digits in dBASE, a 4-byte
    /// little-endian integer in Visual FoxPro).
    case memo(binaryBlockNumber: Bool)
    /// FoxPro `I`: a 4-byte little-endian signed integer.
    case int32
    /// FoxPro `B` (width 8): an 8-byte little-endian IEEE double.
    case double64
    /// FoxPro `T`: 4-byte Julian day number + 4-byte milliseconds since midnight, both little-endian.
    case dateTime
    /// FoxPro `Y`: an 8-byte little-endian integer in units of 1/10 000.
    case currency
    /// dBASE 7 `I` and `+` (autoincrement): a 4-byte big-endian integer with the sign bit flipped.
    case dBase7Integer
    /// dBASE 7 `O`: an 8-byte big-endian double with the sign bit flipped (all bits for negative values).
    case dBase7Double
}

/// One field as the reader decodes it.
struct FieldReader {
    var name: String
    /// The index shapelib uses for this field.
    var index: Int32
    var type: FieldType
    var decimals: Int
    /// Byte offset inside a record (the deletion flag is byte 0) and width in bytes.
    var offset: Int
    var width: Int
    var kind: DBFFieldKind
}

/// What to do with a field of the header.
enum DBFFieldPlan: Equatable {
    /// Read it as `kind` into a schema field of `type`; `warning` (code, message) is reported once.
    case read(DBFFieldKind, FieldType, decimals: Int, warning: Warning?)
    /// Leave it out; the message says why (reported as `dropped_field`).
    case drop(String)

    struct Warning: Equatable {
        var code: ReasonCode
        var message: String
    }

    /// The plan for a raw field; `name` is its decoded name (for messages).
    static func plan(_ raw: DBFHeader.RawField, name: String) -> DBFFieldPlan {
        let letter = String(decoding: [raw.type], as: UTF8.self)
        guard raw.width > 0 else { return .drop("field \(name) has width 0; dropped") }
        func unknown(_ why: String) -> DBFFieldPlan {
            .read(
                .text, .string, decimals: 0,
                warning: Warning(code: .unknownFieldType, message: "field \(name) \(why); read as text"))
        }
        if raw.dBase7 {
            switch raw.type {
            case UInt8(ascii: "I"), UInt8(ascii: "+"):
                if raw.width == 4 { return .read(.dBase7Integer, .integer, decimals: 0, warning: nil) }
            case UInt8(ascii: "O"):
                if raw.width == 8 { return .read(.dBase7Double, .double, decimals: raw.decimals, warning: nil) }
            case UInt8(ascii: "@"):
                return .drop("field \(name) is a dBASE 7 timestamp, which Kartpack does not read; dropped")
            default: break
            }
        }
        switch raw.type {
        case UInt8(ascii: "C"): return .read(.text, .string, decimals: 0, warning: nil)
        case UInt8(ascii: "N"), UInt8(ascii: "F"):
            return .read(.number, raw.decimals == 0 ? .integer : .double, decimals: raw.decimals, warning: nil)
        case UInt8(ascii: "L"): return .read(.logical, .logical, decimals: 0, warning: nil)
        case UInt8(ascii: "D"): return .read(.date, .date, decimals: 0, warning: nil)
        case UInt8(ascii: "M"):
            return .read(.memo(binaryBlockNumber: raw.width == 4), .string, decimals: 0, warning: nil)
        case UInt8(ascii: "I") where raw.width == 4: return .read(.int32, .integer, decimals: 0, warning: nil)
        case UInt8(ascii: "B") where raw.width == 8:
            return .read(.double64, .double, decimals: raw.decimals, warning: nil)
        case UInt8(ascii: "T") where raw.width == 8: return .read(.dateTime, .string, decimals: 0, warning: nil)
        case UInt8(ascii: "Y") where raw.width == 8: return .read(.currency, .double, decimals: 4, warning: nil)
        case UInt8(ascii: "B"), UInt8(ascii: "G"), UInt8(ascii: "P"):
            return .drop(
                "field \(name) of type '\(letter)' holds binary, OLE or picture memos, which tiles cannot carry; "
                    + "dropped"
            )
        case UInt8(ascii: "0"):
            return .drop("field \(name) of type '0' is FoxPro's hidden null-flags field; dropped")
        case UInt8(ascii: "I"), UInt8(ascii: "T"), UInt8(ascii: "Y"):
            return unknown(
                "has type '\(letter)' with width \(raw.width) (FoxPro uses \(raw.type == UInt8(ascii: "I") ? 4 : 8))")
        default:
            return unknown("has unknown type '\(letter)' (0x\(String(raw.type, radix: 16)))")
        }
    }
}
