import Checksum
import Foundation
import KartpackCore
import TileArchive

/// Last night's piece store (`PACKAGE.piecestore`, written by `PieceStoreWriter`): each feature's feature-phase
/// output (`PieceRecord`) under a key of its geometry as read, its style decisions and its set's settings
/// (`PieceReuse.key`). Only the key table is held in memory (28 bytes a feature, sorted); records are read with
/// `pread` when a feature's key is found, and each is checked against the 64-bit check stored before it.
///
/// Format (little-endian; Pipelines/README.md, *Incremental builds: the piece store*):
/// `KARTPACK-PIECE-STORE\n` · version u32 (3) · settings digest (16 bytes) · records, each a check u64 (of the
/// record's bytes, `TileHasher`) and the record · the key table, sorted by key: per feature key (16), offset u64
/// and length u32 of its check and record · the feature digests (`PieceReuse.featureDigest`, 16 bytes each, in the
/// package's order: output layer by output layer, each in input order) · their order by digest (per digest, its
/// index u32, sorted by digest, then index) · per feature digest, the key table entry of its record (u32: what a
/// night reads of a feature its package no longer has, `LazyPieces`) · table offset u64 · entry count u64 · feature
/// digest count u64 · SHA-256 of the header, the table, the digests, their order and their records (32 bytes).
package final class PieceStore: @unchecked Sendable {
    package static let magic = Array("KARTPACK-PIECE-STORE\n".utf8)
    /// 2: the feature digests (`features`); 3: the digests in the package's order, with their order by digest
    /// (`byDigest`); 4: each digest's record (`records`), the records' `FeatureSummary`s.
    package static let version: UInt32 = 4
    /// Bytes after the digests: table offset, entry count, digest count, SHA-256.
    static let footerBytes = 56

    /// One key table entry.
    struct Entry {
        var high: UInt64
        var low: UInt64
        var offset: UInt64
        var length: UInt32
    }

    private let fd: Int32
    private let size: Int
    private let entries: [Entry]
    /// The digest of each feature of last night's package (`PieceReuse.featureDigest`), in the package's order
    /// (output layer by output layer, each in input order); equal features are listed as often as they were
    /// written.
    let features: [TileDigest]
    /// The indices of `features` sorted by digest (then index): the look-up of a digest out of order.
    let byDigest: [UInt32]
    /// Per feature digest, the key table entry of its record (`features[i]` was written from the record of entry
    /// `records[i]`).
    let records: [UInt32]

    /// Where the store of the package at `path` lives.
    package static func path(forPackage path: String) -> String { path + ".piecestore" }

    /// Opens the store at `path` and reads its key table; the error says why it cannot be used.
    package init(path: String, settings: TileDigest) throws(PieceStoreProblem) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PieceStoreProblem("there is no piece store next to the package") }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw PieceStoreProblem(damaged: "it cannot be read")
        }
        size = Int(st.st_size)
        do {
            let read = try Self.table(fd: fd, size: size, settings: settings)
            entries = read.entries
            features = read.features
            byDigest = read.byDigest
            records = read.records
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    /// Features in the store.
    package var count: Int { entries.count }

    private static func table(
        fd: Int32, size: Int, settings: TileDigest
    ) throws(PieceStoreProblem) -> (entries: [Entry], features: [TileDigest], byDigest: [UInt32], records: [UInt32]) {
        let headerSize = magic.count + 4 + 16
        let footerBytes = footerBytes
        guard size >= headerSize + footerBytes, let header = read(fd, at: 0, count: headerSize),
            header.starts(with: magic)
        else { throw PieceStoreProblem(damaged: "not a Kartpack piece store") }
        var r = ByteWords(bytes: header, at: magic.count)
        let version = UInt32(truncatingIfNeeded: r.word(4))
        guard version == Self.version else {
            throw PieceStoreProblem("the piece store has format \(version), this Kartpack reads \(Self.version)")
        }
        guard let footer = read(fd, at: size - footerBytes, count: footerBytes) else {
            throw PieceStoreProblem(damaged: "it cannot be read")
        }
        var f = ByteWords(bytes: footer, at: 0)
        let (tableOffset, count) = (Int(truncatingIfNeeded: f.word(8)), Int(truncatingIfNeeded: f.word(8)))
        let digests = Int(truncatingIfNeeded: f.word(8))
        guard tableOffset >= headerSize, count >= 0, count <= (size - footerBytes) / 28, digests >= 0,
            digests <= (size - footerBytes) / 24, tableOffset + count * 28 + digests * 24 + footerBytes == size,
            let table = read(fd, at: tableOffset, count: count * 28 + digests * 24)
        else { throw PieceStoreProblem(damaged: "its key table does not fit the file") }
        var sha = SHA256()
        sha.update(header)
        sha.update(table)
        guard sha.finalize().elementsEqual(footer[24...]) else {
            throw PieceStoreProblem(damaged: "its checksum does not match")
        }
        guard r.word(8) == settings.high, r.word(8) == settings.low else {
            throw PieceStoreProblem("the piece store was made with other tiling settings or another Kartpack")
        }
        var t = ByteWords(bytes: table, at: 0)
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            entries.append(
                Entry(high: t.word(8), low: t.word(8), offset: t.word(8), length: UInt32(truncatingIfNeeded: t.word(4)))
            )
        }
        var features: [TileDigest] = []
        features.reserveCapacity(digests)
        for _ in 0..<digests { features.append(TileDigest(high: t.word(8), low: t.word(8))) }
        // Per digest, an index below `limit` (else the store is damaged: `why`).
        func indices(below limit: Int, _ why: String) throws(PieceStoreProblem) -> [UInt32] {
            var out: [UInt32] = []
            out.reserveCapacity(digests)
            for _ in 0..<digests {
                let i = UInt32(truncatingIfNeeded: t.word(4))
                guard Int(i) < limit else { throw PieceStoreProblem(damaged: why) }
                out.append(i)
            }
            return out
        }
        let byDigest = try indices(below: digests, "its digests' order does not fit them")
        let records = try indices(below: count, "a digest's record is not in its key table")
        return (entries, features, byDigest, records)
    }

    /// What the store holds under `key`: the record's bytes (checked) — nil when the key is not there or the
    /// record is damaged (`damaged` set).
    func record(_ key: TileDigest, damaged: inout Bool) -> [UInt8]? {
        checkedRecord(key, damaged: &damaged).map { Array($0[8...]) }
    }

    /// `record(_:damaged:)` with its 64-bit check before it, as the store keeps them (the record starts at byte
    /// 8): read and checked once, decoded in place (`PieceRecord.decode(_:from:)`) and written into tonight's
    /// store as it is (`PieceStoreWriter.append(key:checked:)`), without a copy or a second hash.
    func checkedRecord(_ key: TileDigest, damaged: inout Bool) -> [UInt8]? {
        guard let i = entry(key) else { return nil }
        return checkedRecord(entry: i, damaged: &damaged)
    }

    /// The index of the key table's entry of `key`, nil when the store has no record under it.
    ///
    /// Keys are digests, spread evenly over their range, so the search starts where `key`'s high word says
    /// (its share of 2⁶⁴ of the table), widens from there until the key is bracketed and ends with a binary search
    /// of the bracket: a few probes near each other instead of the ~20 far apart of a binary search of a million
    /// keys (a night looks up every feature). Keys bunched anywhere only widen the bracket: the answer is that of
    /// a binary search of the whole table.
    func entry(_ key: TileDigest) -> Int? {
        let n = entries.count
        guard n > 0 else { return nil }
        func before(_ i: Int) -> Bool { (entries[i].high, entries[i].low) < (key.high, key.low) }
        // The answer is the first entry not before `key`, in lo...hi.
        let guess = Int(key.high.multipliedFullWidth(by: UInt64(n)).high)
        var (lo, hi) = (0, n)
        var step = 8
        if before(guess) {
            lo = guess + 1
            while lo + step < n, before(lo + step) {
                lo += step + 1
                step *= 2
            }
            hi = min(n, lo + step)
        } else {
            hi = guess
            while hi - step >= 0, !before(hi - step) {
                hi -= step
                step *= 2
            }
            lo = max(0, hi - step)
        }
        let at = entries[lo..<hi].partitioningIndex { ($0.high, $0.low) >= (key.high, key.low) }
        guard at < n, entries[at].high == key.high, entries[at].low == key.low else { return nil }
        return at
    }

    /// The record of the key table's entry `i` (`entry(_:)`) with its check before it, as `checkedRecord(_:damaged:)`.
    func checkedRecord(entry i: Int, damaged: inout Bool) -> [UInt8]? {
        guard i >= 0, i < entries.count else { return nil }
        let e = entries[i]
        guard e.length >= 8, Int(e.offset) + Int(e.length) <= size,
            let bytes = Self.read(fd, at: Int(e.offset), count: Int(e.length))
        else {
            damaged = true
            return nil
        }
        var w = ByteWords(bytes: bytes, at: 0)
        guard w.word(8) == Self.check(bytes[8...]) else {
            damaged = true
            return nil
        }
        return bytes
    }

    /// The 64-bit check the store keeps before a record (`record`: its bytes after the check).
    static func check(_ record: ArraySlice<UInt8>) -> UInt64 {
        var hasher = TileHasher()
        hasher.add(record)
        return hasher.finish().low
    }

    /// Writes into the first 8 bytes of `checked` the check of the bytes after them: a record as the store keeps
    /// it (`PieceStoreWriter.append(key:checked:)`).
    static func seal(_ checked: inout [UInt8]) {
        let word = check(checked[8...])
        for i in 0..<8 { checked[i] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(i))) }
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }

    static func put32(_ v: UInt32, _ out: inout [UInt8]) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    static func put64(_ v: UInt64, _ out: inout [UInt8]) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
}

/// Little-endian words of a byte array (the caller has checked the length), each read at once, not a byte at a
/// time (a 1M-feature store's key table and digests are 50 MB).
private struct ByteWords {
    let bytes: [UInt8]
    var at: Int

    mutating func word(_ n: Int) -> UInt64 {
        let at = at
        precondition(n >= 0 && n <= 8 && at >= 0 && at + n <= bytes.count, "a word past the bytes read")
        self.at = at + n
        return bytes.withUnsafeBytes { raw -> UInt64 in
            switch n {
            case 8: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            case 4: UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            default: (0..<n).reduce(UInt64(0)) { $0 | UInt64(raw[at + $1]) << (8 * UInt64($1)) }
            }
        }
    }
}

/// Why last night's piece store is not read (every feature is then tiled).
package struct PieceStoreProblem: Error, Sendable {
    package var reason: String
    init(_ reason: String) { self.reason = reason }
    init(damaged why: String) { reason = "the piece store is damaged: " + why }
}
