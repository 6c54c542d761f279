import Checksum
import Dispatch
import Foundation
import KartpackCore
import TileArchive

/// Writes tonight's piece store (`PieceStore`) into a temporary file next to the package while the feature phase
/// runs, one record per feature in input order; `seal` appends the sorted key table and the checksum, and
/// `publish` renames it over last night's store once the package is published. Past `limit` bytes it stops and
/// writes nothing (`overLimit`): the next night then tiles every feature.
///
/// Once the feature phase has given every record and the features (`features`, `records`), `sealInBackground`
/// seals the store on a thread of its own while the tiles are encoded (sorting a million keys and digests took
/// about a second at the end of every night and `run --full`); from then on only `publish` and `discard` may be
/// called, and they wait for it.
package final class PieceStoreWriter: @unchecked Sendable {
    private let file: AtomicFile
    private let limit: Int
    private var buffer: [UInt8] = []
    private var offset: Int
    private var entries: [PieceStore.Entry] = []
    private var header: [UInt8]
    private var failed = false
    /// True once the store would have grown past `limit` (nothing is published then).
    package private(set) var overLimit = false
    /// Bytes of the published store (0 before `seal`).
    package private(set) var bytes = 0
    /// How sealing ended (nil before), written by the sealing thread and read only once it was waited for.
    private var sealed: Bool?
    /// The sealing thread's end, until it is waited for (`sealInBackground`).
    private var sealing: DispatchSemaphore?
    /// The digest of each feature of tonight's package (`PieceReuse.featureDigest`), in the package's order,
    /// written after the key table with their order by digest, and the record each was written from (`records`: the
    /// record's place among those appended, `appended`).
    var features: [TileDigest] = []
    var records: [UInt32] = []
    /// Records appended so far (the next one's place).
    var appended: Int { entries.count }

    /// A store for `path` (`PieceStore.path(forPackage:)`) holding at most `limit` bytes.
    package init(path: String, settings: TileDigest, limit: Int) throws(TileArchiveError) {
        file = try AtomicFile(targetPath: path, overwrite: true)
        self.limit = limit
        header = PieceStore.magic
        PieceStore.put32(PieceStore.version, &header)
        PieceStore.put64(settings.high, &header)
        PieceStore.put64(settings.low, &header)
        buffer = header
        offset = header.count
    }

    /// Adds one feature's record (`PieceRecord`) under `key`.
    func append(key: TileDigest, record: [UInt8]) {
        append(key: key, checked: Self.checked(record))
    }

    /// `record` with its 64-bit check before it, as the store keeps it.
    static func checked(_ record: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 8)
        out.reserveCapacity(8 + record.count)
        out += record
        PieceStore.seal(&out)
        return out
    }

    /// Adds one feature's record under `key` with its check before it (`checked`, or as last night's store had
    /// it: `PieceStore.checkedRecord`).
    func append(key: TileDigest, checked record: [UInt8]) {
        guard !overLimit, !failed else { return }
        let length = record.count
        // The key table and (about one per record) the feature digests and their order come after the records.
        guard offset + length + 52 * (entries.count + 1) + PieceStore.footerBytes <= limit,
            record.count <= Int(UInt32.max)
        else {
            overLimit = true
            buffer = []
            entries = []
            return
        }
        buffer += record
        entries.append(PieceStore.Entry(high: key.high, low: key.low, offset: UInt64(offset), length: UInt32(length)))
        offset += length
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        guard !failed, !buffer.isEmpty else { return }
        do { try file.write(buffer) } catch { failed = true }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Seals the store on a thread of its own (see the type); once.
    func sealInBackground() {
        guard sealed == nil, sealing == nil else { return }
        let ended = DispatchSemaphore(value: 0)
        sealing = ended
        Thread { [self] in
            sealed = seal()
            ended.signal()
        }.start()
    }

    /// Whether the store was sealed (waiting for the sealing thread, or sealing it now when that had not begun).
    private func waitForSeal() -> Bool {
        joinSeal()
        if sealed == nil { sealed = seal() }
        return sealed ?? false
    }

    /// Waits for the sealing thread, if one runs and was not waited for.
    private func joinSeal() {
        sealing?.wait()
        sealing = nil
    }

    /// Publishes the store next to the package (sealed first when it was not); false (and no file) when it was
    /// over its limit or could not be written.
    package func publish() -> Bool {
        guard waitForSeal() else {
            file.discard()
            return false
        }
        do { try file.publish() } catch {
            file.discard()
            return false
        }
        return true
    }

    /// Writes the key table and the checksum after the records; false when the store was over its limit or could
    /// not be written (the caller discards it).
    private func seal() -> Bool {
        if offset + 28 * entries.count + 24 * features.count + PieceStore.footerBytes > limit
            || features.count > Int(UInt32.max) || records.count != features.count
            || records.contains(where: { Int($0) >= entries.count })
        {
            overLimit = true
        }
        guard !overLimit, !failed else { return false }
        // By key, each key once (the first appended): a record's place among those appended → its table entry.
        let byKey = entries.indices.sorted {
            (entries[$0].high, entries[$0].low, $0) < (entries[$1].high, entries[$1].low, $1)
        }
        var entryOf = [UInt32](repeating: 0, count: entries.count)
        var table: [UInt8] = []
        table.reserveCapacity(entries.count * 28 + features.count * 24 + PieceStore.footerBytes)
        var last: (UInt64, UInt64)?
        var count = 0
        for i in byKey {
            let e = entries[i]
            if last.map({ $0 != (e.high, e.low) }) ?? true {
                last = (e.high, e.low)
                PieceStore.put64(e.high, &table)
                PieceStore.put64(e.low, &table)
                PieceStore.put64(e.offset, &table)
                PieceStore.put32(e.length, &table)
                count += 1
            }
            entryOf[i] = UInt32(count - 1)
        }
        for d in features {
            PieceStore.put64(d.high, &table)
            PieceStore.put64(d.low, &table)
        }
        // Their order by digest (ties by index): the next night's look-up of a feature out of order.
        var sorted = features.indices.map { (features[$0].high, features[$0].low, UInt32(truncatingIfNeeded: $0)) }
        sorted.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        for s in sorted { PieceStore.put32(s.2, &table) }
        for r in records { PieceStore.put32(entryOf[Int(r)], &table) }
        var sha = SHA256()
        sha.update(header)
        sha.update(table)
        PieceStore.put64(UInt64(offset), &table)
        PieceStore.put64(UInt64(count), &table)
        PieceStore.put64(UInt64(features.count), &table)
        table += sha.finalize()
        buffer += table
        flush()
        guard !failed else { return false }
        bytes = offset + table.count
        return true
    }

    /// Leaves nothing behind (a build that was not published), once the store is no longer being sealed.
    package func discard() {
        joinSeal()
        file.discard()
    }

    /// A build that failed before `publish` leaves no temporary file either.
    deinit { file.discard() }
}
