import Glibc
import Gzip
import KartpackCore

/// The state of one extraction: the archive, the root folder's descriptor and the running totals. Writes files
/// with `O_CREAT | O_EXCL | O_NOFOLLOW` (0600) under folders opened with `O_NOFOLLOW` (0700), streaming each
/// entry in bounded chunks and enforcing the caps on the bytes really produced.
package struct ExtractionRun: ~Copyable {
    package let file: ArchiveFile
    package let root: String
    let resolvedRoot: String
    let rootFD: Int32
    package let limits: ZipLimits
    var totalOut = 0

    package init(file: ArchiveFile, root: String, limits: ZipLimits) throws(ImportError) {
        self.file = file
        self.root = root
        self.limits = limits
        guard let resolved = RegularFile.realPath(root) else {
            throw .io(path: root, reason: "cannot resolve the extraction folder: \(Self.errorText())")
        }
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: root, reason: "cannot open the extraction folder: \(Self.errorText())") }
        resolvedRoot = resolved
        rootFD = fd
    }

    deinit { close(rootFD) }

    /// The reason for a failed call; running out of descriptors names the limit, as every other command does.
    static func errorText(_ code: Int32 = errno) -> String {
        OpenFileLimit.isExhausted(code) ? OpenFileLimit.message(errno: code) : String(cString: strerror(code))
    }

    /// Creates (if needed) and opens the folder `components` below the root, one `O_NOFOLLOW` step at a time.
    /// The caller closes the returned descriptor.
    func openFolder(_ components: [String], entry: ZipEntry) throws(ImportError) -> Int32 {
        var fd = dup(rootFD)
        guard fd >= 0 else { throw .io(path: root, reason: Self.errorText()) }
        var path = root
        for c in components {
            path += "/" + c
            if mkdirat(fd, c, 0o700) != 0 && errno != EEXIST {
                let e = errno
                close(fd)
                throw .io(path: path, reason: "cannot create the folder: \(Self.errorText(e))")
            }
            let next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let e = errno
            close(fd)
            guard next >= 0 else {
                if e == ENOTDIR || e == ELOOP {
                    throw .unsafeEntry(archive: file.path, entry: entry.displayName, reason: "\(path) is not a folder")
                }
                throw .io(path: path, reason: "cannot open the folder: \(Self.errorText(e))")
            }
            fd = next
        }
        return fd
    }

    /// Streams one entry into a new file and checks its size and CRC-32.
    mutating func extractFile(_ item: ZipExtractor.PlannedItem, dataStart: Int) throws(ImportError) -> ExtractedFile {
        let entry = item.entry
        let archive = file.path
        let relative = item.components.joined(separator: "/")
        let target = root + "/" + relative
        guard let name = item.components.last, target.hasPrefix(root + "/"),
            !item.components.contains(".."), !item.components.contains(where: { $0.contains("/") })
        else {
            throw .unsafeEntry(
                archive: archive, entry: entry.displayName, reason: "it resolves outside the extraction folder")
        }
        let parent = try openFolder(Array(item.components.dropLast()), entry: entry)
        let out = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        let openErrno = errno
        close(parent)
        guard out >= 0 else {
            if openErrno == EEXIST || openErrno == ELOOP {
                throw .unsafeEntry(archive: archive, entry: entry.displayName, reason: "\(target) already exists")
            }
            throw .io(path: target, reason: "cannot create the file: \(Self.errorText(openErrno))")
        }
        var closed = false
        defer { if !closed { close(out) } }
        // The file exists now: make sure it really is inside the root.
        guard let resolved = RegularFile.realPath(target), resolved.hasPrefix(resolvedRoot + "/") else {
            throw .unsafeEntry(
                archive: archive, entry: entry.displayName, reason: "it resolves outside the extraction folder")
        }

        var written = 0
        var crc: UInt32 = 0
        var offset = dataStart
        let end = dataStart + entry.compressedSize
        func corrupt(_ reason: String) -> ImportError {
            .corruptEntry(archive: archive, entry: entry.displayName, reason: reason)
        }
        if entry.method == 0 {
            while offset < end {
                let chunk = try file.bytes(at: offset, count: min(ZipExtractor.chunkSize, end - offset))
                guard !chunk.isEmpty else { throw corrupt("its data is truncated") }
                offset += chunk.count
                try account(chunk, entry: entry, written: &written, crc: &crc, fd: out, target: target)
            }
        } else {
            var inflater: Inflater
            do throws(GzipError) {
                inflater = try Inflater(format: .raw, maxOutput: entry.uncompressedSize)
            } catch {
                throw .io(path: archive, reason: "cannot start zlib: \(error)")
            }
            while !inflater.isFinished {
                if inflater.needsInput {
                    guard offset < end else { throw corrupt("its deflate data ends early (truncated)") }
                    let chunk = try file.bytes(at: offset, count: min(ZipExtractor.chunkSize, end - offset))
                    guard !chunk.isEmpty else { throw corrupt("its data is truncated") }
                    offset += chunk.count
                    inflater.feed(chunk)
                }
                let produced: [UInt8]
                do throws(GzipError) {
                    produced = try inflater.next(maxBytes: 4 * ZipExtractor.chunkSize)
                } catch {
                    if case .outputTooLarge = error {
                        throw corrupt(
                            "its data inflates to more than the \(entry.uncompressedSize) bytes the central directory "
                                + "declares (refused while streaming; possible zip bomb)"
                        )
                    }
                    throw corrupt("bad deflate data: \(error)")
                }
                try account(produced, entry: entry, written: &written, crc: &crc, fd: out, target: target)
            }
        }
        guard written == entry.uncompressedSize else {
            throw corrupt("its data is \(written) bytes, the central directory declares \(entry.uncompressedSize)")
        }
        guard crc == entry.crc32 else {
            throw corrupt(
                "CRC-32 mismatch: the data has \(Self.hex(crc)), the central directory declares "
                    + "\(Self.hex(entry.crc32))"
            )
        }
        closed = true
        guard close(out) == 0 else { throw .io(path: target, reason: "close failed: \(Self.errorText())") }
        return ExtractedFile(entry: entry.displayName, relativePath: relative, path: target, size: written)
    }

    package static func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - s.count)) + s
    }

    /// Counts, checks and writes produced bytes.
    private mutating func account(
        _ bytes: [UInt8], entry: ZipEntry, written: inout Int, crc: inout UInt32, fd: Int32, target: String
    ) throws(ImportError) {
        guard !bytes.isEmpty else { return }
        written += bytes.count
        totalOut += bytes.count
        let archive = file.path
        if written > limits.maxEntryBytes {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason: "it inflates to more than the per-entry limit of \(limits.maxEntryBytes) bytes")
        }
        if totalOut > limits.maxTotalBytes {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason: "the archive inflates to more than the limit of \(limits.maxTotalBytes) bytes in total")
        }
        if ZipExtractor(limits: limits).exceedsRatio(written, compressed: entry.compressedSize) {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason: "it inflates beyond a compression ratio of \(limits.maxRatio):1")
        }
        if ZipExtractor(limits: limits).exceedsRatio(totalOut, compressed: file.size) {
            throw .limitExceeded(
                source: archive, entry: entry.displayName,
                reason: "the archive inflates beyond a compression ratio of \(limits.maxRatio):1 overall")
        }
        crc = Gzip.crc32(bytes, continuing: crc)
        var done = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < raw.count {
                let n = write(fd, base + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure != 0 { throw .io(path: target, reason: "write failed: \(Self.errorText(failure))") }
    }
}
