import Checksum
import KartpackCore
import TileArchive

/// What one tile of a package was made from and what it holds: the index keeps one per tile the encode phase made
/// (tiles without features too, so that they are not made again either).
package struct TileIndexEntry: Sendable {
    package var tile: TileCoordinate
    /// What the tile's bytes were made from (`TileSignature`).
    package var signature: TileDigest
    /// Features written in the tile (0: the package has no tile there).
    package var features: Int
    /// The tile's stored (compressed) size in the package.
    package var length: Int
    /// The stored bytes' digest: a tile copied from the package must have these bytes.
    package var bytes: TileDigest
    /// The tile's share of its zoom's statistics: shared-border fallbacks, small-feature counts by layer.
    package var sharedBorderFallbacks: Int
    package var small: [(layer: Int32, counts: SmallFeatureReduction.Counts)]
    /// The tile's piece count when its signature was made at a selection that keeps every piece (no cut-off, no
    /// `max-points`), else -1: a tile of such a zoom made only of unchanged features, with as many pieces, has this
    /// signature again (`TileReuse`).
    package var keptPieces = -1
}

/// The tile index a `run` keeps next to its package (`PACKAGE.tileindex`): per tile, the signature of what it was
/// made from and its share of the statistics, so that the next night re-encodes only tiles whose signature
/// changed and copies the others' bytes from the package (`TileReuse`).
///
/// Format (little-endian; Pipelines/README.md, *Incremental builds: the tile index*):
/// `KARTPACK-TILE-INDEX\n` · version u32 (4) · settings digest (16 bytes) · the package's length u64 and digest
/// (16) · features written u64 · entry count u64
/// · per entry: z u8, x u32, y u32, signature (16), features u32, stored length u32, bytes digest (16),
/// shared-border fallbacks u32, small-feature layer count u8, per layer: layer u32, reduced u32, kept u32, then
/// kept pieces u32 (`keptPieces`; 0xFFFFFFFF: -1)
/// · first-round entry count u64 · per entry (`RoundZeroEntry`): z u8, x u32, y u32, signature (16), flags u8,
/// fit rank i32
/// · SHA-256 of everything before it (32 bytes).
package struct TileIndex: Sendable {
    package static let magic = Array("KARTPACK-TILE-INDEX\n".utf8)
    /// 2: the first rounds of thinned zooms (`roundZero`); 3: each tile's `keptPieces`; 4: signatures made of
    /// per-piece digests (`TileSignature.combined`).
    package static let version: UInt32 = 4
    /// The largest index read (a million-stand package's is about 20 MB).
    static let maxBytes = 2 << 30

    /// The digest of the build's settings (`TileReuse.settingsDigest`): another one makes every tile dirty.
    package var settings: TileDigest
    /// The package the index describes: its length and digest (`TileDigest.ofFile`), checked before its tiles are
    /// copied.
    package var packageLength: UInt64 = 0
    package var packageDigest = TileDigest(high: 0, low: 0)
    /// Features written into the package (for the index's size per feature).
    package var features: Int
    package var entries: [TileIndexEntry]
    /// Per tile of each thinned zoom, what its first round found (sorted by zoom, x, y).
    package var roundZero: [RoundZeroEntry]

    package init(
        settings: TileDigest, features: Int, entries: [TileIndexEntry], roundZero: [RoundZeroEntry] = []
    ) {
        self.settings = settings
        self.features = features
        self.entries = entries
        self.roundZero = roundZero
    }

    /// Where the index of the package at `path` lives.
    package static func path(forPackage path: String) -> String { path + ".tileindex" }

    /// The index as stored.
    package func encoded() -> [UInt8] {
        var out = Self.magic
        out.reserveCapacity(64 + entries.count * 60)
        put32(Self.version, &out)
        put(settings, &out)
        put64(packageLength, &out)
        put(packageDigest, &out)
        put64(UInt64(features), &out)
        put64(UInt64(entries.count), &out)
        for e in entries {
            put(e.tile, e.signature, &out)
            put32(UInt32(clamping: e.features), &out)
            put32(UInt32(clamping: e.length), &out)
            put(e.bytes, &out)
            put32(UInt32(clamping: e.sharedBorderFallbacks), &out)
            out.append(UInt8(clamping: e.small.count))
            for s in e.small.prefix(255) {
                put32(UInt32(bitPattern: s.layer), &out)
                put32(UInt32(clamping: s.counts.reduced), &out)
                put32(UInt32(clamping: s.counts.keptAsPixel), &out)
            }
            put32(e.keptPieces < 0 ? UInt32.max : UInt32(clamping: e.keptPieces), &out)
        }
        put64(UInt64(roundZero.count), &out)
        for e in roundZero {
            put(e.tile, e.signature, &out)
            out.append(e.flags)
            put32(UInt32(bitPattern: e.fitRank), &out)
        }
        var sha = SHA256()
        sha.update(out)
        out += sha.finalize()
        return out
    }

    /// Writes the index atomically (a temporary file, fsync'd and renamed over `path`).
    package func write(to path: String) throws(TileArchiveError) {
        let file = try AtomicFile(targetPath: path, overwrite: true)
        try file.write(encoded())
        try file.publish()
    }

    /// Reads the index at `path`; the error says why it cannot be used.
    package static func read(path: String) throws(TileIndexError) -> TileIndex {
        guard RegularFile.kind(at: path) != nil else { throw .missing }
        let bytes: [UInt8]
        do { bytes = try RegularFile.read(path, maxBytes: maxBytes) } catch { throw .damaged(error.reason) }
        return try decode(bytes)
    }

    /// Parses a stored index, checking its magic, version and checksum.
    package static func decode(_ bytes: [UInt8]) throws(TileIndexError) -> TileIndex {
        guard bytes.count >= magic.count + 4 + 32, bytes.starts(with: magic) else {
            throw .damaged("not a Kartpack tile index")
        }
        var r = IndexReader(bytes: bytes, at: magic.count)
        let version = try r.u32()
        guard version == Self.version else { throw .otherVersion(Int(version)) }
        var sha = SHA256()
        sha.update(bytes[..<(bytes.count - 32)])
        guard sha.finalize().elementsEqual(bytes[(bytes.count - 32)...]) else {
            throw .damaged("its checksum does not match")
        }
        r.end = bytes.count - 32
        let settings = try r.digest()
        let packageLength = try r.u64()
        let packageDigest = try r.digest()
        let features = Int(try r.u64())
        let count = try r.u64()
        guard count <= UInt64(bytes.count / 58) else { throw .damaged("entry count \(count) past the file's end") }
        var entries: [TileIndexEntry] = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            let tile = try r.tile()
            let signature = try r.digest()
            let features = Int(try r.u32())
            let length = Int(try r.u32())
            let digest = try r.digest()
            let fallbacks = Int(try r.u32())
            var small: [(layer: Int32, counts: SmallFeatureReduction.Counts)] = []
            for _ in 0..<(try r.u8()) {
                let layer = Int32(bitPattern: try r.u32())
                var counts = SmallFeatureReduction.Counts()
                counts.reduced = Int(try r.u32())
                counts.keptAsPixel = Int(try r.u32())
                small.append((layer, counts))
            }
            let kept = try r.u32()
            entries.append(
                TileIndexEntry(
                    tile: tile, signature: signature, features: features, length: length,
                    bytes: digest, sharedBorderFallbacks: fallbacks, small: small,
                    keptPieces: kept == UInt32.max ? -1 : Int(kept)))
        }
        let firstRounds = try r.u64()
        guard firstRounds <= UInt64(bytes.count / 30) else {
            throw .damaged("first-round entry count \(firstRounds) past the file's end")
        }
        var roundZero: [RoundZeroEntry] = []
        roundZero.reserveCapacity(Int(firstRounds))
        for _ in 0..<firstRounds {
            let tile = try r.tile()
            let signature = try r.digest()
            let flags = try r.u8()
            let rank = Int32(bitPattern: try r.u32())
            roundZero.append(RoundZeroEntry(tile: tile, signature: signature, flags: flags, fitRank: rank))
        }
        guard r.at == r.end else { throw .damaged("\(r.end - r.at) bytes after the last entry") }
        var index = TileIndex(settings: settings, features: features, entries: entries, roundZero: roundZero)
        index.packageLength = packageLength
        index.packageDigest = packageDigest
        return index
    }

    private func put32(_ v: UInt32, _ out: inout [UInt8]) {
        for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
    }

    private func put64(_ v: UInt64, _ out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }

    /// A tile's address and signature.
    private func put(_ tile: TileCoordinate, _ signature: TileDigest, _ out: inout [UInt8]) {
        out.append(UInt8(tile.z))
        put32(UInt32(tile.x), &out)
        put32(UInt32(tile.y), &out)
        put(signature, &out)
    }

    private func put(_ d: TileDigest, _ out: inout [UInt8]) {
        put64(d.high, &out)
        put64(d.low, &out)
    }
}

