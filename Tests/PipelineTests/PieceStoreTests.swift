import Foundation
import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// The piece store (issue 37): a feature's stored record reads back as the tiling it was made from; the store's
/// key table finds it; a damaged record or table is never used; a store over its limit is not written.
@Suite struct PieceStoreTests {
    private func tiling() -> TiledFeature.Tiling {
        var t = TiledFeature.Tiling(zooms: 3...5)
        let ring = [TilePoint(0, 0), TilePoint(4000, 0), TilePoint(4000, 4000), TilePoint(-70000, 2)]
        t.pieces = [
            TilePiece(tile: TileCoordinate(z: 3, x: 1, y: 2), geometry: .polygons(PieceParts(points: ring))),
            TilePiece(
                tile: TileCoordinate(z: 4, x: 2, y: 4),
                geometry: .dust(SmallFeatureDust(x: 3, y: -4, measure: 1.5, polygon: true, angle: 0.25))),
            TilePiece(tile: TileCoordinate(z: 4, x: 3, y: 4), geometry: .lines(PieceParts(points: ring))),
            TilePiece(
                tile: TileCoordinate(z: 5, x: 6, y: 9),
                geometry: .polygons(PieceParts(points: ring + ring, counts: [4 | 1 << 31, 4]))),
        ]
        t.labelPieces = [TilePiece(tile: TileCoordinate(z: 5, x: 6, y: 9), geometry: .points([TilePoint(7, 8)]))]
        t.repairs = [.makeValid, .gridRepair]
        t.collapsedAt = [3]
        t.bounds = Bounds(minX: -1.5, minY: 2, maxX: 1e7, maxY: 3.25)
        return t
    }

    private func same(_ a: TiledFeature.Tiling, _ b: TiledFeature.Tiling) {
        #expect(a.zooms == b.zooms && a.repairs == b.repairs && a.collapsedAt == b.collapsedAt && a.bounds == b.bounds)
        #expect(a.pieces.map(\.tile) == b.pieces.map(\.tile) && a.pieces.map(\.geometry) == b.pieces.map(\.geometry))
        #expect(a.labelPieces.map(\.geometry) == b.labelPieces.map(\.geometry))
        #expect(b.pieces.allSatisfy { $0.key == 0 && $0.layer == 0 && $0.feature == 0 })
    }

    @Test func aRecordReadsBackAsItsTiling() throws {
        var t = tiling()
        t.surfacePoint = .point(1.25, -3)
        let bytes = PieceRecord.encode(t, style: TileDigest(high: 5, low: 6))
        let (style, back) = try #require(PieceRecord.decode(bytes))
        same(t, back)
        #expect(style == TileDigest(high: 5, low: 6) && back.surfacePoint == .point(1.25, -3))
        #expect(PieceRecord.decode(Array(bytes.dropLast())) == nil)
        #expect(PieceRecord.decode(bytes + [0]) == nil)
    }

    /// A record sealed where it was made (`PieceRecord.encode(checked:)`, on a worker) is the one the writer would
    /// have checked, and the store takes it as it is and reads it back.
    @Test func aRecordSealedOnItsWorkerIsTheWritersCheckedRecord() throws {
        let style = TileDigest(high: 3, low: 4)
        let plain = PieceRecord.encode(tiling(), style: style)
        let sealed = PieceRecord.encode(tiling(), style: style, checked: true)
        #expect(sealed == PieceStoreWriter.checked(plain))
        #expect(Array(sealed[8...]) == plain && PieceStore.check(sealed[8...]) != 0)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = TileDigest(high: 1, low: 2)
        let writer = try PieceStoreWriter(path: dir + "/p.piecestore", settings: settings, limit: 1 << 20)
        writer.append(key: style, checked: sealed)
        #expect(writer.publish())
        let store = try PieceStore(path: dir + "/p.piecestore", settings: settings)
        var damaged = false
        #expect(store.checkedRecord(style, damaged: &damaged) == sealed && !damaged)
        #expect(store.record(style, damaged: &damaged) == plain)
    }

