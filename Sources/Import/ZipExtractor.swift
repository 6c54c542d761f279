import Glibc
import KartpackCore

/// Extracts an untrusted zip archive safely into a fresh private temporary folder (hostile-inputs.md §5 #42–#44).
///
/// Only the container format is read here (end record, central directory, local headers; ZIP64 included);
/// inflating is zlib's, streamed in bounded chunks. Methods 0 (stored) and 8 (deflate) are supported; encrypted
/// entries and other methods refuse the archive.
///
/// **Refused archives** (`ImportError`, exit 65, nothing is left on disk). The whole archive is checked before
/// anything is written, then each entry again while it streams:
/// - Path traversal (Zip Slip, CWE-22): a name with a `..` component, an absolute path, a drive letter, a NUL
///   byte; backslashes count as separators. Each target is also resolved after creation and prefix-checked
///   against the root; files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` (mode 0600) under folders opened
///   with `O_NOFOLLOW` (mode 0700).
/// - Symbolic links (the Unix mode in the external attributes): links are never created, and an archive carrying
///   one is refused rather than silently changed.
/// - Caps (`ZipLimits`): entry count; bytes per entry, in total, and the compression ratio per entry and for the
///   whole archive (after a grace size). Declared sizes are checked first, then the bytes really produced are
///   counted while streaming: an entry inflating past its declared size is refused at once, and its final size
///   and CRC-32 must match the central directory.
/// - Broken structure: truncation, bad signatures, a local header that disagrees with the central directory
///   (name, method, CRC and sizes unless a data descriptor is used), entries whose data overlap (the
///   non-recursive zip-bomb construction), data running into the central directory.
///
/// **Skipped entries** (a warning each, in central directory order, in `ExtractedArchive.warnings`):
/// - Nested archives (`.zip`, `.7z`, `.rar`, `.tar`, `.gz`, `.tgz`, `.bz2`, `.xz`, …) are never opened or
///   written: `zip_nested_archive`.
/// - Devices, FIFOs and sockets (Unix mode): never created, `zip_special_file`. (Info-ZIP's `zip out.zip -` marks
///   data read from a pipe as a FIFO; such an entry is skipped too.)
/// - Names equal ignoring case (`a.SHP` after `a.shp`, or `Data/x.shp` after `data/x.shp`): the first in central
///   directory order is kept, `zip_duplicate_entry`.
/// - A file where an earlier entry needs a folder, or the reverse: `zip_path_conflict`.
///
/// Folder names are unified by case: the first spelling of a folder wins, so `Data/a.shp` and `DATA/a.dbf` both
/// land in `Data/`, as on the case-insensitive file systems the archive was probably made on.
package struct ZipExtractor: Sendable {
    /// The caps applied.
    package var limits: ZipLimits
    /// Where the private extraction folder is created; nil means `$TMPDIR`, then `/tmp`.
    package var temporaryDirectory: String?

    /// Creates an extractor.
    package init(limits: ZipLimits = ZipLimits(), temporaryDirectory: String? = nil) {
        self.limits = limits
        self.temporaryDirectory = temporaryDirectory
    }

    /// Extensions of archives that are never extracted from inside another archive.
    package static let nestedArchiveExtensions: Set<String> = [
        "zip", "zipx", "7z", "rar", "tar", "gz", "tgz", "bz2", "tbz", "tbz2", "xz", "txz", "zst", "lz", "lzma",
        "z", "cab", "arj", "lzh",
    ]

    /// The bytes read or written at once while streaming.
    static let chunkSize = 1 << 16

    /// Extracts `archivePath`. On any error the temporary folder is already removed.
    package func extract(_ archivePath: String) throws(ImportError) -> ExtractedArchive {
        let file = try ArchiveFile(path: archivePath)
        let directory = try ZipDirectory.read(file, limits: limits)
        let plan = try makePlan(file: file, directory: directory)
        let folder = try TemporaryFolder(parent: temporaryDirectory)
        do {
            var run = try ExtractionRun(file: file, root: folder.path, limits: limits)
            var files: [ExtractedFile] = []
            for item in plan.items {
                switch item.kind {
                case .directory:
                    let fd = try run.openFolder(item.components, entry: item.entry)
                    close(fd)
                case .file(let dataStart):
                    files.append(try run.extractFile(item, dataStart: dataStart))
                }
            }
            return ExtractedArchive(archive: archivePath, folder: folder, files: files, warnings: plan.warnings)
        } catch {
            folder.remove()
            throw error
        }
    }

    // MARK: Planning (everything checked before anything is written)

    package struct PlannedItem {
        package enum Kind {
            case directory
            case file(dataStart: Int)
        }
        package var entry: ZipEntry
        package var kind: Kind
        /// Target components, folders spelled as first seen.
        package var components: [String]
    }

    package struct Plan {
        package var items: [PlannedItem] = []
        package var warnings: [Diagnostic] = []
    }

    func makePlan(file: ArchiveFile, directory: ZipDirectory) throws(ImportError) -> Plan {
        let archive = file.path
        var plan = Plan()
        var ranges: [(start: Int, end: Int, entry: ZipEntry)] = []
        // Lower-cased path → spelling of its last component (folders) or the entry that claimed it (files).
        var folders: [String: String] = [:]
        var files: [String: String] = [:]
        var declaredTotal = 0

        for entry in directory.entries {
            let components: [String]
            do throws(ZipEntryName.Unsafe) {
                components = try ZipEntryName.components(of: entry.name, rawName: entry.rawName)
            } catch {
                throw .unsafeEntry(archive: archive, entry: entry.displayName, reason: error.reason)
            }
            let special = try specialKind(entry, archive: archive)
            let dataStart = try checkLocalHeader(entry, file: file, directory: directory)
            ranges.append((entry.localHeaderOffset, dataStart + entry.compressedSize, entry))

            func warn(_ code: ReasonCode, _ message: String) {
                plan.warnings.append(
                    Diagnostic(.warning, code: code, "entry \"\(entry.displayName)\": \(message)", file: archive))
            }
            if let special {
                warn(.zipSpecialFile, "skipped: it is \(special); only regular files and folders are extracted")
                continue
            }
            let lowered = components.map { $0.lowercased() }
            let key = lowered.joined(separator: "/")
            let parentKeys = (0..<max(0, lowered.count - 1)).map { lowered[...$0].joined(separator: "/") }
            if let clash = parentKeys.first(where: { files[$0] != nil }) {
                warn(.zipPathConflict, "skipped: \"\(files[clash] ?? clash)\" is a file, not a folder")
                continue
            }
            // Spell folders as first seen.
            var spelled: [String] = []
            for (k, c) in components.enumerated() {
                if k < components.count - 1 || entry.isDirectory {
                    spelled.append(folders[lowered[...k].joined(separator: "/")] ?? c)
                } else {
                    spelled.append(c)
                }
            }
            if entry.isDirectory {
                if components.isEmpty { continue }
                if let other = files[key] {
                    warn(.zipPathConflict, "skipped: \"\(other)\" is a file of the same name")
                    continue
                }
                for k in 0..<lowered.count where folders[lowered[...k].joined(separator: "/")] == nil {
                    folders[lowered[...k].joined(separator: "/")] = components[k]
                }
                plan.items.append(PlannedItem(entry: entry, kind: .directory, components: spelled))
                continue
            }
            guard let last = components.last else {
                throw .unsafeEntry(archive: archive, entry: entry.displayName, reason: "it has an empty file name")
            }
            if let dot = last.lastIndex(of: "."), dot != last.startIndex,
                Self.nestedArchiveExtensions.contains(String(last[last.index(after: dot)...]).lowercased())
            {
                warn(.zipNestedArchive, "skipped: archives inside archives are never opened")
                continue
            }
            if let other = files[key] {
                warn(
                    .zipDuplicateEntry,
                    "skipped: same name as the earlier entry \"\(other)\" (ignoring case); the first is kept")
                continue
            }
            if folders[key] != nil {
                warn(.zipPathConflict, "skipped: a folder of the same name exists")
                continue
            }
            try checkMethodAndSizes(entry, archive: archive)
            declaredTotal += entry.uncompressedSize
            if declaredTotal > limits.maxTotalBytes {
                throw .limitExceeded(
                    source: archive, entry: nil,
                    reason: "its entries declare more than the limit of \(limits.maxTotalBytes) bytes in total")
            }
            for k in 0..<parentKeys.count where folders[parentKeys[k]] == nil { folders[parentKeys[k]] = components[k] }
            files[key] = entry.displayName
            plan.items.append(PlannedItem(entry: entry, kind: .file(dataStart: dataStart), components: spelled))
        }
        if exceedsRatio(declaredTotal, compressed: file.size) {
            throw .limitExceeded(
                source: archive, entry: nil,
                reason:
                    "its entries declare \(declaredTotal) bytes from a \(file.size)-byte archive, a compression ratio "
                    + "over \(limits.maxRatio):1"
            )
        }
        // Entries whose data overlap are the non-recursive zip bomb (one compressed block counted many times).
        ranges.sort { $0.start < $1.start || ($0.start == $1.start && $0.entry.index < $1.entry.index) }
        for k in ranges.indices.dropFirst() where ranges[k].start < ranges[k - 1].end {
            throw .corruptEntry(
                archive: archive, entry: ranges[k].entry.displayName,
                reason:
                    "its data overlaps entry \"\(ranges[k - 1].entry.displayName)\" (overlapping entries are a "
                    + "zip-bomb construction)"
            )
        }
        return plan
    }

    /// Refuses symbolic links; returns a description for devices, FIFOs and sockets (skipped, never created), nil for
    /// files and folders (Unix mode in the external attributes).
    private func specialKind(_ entry: ZipEntry, archive: String) throws(ImportError) -> String? {
        switch entry.unixMode & 0o170000 {
        case 0o120000:
            throw .unsafeEntry(
                archive: archive, entry: entry.displayName, reason: "it is a symbolic link (links are never extracted)")
        case 0o020000: return "a character device"
        case 0o060000: return "a block device"
        case 0o010000: return "a FIFO"
        case 0o140000: return "a socket"
        default: return nil
        }
    }

    /// Checks the local header against the central directory; returns where the entry's data starts.
    private func checkLocalHeader(_ entry: ZipEntry, file: ArchiveFile, directory: ZipDirectory) throws(ImportError)
        -> Int
    {
        let archive = file.path
        let at = entry.localHeaderOffset
        func corrupt(_ reason: String) -> ImportError {
            .corruptEntry(archive: archive, entry: entry.displayName, reason: reason)
        }
        let header = try file.bytes(at: at, count: 30)
        guard header.count == 30, header.le32(0) == 0x0403_4b50 else {
            throw corrupt("no local file header at byte \(at)")
        }
        let nameLen = header.le16(26)
        let extraLen = header.le16(28)
        let localName = try file.bytes(at: at + 30, count: nameLen)
        guard localName == entry.rawName else {
            throw corrupt(
                "its local header names a different file "
                    + "(\"\(ZipEntryName.printable(ZipEntryName.decode(localName, utf8Flag: true)))\")"
            )
        }
        guard header.le16(8) == entry.method else {
            throw corrupt(
                "its local header gives compression method \(header.le16(8)), the central directory \(entry.method)")
        }
        let localFlags = header.le16(6)
        if !entry.hasDataDescriptor && localFlags & 0x08 == 0 {
            let crc = UInt32(header.le32(14))
            let csize = header.le32(18)
            let usize = header.le32(22)
            guard crc == entry.crc32 else {
                throw corrupt("its local header and the central directory disagree on the CRC-32")
            }
            guard
                (csize == 0xFFFF_FFFF || csize == entry.compressedSize)
                    && (usize == 0xFFFF_FFFF || usize == entry.uncompressedSize)
            else {
                throw corrupt("its local header and the central directory disagree on the sizes")
            }
        }
        let dataStart = at + 30 + nameLen + extraLen
        let (end, overflow) = dataStart.addingReportingOverflow(entry.compressedSize)
        guard !overflow, end <= directory.centralDirectoryStart else {
            throw corrupt(
                "its \(entry.compressedSize) bytes of data run past the end of the data area (truncated or corrupt)")
        }
        return dataStart
    }

    /// Refuses encryption and unknown methods, and declared sizes over the caps.
    private func checkMethodAndSizes(_ entry: ZipEntry, archive: String) throws(ImportError) {
        if entry.isEncrypted {
            throw .unsupported(
                archive: archive, entry: entry.displayName, reason: "encrypted entries are not supported")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw .unsupported(
                archive: archive, entry: entry.displayName,
                reason: "compression method \(entry.method) is not supported (only stored and deflate)")
        }
        if entry.method == 0 && entry.compressedSize != entry.uncompressedSize {
            throw .corruptEntry(
                archive: archive, entry: entry.displayName,
                reason:
                    "it is stored uncompressed but declares \(entry.compressedSize) compressed and "
                    + "\(entry.uncompressedSize) uncompressed bytes"
            )
        }
        if entry.uncompressedSize > limits.maxEntryBytes {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason:
                    "it declares \(entry.uncompressedSize) bytes, more than the per-entry limit of "
                    + "\(limits.maxEntryBytes)"
            )
        }
        if exceedsRatio(entry.uncompressedSize, compressed: entry.compressedSize) {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason:
                    "it declares \(entry.uncompressedSize) bytes from \(entry.compressedSize) compressed, a "
                    + "compression ratio over \(limits.maxRatio):1"
            )
        }
    }

    /// True when `produced` bytes from `compressed` bytes pass the ratio cap (after the grace size).
    func exceedsRatio(_ produced: Int, compressed: Int) -> Bool {
        guard produced > limits.ratioGraceBytes else { return false }
        let (allowed, overflow) = max(compressed, 1).multipliedReportingOverflow(by: max(limits.maxRatio, 1))
        return !overflow && produced > allowed
    }
}
