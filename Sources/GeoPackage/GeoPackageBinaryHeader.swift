import KartpackCore

/// The header of a GeoPackage geometry blob (GeoPackage 1.2 §2.1.3, `GeoPackageBinaryHeader`): magic `GP`, version
/// 0, flags, the SRS id and an optional envelope, followed by the WKB.
///
/// Flags (bit 0 = least significant): bit 0 the byte order of the SRS id and envelope (1 = little endian); bits 1–3
/// the envelope kind (0 none, 1 xy = 32 bytes, 2 xyz = 48, 3 xym = 48, 4 xyzm = 64; 5–7 are invalid); bit 4 the
/// empty flag; bit 5 an extended (`ExtendedGeoPackageBinary`) geometry, whose payload is an extension's own and is
/// not read. Bits 6–7 are reserved. The envelope is skipped: the reader takes bounds from the coordinates.
public struct GeoPackageBinaryHeader: Sendable, Hashable {
    /// The version byte (0 for GeoPackage 1.x).
    public var version: UInt8
    /// The envelope kind, 0…4.
    public var envelopeKind: Int
    /// True when the empty flag is set (the WKB then holds an empty geometry or NaN coordinates).
    public var isEmpty: Bool
    /// The SRS id the blob claims.
    public var srsID: Int32
    /// The byte offset of the WKB: 8 + the envelope's size.
    public var wkbOffset: Int

    /// Envelope sizes in bytes by kind.
    static let envelopeBytes = [0, 32, 48, 48, 64]

    /// Parses the header of `blob`, or says why it is not a GeoPackage geometry (`bad_geometry_blob`) or is an
    /// extended one Kartpack cannot read (`unsupported_geometry_type`).
    public init(_ blob: UnsafeRawBufferPointer) throws(GeometryBlobIssue) {
        guard blob.count >= 8 else {
            throw GeometryBlobIssue(
                code: .badGeometryBlob, "\(blob.count) bytes, shorter than the 8-byte GeoPackage header")
        }
        guard blob[0] == 0x47, blob[1] == 0x50 else {
            throw GeometryBlobIssue(
                code: .badGeometryBlob,
                "starts with bytes \(blob[0]), \(blob[1]), not the magic \"GP\" of a GeoPackage geometry")
        }
        version = blob[2]
        guard version == 0 else {
            throw GeometryBlobIssue(code: .badGeometryBlob, "header version \(version), not 0 (GeoPackage 1.x)")
        }
        let flags = blob[3]
        guard flags & 0xC0 == 0 else {
            throw GeometryBlobIssue(code: .badGeometryBlob, "reserved flag bits set (flags \(flags))")
        }
        if flags & 0x20 != 0 {
            throw GeometryBlobIssue(
                code: .unsupportedGeometryType,
                "an extended GeoPackage geometry (flag X), whose payload belongs to an extension Kartpack does not read"
            )
        }
        envelopeKind = Int((flags >> 1) & 0x07)
        guard envelopeKind < Self.envelopeBytes.count else {
            throw GeometryBlobIssue(code: .badGeometryBlob, "envelope kind \(envelopeKind) is not defined (0-4)")
        }
        isEmpty = flags & 0x10 != 0
        let little = flags & 0x01 != 0
        let raw = UInt32(blob[4]) | UInt32(blob[5]) << 8 | UInt32(blob[6]) << 16 | UInt32(blob[7]) << 24
        srsID = Int32(bitPattern: little ? raw : raw.byteSwapped)
        wkbOffset = 8 + Self.envelopeBytes[envelopeKind]
        guard blob.count >= wkbOffset else {
            throw GeometryBlobIssue(
                code: .badGeometryBlob,
                "\(blob.count) bytes, shorter than the header with its "
                    + "\(Self.envelopeBytes[envelopeKind])-byte envelope"
            )
        }
    }
}
