/// One central directory record of a zip archive, with the ZIP64 extra field applied and the local header offset
/// corrected for bytes prepended to the archive.
package struct ZipEntry: Sendable, Hashable {
    /// 1-based position in the central directory.
    package var index: Int
    /// The name as stored (bytes).
    var rawName: [UInt8]
    /// The name decoded (UTF-8 when flagged or valid, else CP437).
    package var name: String
    var versionMadeBy: Int
    package var flags: Int
    var method: Int
    var crc32: UInt32
    var compressedSize: Int
    var uncompressedSize: Int
    var localHeaderOffset: Int
    var externalAttributes: UInt32

    /// The Unix mode in the high 16 bits of the external attributes (0 when the writer left it empty).
    var unixMode: UInt32 { externalAttributes >> 16 }

    /// True for folder entries: a name ending in `/` (or `\`), a Unix folder mode, or the MS-DOS folder attribute.
    package var isDirectory: Bool {
        if let last = rawName.last, last == UInt8(ascii: "/") || last == UInt8(ascii: "\\") { return true }
        if unixMode & 0o170000 == 0o040000 { return true }
        let host = versionMadeBy >> 8
        return (host == 0 || host == 11 || host == 14) && externalAttributes & 0x10 != 0
    }

    /// Encrypted (bit 0) or strongly encrypted (bit 6).
    var isEncrypted: Bool { flags & 0x41 != 0 }
    /// Sizes and CRC follow the data in a data descriptor (bit 3); the local header's copies are then zero.
    var hasDataDescriptor: Bool { flags & 0x08 != 0 }
    /// The name is UTF-8 (bit 11).
    var isUTF8: Bool { flags & 0x800 != 0 }

    /// The name as shown in messages: control characters escaped so a hostile name cannot drive the terminal.
    var displayName: String { ZipEntryName.printable(name) }
}