/// Why a tile index cannot be used (the build then encodes every tile and says why in its report).
package enum TileIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing
    case damaged(String)
    case otherVersion(Int)

    package var description: String {
        switch self {
        case .missing: "no tile index next to the package"
        case .damaged(let why): "the tile index is damaged: \(why)"
        case .otherVersion(let v): "the tile index has format \(v), this Kartpack reads \(TileIndex.version)"
        }
    }
}

/// Reads the little-endian fields of a stored index, within `end`.
private struct IndexReader {
    let bytes: [UInt8]
    var at: Int
    var end: Int

    init(bytes: [UInt8], at: Int) {
        self.bytes = bytes
        self.at = at
        end = bytes.count
    }

    mutating func take(_ n: Int) throws(TileIndexError) -> ArraySlice<UInt8> {
        guard n <= end - at else { throw .damaged("cut short") }
        defer { at += n }
        return bytes[at..<(at + n)]
    }

    mutating func u8() throws(TileIndexError) -> UInt8 { try take(1).first! }

    mutating func u32() throws(TileIndexError) -> UInt32 {
        try take(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() throws(TileIndexError) -> UInt64 {
        try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// z u8, x u32, y u32, on the grid.
    mutating func tile() throws(TileIndexError) -> TileCoordinate {
        let z = Int(try u8())
        let (x, y) = (Int(try u32()), Int(try u32()))
        guard z <= 30, x < 1 << z, y < 1 << z else { throw .damaged("tile \(z)/\(x)/\(y) is off the grid") }
        return TileCoordinate(z: z, x: x, y: y)
    }

    mutating func digest() throws(TileIndexError) -> TileDigest {
        let high = try u64()
        return TileDigest(high: high, low: try u64())
    }
}
