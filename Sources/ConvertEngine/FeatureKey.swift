import KartpackCore

/// The stable key of a feature: what orders it in its tiles and breaks every thinning tie, so the same set of
/// features in any record order gives the same package (docs/convert.md, *Record order*).
///
/// - The **content key** (`content`): a 64-bit hash of the geometry as read (kind, parts, every coordinate's
///   bits) and the attributes as read (names, types, values), in the file's field order. Two records share it only
///   when they are the same feature (or, with probability 2⁻⁶⁴, by chance).
/// - The **rank** (`rank`), the key itself: with an id field (`--id-field`), the high 40 bits a hash of the layer
///   name and the id and the low 24 bits of the content key (so an edited feature keeps its place, and two
///   features with one id are still told apart by their content); without one, a hash of the layer name and the
///   content key. Features with equal ranks (the very same feature twice) fall back to input order.
package enum FeatureKey {
    /// The content key of a feature as read.
    package static func content(_ geometry: Geometry, _ properties: Properties) -> UInt64 {
        var h = Hash64()
        h.add(UInt64(GeometryKind.allCases.firstIndex(of: geometry.kind) ?? 0))
        h.add(UInt64(geometry.xy.count))
        for v in geometry.xy { h.add(v.bitPattern) }
        h.add(UInt64(geometry.partStarts.count))
        for s in geometry.partStarts { h.add(UInt64(UInt32(bitPattern: s))) }
        h.add(UInt64(geometry.polygonStarts.count))
        for s in geometry.polygonStarts { h.add(UInt64(UInt32(bitPattern: s))) }
        h.add(properties)
        return h.value
    }

    /// The rank of a feature of output layer `layer`: from its id when the layer takes ids from a field, else from
    /// its content key (see the type).
    static func rank(layer: String, id: UInt64?, content: UInt64) -> UInt64 {
        let salt = layerSalt(layer)
        guard let id else { return FeatureRank.mix(content ^ salt) }
        let high: UInt64 = ~0xFF_FFFF
        return FeatureRank.mix(id ^ salt) & high | content & ~high
    }

    /// A hash of the layer name's UTF-8 bytes: the same feature in two layers gets two ranks.
    static func layerSalt(_ name: String) -> UInt64 {
        var h = Hash64()
        h.add(name)
        return h.value
    }
}

/// A 64-bit hash of a sequence of words and strings (multiply–xorshift per word, SplitMix64 finalizer): fixed
/// across runs and hosts, unlike `Hasher`.
package struct Hash64 {
    private var state: UInt64 = 0x243F_6A88_85A3_08D3

    @inline(__always)
    package mutating func add(_ word: UInt64) {
        state = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
        state ^= state >> 29
    }

    /// The string's UTF-8 bytes, eight to a word, then its length.
    package mutating func add(_ s: String) {
        var word: UInt64 = 0
        var n = 0
        for b in s.utf8 {
            word = word << 8 | UInt64(b)
            n += 1
            if n & 7 == 0 {
                add(word)
                word = 0
            }
        }
        add(word)
        add(UInt64(n))
    }

    package var value: UInt64 { FeatureRank.mix(state) }
}
