/// A set of zoom levels (0–31), as bits.
package struct ZoomSet: Sendable, Equatable {
    private(set) var bits: UInt32 = 0

    package init() {}

    package init(_ zooms: some Sequence<Int>) {
        for z in zooms { insert(z) }
    }

    package var isEmpty: Bool { bits == 0 }

    package func contains(_ z: Int) -> Bool { z >= 0 && z < 32 && bits & (1 << UInt32(z)) != 0 }

    package mutating func insert(_ z: Int) {
        guard z >= 0, z < 32 else { return }
        bits |= 1 << UInt32(z)
    }

    /// The zooms, ascending.
    package var zooms: [Int] { (0..<32).filter { contains($0) } }
}

/// What a piece store record decoded with some zooms left in its bytes (`PieceRecord.decode(_:from:leaving:)`)
/// did not decode: where those zooms' blocks are, and the summaries the drop order takes instead of their pieces.
struct StoredParts {
    /// One block left in the record: its zoom, whether it holds label pieces, and its bytes in the record.
    struct Block {
        var zoom: Int8
        var label: Bool
        var bytes: Range<Int>
    }

    var blocks: [Block] = []
    /// The record's `FeatureSummary` of its pieces and of its label pieces, one per tile order (empty: none).
    var summaries: [FeatureSummary] = []
    var labelSummaries: [FeatureSummary] = []

    /// The summary for tile order `order` (nil when there are no such pieces).
    static func summary(_ all: [FeatureSummary], order: Int) -> FeatureSummary? {
        order < all.count ? all[order] : nil
    }
}
