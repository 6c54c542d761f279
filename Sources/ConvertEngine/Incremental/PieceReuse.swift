import Foundation
import KartpackCore
import Synchronization
import TileArchive

/// Feature-level reuse for `run`'s incremental builds: last night's piece store (`PieceStore`) is read, and
/// tonight's is written (`PieceStoreWriter`), by the feature phase.
///
/// A feature's record is kept under a key of its geometry as read (every coordinate's bit pattern and its parts)
/// and a digest of its input set's CRS, zooms and clip region, with a digest of the style decisions that reached its
/// pieces (zoom range, class per zoom, label zooms) and the point on surface its style asked for; the store as a
/// whole is tied to the tiling settings, the Kartpack version and `OutputFormat.version`. A feature whose key is in
/// last night's store and whose style decisions tonight (`FeatureChain.style`, with the stored point against
/// tonight's ancestor polygons) have the stored digest is not reprojected, repaired or tiled: its record is read
/// back (checked) and handed on exactly as tiling would have made it. A missing, damaged or other-settings store, a
/// damaged record, a re-classified feature or a range shard: the features are tiled as always.
package final class PieceReuse: @unchecked Sendable {
    /// Where the store lives (`PieceStore.path(forPackage:)`).
    package let path: String
    /// Whether last night's store is read (false for `--full`: it is written only).
    private let readLast: Bool
    /// The store's largest size (`PieceReuse.limit`).
    package let limit: Int
    private var store: PieceStore?
    private var writer: PieceStoreWriter?
    /// Each set's digest, with its context (held, so that no other context can take its address).
    private let sets = Mutex<[ObjectIdentifier: (SetContext, TileDigest)]>([:])

    /// Why no feature could be read back (nil when last night's store was used).
    package private(set) var unusedReason: String?
    /// Last night's feature digests (`featureDigest`, in the package's order) as tonight's features take them
    /// (`claim`).
    private var claims = FeatureClaims()
    /// The zooms whose pieces a reused feature leaves in the store (`LazyPieces`; set by `run` from last night's
    /// tile index), and whether they are decoded all the same to check the rule (`KARTPACK_CHECK_UNSIGNED`).
    package var lazyZooms = ZoomSet()
    package var checkingLazy = false
    /// The tile extent (for the records' `FeatureSummary`s).
    private var extent = 4096
    /// Features read back from the store, tiled tonight, and records found damaged (those features were tiled).
    package private(set) var reused = 0
    package private(set) var tiled = 0
    package private(set) var damaged = 0

    /// The largest store a build with memory budget `budget` writes: four times the budget (1 GiB at the default
    /// 256 MiB). A store that would be larger is not written (the next night tiles every feature).
    package static func limit(memoryBudget budget: Int) -> Int { 4 * budget }

    /// The reuse of a build into `packagePath`; `readLast` false: the store is only written (`--full`).
    package init(packagePath: String, readLast: Bool, limit: Int) {
        path = PieceStore.path(forPackage: packagePath)
        self.readLast = readLast
        self.limit = limit
        if !readLast { unusedReason = "--full was given" }
    }

    /// The outcome of one feature on a worker.
    package struct Outcome: Sendable {
        package var feature: TiledFeature
        var key: TileDigest?
        /// Its piece store record with the record's check before it (`PieceStore.checkedRecord`).
        var record: [UInt8]?
        /// Read back: what of the record was left undecoded (`lazyZooms`), and its entry in last night's store.
        var left: StoredParts?
        var entry = 0
        var reused = false
        var damaged = false
    }

    /// Opens last night's store and starts tonight's, for features tiled with `tiling`; a range shard uses none.
    func begin(_ tiling: TilingParameters) {
        // A range shard's pieces are partial (none below its zooms, `firstPieceZoom`): never stored or read.
        guard tiling.shardFootprint == nil, tiling.firstPieceZoom == nil, tiling.skippedZooms == nil else {
            unusedReason = "a range shard keeps no piece store"
            return
        }
        (reused, tiled, damaged) = (0, 0, 0)
        extent = tiling.extent
        let settings = Self.settingsDigest(tiling)
        if readLast {
            do throws(PieceStoreProblem) {
                let opened = try PieceStore(path: path, settings: settings)
                store = opened
                claims = FeatureClaims(digests: opened.features, byDigest: opened.byDigest)
            } catch {
                unusedReason = error.reason
            }
        }
        writer = try? PieceStoreWriter(path: path, settings: settings, limit: limit)
    }

    /// Everything of the tiling and of the build that reaches a feature's pieces.
    static func settingsDigest(_ t: TilingParameters) -> TileDigest {
        var h = TileHasher()
        h.add(Int(PieceStore.version))
        h.add(text: Kartpack.version)
        h.add(OutputFormat.version)
        for v in [t.minZoom, t.maxZoom, t.extent] { h.add(v) }
        for v in [t.buffer, t.simplify, t.smallFeatureSize] { h.add(v.bitPattern) }
        h.add(t.sharedBorders ? 1 : 0)
        h.add(t.smallFeatures ? 1 : 0)
        return h.finish()
    }

    /// The digest of a set's CRS, zooms and clip region.
    private func digest(_ ctx: SetContext) -> TileDigest {
        let id = ObjectIdentifier(ctx)
        if let known = sets.withLock({ $0[id] }), known.0 === ctx { return known.1 }
        var h = TileHasher()
        h.add(text: ctx.crs.definition)
        h.add(text: ctx.crs.name)
        h.add(ctx.crs.epsg ?? -1)
        h.add(ctx.zooms.lowerBound)
        h.add(ctx.zooms.upperBound)
        h.add(ctx.clip?.geometries.count ?? -1)
        for g in ctx.clip?.geometries ?? [] { Self.add(g, to: &h) }
        let d = h.finish()
        sets.withLock { $0[id] = (ctx, d) }
        return d
    }

    private static func add(_ g: Geometry, to h: inout TileHasher) {
        h.add(GeometryKind.allCases.firstIndex(of: g.kind) ?? -1)
        h.add(g.xy.count)
        for v in g.xy { h.add(v.bitPattern) }
        h.add(g.partStarts.count)
        for s in g.partStarts { h.add(Int(s)) }
        h.add(g.polygonStarts.count)
        for s in g.polygonStarts { h.add(Int(s)) }
    }

    /// The key of a feature of a set with digest `set`: its geometry as read.
    static func key(_ job: FeatureJob, set: TileDigest) -> TileDigest {
        var h = TileHasher()
        h.add(set.high)
        h.add(set.low)
        add(job.feature.geometry, to: &h)
        return h.finish()
    }

    /// The digest of the style decisions that reach a feature's pieces: zoom range, class per zoom, label zooms.
    static func styleDigest(_ styled: StyledFeature?) -> TileDigest {
        var h = TileHasher()
        guard let styled else {
            h.add(0)
            return h.finish()
        }
        h.add(1)
        h.add(styled.zooms.lowerBound)
        h.add(styled.zooms.upperBound)
        h.add(styled.classes.count)
        for c in styled.classes {
            if let c { h.add(text: c) } else { h.add(-1) }
        }
        h.add(styled.labelled.count)
        for l in styled.labelled { h.add(l ? 1 : 0) }
        return h.finish()
    }

    /// One feature on a worker: read back from last night's store when its geometry is there and tonight's style
    /// decisions are those it was tiled with, else through `chain` (and encoded for tonight's store).
    func process(_ job: FeatureJob, chain: FeatureChain) -> Outcome {
        guard writer != nil || store != nil else { return Outcome(feature: chain.process(job)) }
        let set = digest(job.context)
        let key = Self.key(job, set: set)
        var damaged = false
        if let store, let entry = store.entry(key), let bytes = store.checkedRecord(entry: entry, damaged: &damaged) {
            let leaving = checkingLazy ? ZoomSet() : lazyZooms
            if let decoded = PieceRecord.decode(bytes, from: 8, leaving: leaving) {
                if let now = try? chain.style(job, surface: decoded.tiling.surfacePoint),
                    Self.styleDigest(now.styled) == decoded.style
                {
                    var tiling = decoded.tiling
                    tiling.styled = now.styled
                    tiling.warnings = now.warnings
                    return Outcome(
                        feature: .tiled(tiling), key: key, record: bytes, left: decoded.left, entry: entry, reused: true
                    )
                }
            } else {
                damaged = true
            }
        }
        let result = chain.process(job)
        guard writer != nil, case .tiled(let t) = result, t.surfacePoint != .failed else {
            return Outcome(feature: result, damaged: damaged)
        }
        return Outcome(
            feature: result, key: key,
            record: PieceRecord.encode(t, style: Self.styleDigest(t.styled), extent: extent, checked: true),
            damaged: damaged)
    }

    /// Counts one outcome and adds its record to tonight's store (on the thread that collects the results, in
    /// input order); returns the record's place among those appended (`PieceStoreWriter.records`).
    @discardableResult
    func record(_ o: Outcome) -> UInt32? {
        if o.reused { reused += 1 } else { tiled += 1 }
        if o.damaged { damaged += 1 }
        guard let key = o.key, let record = o.record, let writer else { return nil }
        let place = writer.appended
        writer.append(key: key, checked: record)
        return writer.appended > place ? UInt32(truncatingIfNeeded: place) : nil
    }

    /// What makes a feature's pieces and record in its output layer `layer` (`label`: its label point in the
    /// layer's `_labels` layer): its store key (geometry as read, set), its style decisions (`styleDigest`) and its
    /// record (id, rank, attributes, classes and match flags). Two features with one digest have the same pieces
    /// and write the same things at every zoom (`TileReuse`: a tile made only of features found in last night's
    /// digests, as many pieces as last night, has last night's signature).
    static func featureDigest(
        key: TileDigest, style: TileDigest, layer: String, label: Bool, record r: FeatureRecord
    ) -> TileDigest {
        var h = TileHasher()
        for w in [key.high, key.low, style.high, style.low] { h.add(w) }
        h.add(text: layer)
        h.add(label ? 1 : 0)
        h.add(r.id ?? 0)
        h.add(r.id == nil ? 0 : 1)
        h.add(r.rank)
        h.add(r.properties)
        h.add(r.classBaseZoom)
        h.add(r.classes.count)
        for c in r.classes {
            if let c { h.add(text: c) } else { h.add(-1) }
        }
        h.add(r.flags.count)
        for f in r.flags {
            h.add(f.count)
            for k in f { h.add(text: k) }
        }
        return h.finish()
    }

    /// Whether last night's package had a feature with digest `d` (`featureDigest`) not yet taken by another of
    /// tonight's features: each of last night's features is taken once, so the features found are as many as
    /// last night had (on the thread that collects the results, in input order). `layer`: the feature's output
    /// layer. Last night's digests are in the package's order, so an unchanged feature is usually the one after
    /// the last found in its layer (a sequential check); otherwise it is looked up by digest (`byDigest`), and
    /// the layer's next expected digest follows the one found. Which of several equal digests is taken does not
    /// change any answer.
    func claim(_ d: TileDigest, layer: Int) -> Bool { claims.claim(d, layer: layer) }

    /// Whether last night's store is read.
    var readsLast: Bool { store != nil }

    /// Whether features are looked up in last night's digests and written into tonight's (`featureDigest`).
    var tracksFeatures: Bool { writer != nil || !claims.isEmpty }

    /// Features (output layer features: a label point counts apart) last night's package had as they are
    /// (`claim`), with a rank of their own in their layer.
    package private(set) var unchanged = 0

    /// Tonight's feature digests (every feature of the package) with their records' keys, for tonight's store, and
    /// how many features are `unchanged`.
    func keep(features: [TileDigest], records: [UInt32], unchanged: Int) {
        self.unchanged = unchanged
        writer?.features = features
        writer?.records = records
        claims = FeatureClaims()
    }

    /// Every record is in (after `keep`): tonight's store is sealed on a thread of its own while the tiles are
    /// encoded (`PieceStoreWriter.sealInBackground`). Called once the feature phase's memory is given back (its key
    /// table and sorted digests take ~90 bytes a feature for a moment).
    package func sealInBackground() { writer?.sealInBackground() }

    /// The key table entries of the records of last night's features no feature of tonight's took (`claim`),
    /// before `keep`.
    func unclaimedRecords() -> [Int]? {
        guard let store else { return nil }
        return claims.unclaimed.map { Int(store.records[$0]) }
    }

    /// Last night's record at entry `entry` of its key table (with its check before it), nil when it cannot be
    /// read back or is damaged.
    func storedRecord(entry: Int) -> [UInt8]? {
        var damaged = false
        return store?.checkedRecord(entry: entry, damaged: &damaged)
    }

    /// What happened to tonight's store once the build is over: published next to the package (its size), or
    /// why not.
    package func finish(published: Bool) -> (bytes: Int, problem: String?) {
        store = nil
        sets.withLock { $0 = [:] }
        guard let writer else { return (0, unusedReason ?? "no piece store was written") }
        self.writer = nil
        guard published else {
            writer.discard()
            return (0, "the package was not published")
        }
        if writer.publish() { return (writer.bytes, nil) }
        _ = unlink(path)
        if writer.overLimit { return (0, "the piece store would be larger than its limit of \(limit) bytes") }
        return (0, "the piece store could not be written")
    }
}