    @Test func theStoreFindsRecordsAndRefusesDamagedOnes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/p.piecestore"
        let settings = TileDigest(high: 1, low: 2)
        let writer = try PieceStoreWriter(path: path, settings: settings, limit: 1 << 20)
        let keys = (0..<50).map { TileDigest(high: UInt64($0 * 7919 % 50), low: UInt64($0)) }
        let record = PieceRecord.encode(tiling(), style: TileDigest(high: 0, low: 0))
        for k in keys { writer.append(key: k, record: record) }
        writer.append(key: keys[3], record: record)  // stored once
        // Feature digests: kept in the order given, each as often as given, with their order by digest.
        let features = [TileDigest(high: 4, low: 1), TileDigest(high: 2, low: 9), TileDigest(high: 4, low: 1)]
        writer.features = features
        writer.records = [7, 3, 50]  // keys[7], keys[3], and the second record of keys[3] (stored once)
        #expect(writer.publish())
        let store = try PieceStore(path: path, settings: settings)
        #expect(store.count == 50)
        #expect(store.features == features)
        #expect(store.byDigest == [1, 0, 2])
        #expect(store.records.map(Int.init) == [store.entry(keys[7]), store.entry(keys[3]), store.entry(keys[3])])
        var none = false
        let back = store.checkedRecord(entry: Int(store.records[1]), damaged: &none)
        #expect(back.map { Array($0[8...]) } == record && !none)
        var damaged = false
        for k in keys { #expect(store.record(k, damaged: &damaged) == record) }
        #expect(store.record(TileDigest(high: 9, low: 9), damaged: &damaged) == nil && !damaged)
        #expect(throws: PieceStoreProblem.self) { try PieceStore(path: path, settings: TileDigest(high: 1, low: 3)) }

        // A flipped bit in a record: that record is refused, the others still read.
        var bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        bytes[PieceStore.magic.count + 4 + 16 + 8 + 20] ^= 1
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let flipped = try PieceStore(path: path, settings: settings)
        let refused = keys.filter { flipped.record($0, damaged: &damaged) == nil }
        #expect(refused.count == 1 && damaged)
        // A flipped bit in the key table or the feature digests: the store is not used.
        var digestFlipped = bytes
        digestFlipped[bytes.count - PieceStore.footerBytes - 3] ^= 1
        _ = FileManager.default.createFile(atPath: path, contents: Data(digestFlipped))
        #expect(throws: PieceStoreProblem.self) { try PieceStore(path: path, settings: settings) }
        bytes[bytes.count - PieceStore.footerBytes - 3 * 4 - 3 * 4 - 3 * 16 - 2] ^= 1
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        #expect(throws: PieceStoreProblem.self) { try PieceStore(path: path, settings: settings) }

        // Over its limit: nothing is written.
        let small = try PieceStoreWriter(path: dir + "/q.piecestore", settings: settings, limit: 4 * record.count)
        for k in keys { small.append(key: k, record: record) }
        #expect(!small.publish() && small.overLimit)
        #expect(!FileManager.default.fileExists(atPath: dir + "/q.piecestore"))
    }

