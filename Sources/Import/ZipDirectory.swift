/// The container structure of a zip archive: the End Of Central Directory record (ZIP64 included) and the central
/// directory records. Only the container format is hand-written; inflating is zlib's (`Gzip.Inflater`).
///
/// Checks made here, before anything is extracted: one disk only; the entry count against `maxEntries`; the
/// central directory lies inside the file, before the end record, and is not larger than
/// `maxCentralDirectoryBytes`; every record has its signature and fits. Bytes prepended to the archive (a
/// self-extractor stub) are tolerated by shifting every offset, as Info-ZIP does.
package struct ZipDirectory {
    /// The entries in central directory order.
    package var entries: [ZipEntry]
    /// Where the central directory starts (offsets already shifted); entry data must end before it.
    var centralDirectoryStart: Int

    private static let eocdSignature = 0x0605_4b50
    private static let zip64LocatorSignature = 0x0706_4b50
    private static let zip64EOCDSignature = 0x0606_4b50
    private static let centralSignature = 0x0201_4b50

    /// Reads the end record and the central directory of `file`.
    package static func read(_ file: ArchiveFile, limits: ZipLimits) throws(ImportError) -> ZipDirectory {
        let archive = file.path
        guard file.size >= 22 else {
            throw .notAZip(archive: archive, reason: "it is \(file.size) bytes, too short for a zip archive")
        }
        // The end record is the last 22 bytes plus a comment of up to 65 535 bytes.
        let tailStart = max(0, file.size - (65_535 + 22))
        let tail = try file.exactly(at: tailStart, count: file.size - tailStart, what: "the end of the archive")
        var found: Int?
        var fallback: Int?
        var i = tail.count - 22
        while i >= 0 {
            if tail[i] == 0x50, tail[i + 1] == 0x4b, tail[i + 2] == 0x05, tail[i + 3] == 0x06 {
                let end = i + 22 + tail.le16(i + 20)
                if end == tail.count {
                    found = i
                    break
                }
                if end <= tail.count, fallback == nil { fallback = i }
            }
            i -= 1
        }
        guard let at = found ?? fallback else {
            let head = try file.bytes(at: 0, count: 4)
            if head == [0x50, 0x4b, 0x03, 0x04] {
                throw .notAZip(archive: archive, reason: "truncated: the end of central directory record is missing")
            }
            throw .notAZip(archive: archive, reason: "no end of central directory record (not a zip file)")
        }
        let eocdPos = tailStart + at
        var disk = tail.le16(at + 4)
        var cdDisk = tail.le16(at + 6)
        var entriesHere = tail.le16(at + 8)
        var total = tail.le16(at + 10)
        var cdSize = tail.le32(at + 12)
        var cdOffset = tail.le32(at + 16)
        var cdEnd = eocdPos

        // ZIP64: a locator right before the end record points at the ZIP64 end record.
        if eocdPos >= 20 {
            let loc = try file.exactly(at: eocdPos - 20, count: 20, what: "the ZIP64 locator")
            if loc.le32(0) == zip64LocatorSignature {
                let z64Disks = loc.le32(16)
                let z64At = loc.le64(8)
                guard z64Disks <= 1 else {
                    throw .unsupported(
                        archive: archive, entry: nil, reason: "split (multi-volume) archives are not supported")
                }
                // The ZIP64 end record is 56 bytes plus extensible data; it ends where the locator starts. Find it
                // from the locator's position when its stored offset is off by prepended bytes.
                var z64Pos = Int(clamping: z64At)
                let expected = eocdPos - 20 - 56
                var rec = try file.bytes(at: z64Pos, count: 56)
                if rec.count < 56 || rec.le32(0) != zip64EOCDSignature, expected >= 0 {
                    z64Pos = expected
                    rec = try file.bytes(at: z64Pos, count: 56)
                }
                guard rec.count == 56, rec.le32(0) == zip64EOCDSignature else {
                    throw .notAZip(archive: archive, reason: "the ZIP64 end of central directory record is missing")
                }
                disk = rec.le32(16)
                cdDisk = rec.le32(20)
                entriesHere = Int(clamping: rec.le64(24))
                total = Int(clamping: rec.le64(32))
                cdSize = Int(clamping: rec.le64(40))
                cdOffset = Int(clamping: rec.le64(48))
                cdEnd = z64Pos
            }
        }
        guard disk == 0, cdDisk == 0, entriesHere == total else {
            throw .unsupported(archive: archive, entry: nil, reason: "split (multi-volume) archives are not supported")
        }
        guard total <= limits.maxEntries else {
            throw .limitExceeded(
                source: archive, entry: nil,
                reason: "it has \(total) entries, more than the limit of \(limits.maxEntries)")
        }
        guard cdSize <= limits.maxCentralDirectoryBytes else {
            throw .limitExceeded(
                source: archive, entry: nil,
                reason:
                    "its central directory is \(cdSize) bytes, more than the limit of "
                    + "\(limits.maxCentralDirectoryBytes)"
            )
        }
        guard cdSize <= cdEnd, cdSize >= 46 * total else {
            throw .notAZip(
                archive: archive,
                reason: "the central directory size (\(cdSize) bytes for \(total) entries) is impossible")
        }
        // Bytes prepended to the archive shift every offset.
        let cdStart = cdEnd - cdSize
        let shift = cdStart - cdOffset
        guard shift >= 0 else {
            throw .notAZip(
                archive: archive,
                reason:
                    "truncated or corrupt: the central directory should start at byte \(cdOffset), the file has room "
                    + "for it only from byte \(cdStart)"
            )
        }
        let cd = try file.exactly(at: cdStart, count: cdSize, what: "the central directory")

        var entries: [ZipEntry] = []
        entries.reserveCapacity(total)
        var pos = 0
        for k in 0..<total {
            guard pos + 46 <= cd.count, cd.le32(pos) == centralSignature else {
                throw .notAZip(
                    archive: archive,
                    reason:
                        "central directory record \(k + 1) of \(total) is missing or has a bad signature (byte "
                        + "\(cdStart + pos))"
                )
            }
            let nameLen = cd.le16(pos + 28)
            let extraLen = cd.le16(pos + 30)
            let commentLen = cd.le16(pos + 32)
            let next = pos + 46 + nameLen + extraLen + commentLen
            guard next <= cd.count else {
                throw .notAZip(
                    archive: archive, reason: "central directory record \(k + 1) runs past the central directory")
            }
            let rawName = Array(cd[(pos + 46)..<(pos + 46 + nameLen)])
            let flags = cd.le16(pos + 8)
            var entry = ZipEntry(
                index: k + 1, rawName: rawName, name: ZipEntryName.decode(rawName, utf8Flag: flags & 0x800 != 0),
                versionMadeBy: cd.le16(pos + 4), flags: flags, method: cd.le16(pos + 10),
                crc32: UInt32(cd.le32(pos + 16)), compressedSize: cd.le32(pos + 20),
                uncompressedSize: cd.le32(pos + 24), localHeaderOffset: cd.le32(pos + 42),
                externalAttributes: UInt32(cd.le32(pos + 38)))
            let diskStart = cd.le16(pos + 34)
            // ZIP64 extra field (0x0001): the 64-bit values, in this order, for each field saturated at 0xFFFFFFFF.
            let full = 0xFFFF_FFFF
            if entry.uncompressedSize == full || entry.compressedSize == full || entry.localHeaderOffset == full
                || diskStart == 0xFFFF
            {
                let extra = Array(cd[(pos + 46 + nameLen)..<(pos + 46 + nameLen + extraLen)])
                guard let z64 = zip64Field(in: extra) else {
                    throw .notAZip(
                        archive: archive,
                        reason: "entry \"\(entry.displayName)\" has 32-bit fields saturated but no ZIP64 extra field")
                }
                var p = 0
                func take() -> Int? {
                    guard p + 8 <= z64.count else { return nil }
                    defer { p += 8 }
                    return Int(clamping: z64.le64(p))
                }
                if entry.uncompressedSize == full { entry.uncompressedSize = take() ?? -1 }
                if entry.compressedSize == full { entry.compressedSize = take() ?? -1 }
                if entry.localHeaderOffset == full { entry.localHeaderOffset = take() ?? -1 }
                guard entry.uncompressedSize >= 0, entry.compressedSize >= 0, entry.localHeaderOffset >= 0 else {
                    throw .notAZip(
                        archive: archive, reason: "entry \"\(entry.displayName)\" has a short ZIP64 extra field")
                }
            } else if diskStart != 0 {
                throw .unsupported(
                    archive: archive, entry: nil, reason: "split (multi-volume) archives are not supported")
            }
            let (shifted, overflow) = entry.localHeaderOffset.addingReportingOverflow(shift)
            guard !overflow, shifted < cdStart else {
                throw .notAZip(
                    archive: archive,
                    reason:
                        "entry \"\(entry.displayName)\" points at byte \(entry.localHeaderOffset), past its data area")
            }
            entry.localHeaderOffset = shifted
            entries.append(entry)
            pos = next
        }
        return ZipDirectory(entries: entries, centralDirectoryStart: cdStart)
    }

    /// The data of the ZIP64 extended information extra field (id 0x0001), if present.
    private static func zip64Field(in extra: [UInt8]) -> [UInt8]? {
        var p = 0
        while p + 4 <= extra.count {
            let id = extra.le16(p)
            let size = extra.le16(p + 2)
            guard p + 4 + size <= extra.count else { return nil }
            if id == 0x0001 { return Array(extra[(p + 4)..<(p + 4 + size)]) }
            p += 4 + size
        }
        return nil
    }
}
