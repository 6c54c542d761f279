import KartpackCore
import KartpackJSON

/// What a shard part says about each feature it wrote, so that the merge can complete the package metadata's counts
/// of the zooms the metadata shard made no pieces at (`ShardZooms.metadataSkippedZooms`).
///
/// The metadata shard tiles a feature only at the thinned zooms it encodes and at the feature's highest zoom (its
/// anchor in the drop order, `collapsed_at_max_zoom`). Two counts of the metadata also depend on the zooms between:
/// the repairs of a feature found at any zoom (`repaired`, once per kind) and the zooms where nothing of it is left
/// (`classes_by_zoom` leaves it out there). The range shards tile those zooms (each feature it holds, at every tile
/// from its lowest zoom up, the one-machine build's pieces bit for bit), so each part notes per feature the repair
/// kinds and collapsed zooms it found, and the metadata shard's part notes per feature what it counted (its own
/// repairs, its output layer, its class per zoom). The merge joins them (`completed(_:with:)`): the repair kinds
/// are OR-ed, the collapsed zooms taken from a part that tiled the zoom, and a feature at a zoom no part tiled
/// refuses the merge.
package struct ShardFeatureNotes: Sendable, Equatable {
    /// One written feature.
    package struct Note: Sendable, Equatable {
        /// Index into `inputs` (input keys, `inputKey`).
        package var input: UInt32
        /// The record number in its input (`FeatureProvenance.record`).
        package var record: Int
        /// Indexes into `kinds`: the repairs found (every zoom this part tiled and the feature's own).
        package var repairs: [UInt8]
        /// Zooms at which nothing of the feature was left (of the zooms this part tiled).
        package var collapsed: [UInt8]
        /// The metadata shard's notes only: index into `layers` (the output layer), the feature's zooms, and its
        /// class per zoom from `base` (0: none, i + 1: `classes[i]`).
        package var layer: UInt32 = 0
        package var base: UInt8 = 0
        package var top: UInt8 = 0
        package var classes: [UInt32] = []
    }

    /// True in the metadata shard's part.
    package var holdsMetadata: Bool
    /// The lowest zoom this part tiled every feature at (a range shard's `firstPieceZoom`); the zooms from it up
    /// to each feature's highest were tiled. The metadata shard: its `minZoom`.
    package var lowestZoom: Int
    /// The metadata shard: the zooms it made no pieces at below a feature's highest (empty in the others).
    package var skippedZooms: [Int]
    package private(set) var notes: [Note] = []
    package private(set) var inputs: [String] = []
    package private(set) var kinds: [ReasonCode] = []
    package private(set) var layers: [String] = []
    package private(set) var classes: [String] = []
    private var inputIndex: [String: UInt32] = [:]
    private var kindIndex: [ReasonCode: UInt8] = [:]
    private var layerIndex: [String: UInt32] = [:]
    private var classIndex: [String: UInt32] = [:]

    package init(holdsMetadata: Bool, lowestZoom: Int, skippedZooms: [Int]) {
        self.holdsMetadata = holdsMetadata
        self.lowestZoom = lowestZoom
        self.skippedZooms = skippedZooms
    }

    /// The notes a conversion's shard keeps, or nil when its merge needs none: one-shard plans, plans whose split
    /// zoom is the max zoom (the metadata shard then tiles every zoom it needs), a metadata shard that skips no zoom.
    package init?(options o: ConvertOptions) {
        guard let shard = o.shard, o.minZoom <= o.maxZoom, shard.splitZoom < o.maxZoom else { return nil }
        let zooms = ShardZooms(tiles: shard.tiles, splitZoom: shard.splitZoom, order: o.format.tileOrder)
        guard !zooms.coversAll else { return nil }
        if shard.holdsMetadata {
            guard let skipped = ShardZooms.metadataSkippedZooms(options: o) else { return nil }
            self.init(holdsMetadata: true, lowestZoom: o.minZoom, skippedZooms: skipped)
        } else {
            self.init(
                holdsMetadata: false, lowestZoom: ShardZooms.firstPieceZoom(options: o) ?? o.minZoom, skippedZooms: [])
        }
    }

    /// The key of an input in the notes: its layer name (the metadata's `inputs` member), then U+0001 and its
    /// file's path as the plan's command line gives it (two inputs of one name stay apart).
    package static func inputKey(name: String, path: String) -> String { name + "\u{1}" + path }

    /// The layer name in an input key (`inputKey`).
    package static func inputName(_ key: String) -> String {
        String(key.split(separator: "\u{1}", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }

    /// Notes one written feature of input `input` (`inputKey`). `layer` and `classes` (per zoom from
    /// `zooms.lowerBound`) are kept in the metadata shard's notes only.
    package mutating func add(
        input: String, record: Int, repairs: Set<ReasonCode>, collapsedAt: [Int], layer: String,
        zooms: ClosedRange<Int>,
        classes: [String?]
    ) {
        var note = Note(
            input: Self.index(input, in: &inputs, &inputIndex), record: record,
            repairs: repairs.sorted().map { Self.index($0, in: &kinds, &kindIndex) },
            collapsed: collapsedAt.sorted().map { UInt8(clamping: $0) })
        if holdsMetadata {
            note.layer = Self.index(layer, in: &layers, &layerIndex)
            note.base = UInt8(clamping: zooms.lowerBound)
            note.top = UInt8(clamping: zooms.upperBound)
            note.classes = classes.map { c in c.map { Self.index($0, in: &self.classes, &classIndex) + 1 } ?? 0 }
        }
        notes.append(note)
    }

    private static func index<K: Hashable, I: FixedWidthInteger>(_ k: K, in list: inout [K], _ map: inout [K: I]) -> I {
        if let i = map[k] { return i }
        let i = I(list.count)
        list.append(k)
        map[k] = i
        return i
    }
}

// MARK: Bytes

extension ShardFeatureNotes {
    /// The notes as a part file holds them: u32 length and a JSON header (the tables), then u64 note count and per
    /// note u32 input, u64 record, u8 n + n repair kinds, u8 n + n zooms, and in the metadata shard's notes u32
    /// layer, u8 base, u8 top, u8 n + n u32 classes.
    package var bytes: [UInt8] {
        let header = JSONValue.object([
            ("holdsMetadata", .bool(holdsMetadata)), ("lowestZoom", .int(Int64(lowestZoom))),
            ("skippedZooms", .array(skippedZooms.map { .int(Int64($0)) })),
            ("inputs", .array(inputs.map { .string($0) })), ("kinds", .array(kinds.map { .string($0.rawValue) })),
            ("layers", .array(layers.map { .string($0) })), ("classes", .array(classes.map { .string($0) })),
        ])
        let text = Array(JSONWriter.text(header, format: .compact).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 12 + notes.count * 16)
        ShardPart.append(UInt32(text.count), to: &out)
        out += text
        ShardPart.append(UInt64(notes.count), to: &out)
        for n in notes {
            ShardPart.append(n.input, to: &out)
            ShardPart.append(UInt64(n.record), to: &out)
            out.append(UInt8(n.repairs.count))
            out += n.repairs
            out.append(UInt8(n.collapsed.count))
            out += n.collapsed
            guard holdsMetadata else { continue }
            ShardPart.append(n.layer, to: &out)
            out += [n.base, n.top, UInt8(clamping: n.classes.count)]
            for c in n.classes.prefix(255) { ShardPart.append(c, to: &out) }
        }
        return out
    }

    /// Reads `bytes`; nil when they are not notes.
    package init?(bytes: [UInt8]) {
        var at = 0
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, bytes.count - at >= n else { return nil }
            defer { at += n }
            return bytes[at..<at + n]
        }
        func int<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            take(MemoryLayout<T>.size).map { ShardPartReader.integer($0, as: T.self) }
        }
        func strings(_ v: JSONValue?) -> [String]? {
            v?.arrayValue.flatMap { a in
                let s = a.compactMap(\.stringValue)
                return s.count == a.count ? s : nil
            }
        }
        guard let length = int(UInt32.self), let text = take(Int(length)),
            let header = try? JSONParser.parse(Array(text)), let holds = header["holdsMetadata"],
            let lowest = header["lowestZoom"]?.intValue, let skipped = header["skippedZooms"]?.arrayValue,
            let inputs = strings(header["inputs"]), let kindNames = strings(header["kinds"]),
            let layers = strings(header["layers"]), let classes = strings(header["classes"])
        else { return nil }
        let kinds = kindNames.compactMap(ReasonCode.init(rawValue:))
        guard kinds.count == kindNames.count else { return nil }
        self.init(
            holdsMetadata: holds == .bool(true), lowestZoom: Int(lowest),
            skippedZooms: skipped.compactMap { $0.intValue.map { Int($0) } })
        (self.inputs, self.kinds, self.layers, self.classes) = (inputs, kinds, layers, classes)
        guard let count = int(UInt64.self) else { return nil }
        for _ in 0..<count {
            guard let input = int(UInt32.self), input < inputs.count, let record = int(UInt64.self),
                let nr = int(UInt8.self), let repairs = take(Int(nr)), let nc = int(UInt8.self),
                let collapsed = take(Int(nc)), repairs.allSatisfy({ Int($0) < kinds.count })
            else { return nil }
            var note = Note(input: input, record: Int(record), repairs: Array(repairs), collapsed: Array(collapsed))
            if holdsMetadata {
                guard let layer = int(UInt32.self), layer < layers.count, let base = int(UInt8.self),
                    let top = int(UInt8.self), let n = int(UInt8.self)
                else { return nil }
                (note.layer, note.base, note.top) = (layer, base, top)
                for _ in 0..<n {
                    guard let c = int(UInt32.self), c <= classes.count else { return nil }
                    note.classes.append(c)
                }
            }
            notes.append(note)
        }
        guard at == bytes.count else { return nil }
    }

    package static func == (a: ShardFeatureNotes, b: ShardFeatureNotes) -> Bool {
        a.holdsMetadata == b.holdsMetadata && a.lowestZoom == b.lowestZoom && a.skippedZooms == b.skippedZooms
            && a.notes == b.notes && a.inputs == b.inputs && a.kinds == b.kinds && a.layers == b.layers
            && a.classes == b.classes
    }
}