    /// A feature found in last night's digests is unchanged unless another feature of its layer has its rank (such
    /// features are written in input order); the digests are kept beside the features and rolled back with them.
    /// A store sealed on a thread of its own while the tiles are encoded (`sealInBackground`) is the store sealed
    /// at `publish`, byte for byte; discarded instead, it leaves nothing.
    @Test func aStoreSealedInTheBackgroundIsTheStoreSealedAtPublish() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let settings = TileDigest(high: 1, low: 2)
        let record = PieceRecord.encode(tiling(), style: TileDigest(high: 0, low: 0))
        func write(_ name: String, background: Bool, publishing: Bool = true) throws -> PieceStoreWriter {
            let writer = try PieceStoreWriter(path: dir + "/" + name, settings: settings, limit: 1 << 24)
            for k in 0..<2000 {
                writer.append(key: TileDigest(high: UInt64(k) &* 0x9E37_79B9_7F4A_7C15, low: 7), record: record)
            }
            writer.features = (0..<2000).map { TileDigest(high: UInt64($0 % 13), low: UInt64($0)) }
            writer.records = (0..<2000).map { UInt32(1999 - $0) }
            if background { writer.sealInBackground() }
            if publishing { #expect(writer.publish()) } else { writer.discard() }
            return writer
        }
        let inline = try write("a.piecestore", background: false)
        let background = try write("b.piecestore", background: true)
        #expect(inline.bytes == background.bytes && inline.bytes > 0)
        #expect(
            FileManager.default.contents(atPath: dir + "/a.piecestore")
                == FileManager.default.contents(atPath: dir + "/b.piecestore"))
        #expect(try PieceStore(path: dir + "/b.piecestore", settings: settings).count == 2000)
        _ = try write("c.piecestore", background: true, publishing: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.piecestore", "b.piecestore"])
    }

    /// The key table's search (started where a key's high word says, `PieceStore.entry`) finds every key and no
    /// other, whether the keys are spread like digests, bunched at one end, or share their high word.
    @Test(arguments: ["spread", "bunched", "one high word"])
    func everyKeyIsFoundWhereverTheKeysLie(layout: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var state: UInt64 = 99
        func random() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state ^ (state >> 29)
        }
        func key() -> TileDigest {
            switch layout {
            case "spread": return TileDigest(high: random(), low: random())
            case "bunched": return TileDigest(high: random() >> 40 | (random() % 3 == 0 ? .max - 5 : 0), low: random())
            default: return TileDigest(high: 1 << 63, low: random())
            }
        }
        let keys = (0..<3000).map { _ in key() }
        let writer = try PieceStoreWriter(
            path: dir + "/p.piecestore", settings: TileDigest(high: 1, low: 2), limit: 1 << 24)
        let record = PieceRecord.encode(tiling(), style: TileDigest(high: 0, low: 0))
        for k in keys { writer.append(key: k, record: record) }
        #expect(writer.publish())
        let store = try PieceStore(path: dir + "/p.piecestore", settings: TileDigest(high: 1, low: 2))
        let sorted = Set(keys.map { [$0.high, $0.low] }).sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
        #expect(store.count == sorted.count)
        for (i, k) in sorted.enumerated() { #expect(store.entry(TileDigest(high: k[0], low: k[1])) == i) }
        // Keys not in the table: between two keys, before the first, after the last, at the ends of the range.
        var absent = [TileDigest(high: 0, low: 0), TileDigest(high: .max, low: .max)]
        for _ in 0..<2000 { absent.append(key()) }
        for k in sorted.prefix(500) { absent.append(TileDigest(high: k[0], low: k[1] &+ 1)) }
        let present = Set(sorted)
        for k in absent where !present.contains([k.high, k.low]) { #expect(store.entry(k) == nil) }
    }

    @Test func unchangedFeaturesWithASharedRankAreTakenBack() {
        var traits = ThinningTraits()
        let d = (0..<5).map { TileDigest(high: UInt64($0), low: 1) }
        for (i, same) in [true, true, false, true, true].enumerated() {
            traits.append(tier: 0, identity: nil, digest: d[i], unchanged: same)
        }
        let ranks: [UInt64] = [10, 20, 30, 20, 40]
        traits.unmarkSharedRanks { ranks[$0] }
        #expect(traits.unchanged == [true, false, false, false, true])
        #expect(traits.digests == d)
        traits.truncate(to: 2)
        #expect(traits.unchanged == [true, false] && traits.digests == Array(d.prefix(2)))
        // A feature without a digest (no store key) is never unchanged.
        traits.append(tier: 0, identity: nil, digest: nil, unchanged: true)
        #expect(traits.unchanged == [true, false, false] && traits.digests.last == TileDigest(high: 0, low: 0))
    }
}
