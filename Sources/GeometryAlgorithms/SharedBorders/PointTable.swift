/// A hash map from a 64-bit key (a packed `TilePoint`, or two point ids) to a dense id, numbered in first-insertion
/// order: open addressing with linear probing and a multiplicative hash.
///
/// It replaces `Dictionary<TilePoint, …>` on the hot paths of shared-border simplification (SipHash on every
/// lookup was a quarter of the run time). Nothing iterates it, so results do not depend on its layout.
struct PointTable {
    private var keys: [UInt64]
    private var ids: [Int32]
    private var mask: Int
    private var shift: UInt64
    /// Keys inserted so far; also the next id.
    private(set) var count = 0

    /// A table sized for about `capacity` keys.
    init(capacity: Int) {
        var size = 16
        var bits: UInt64 = 4
        while size < 2 * max(1, capacity) {
            size *= 2
            bits += 1
        }
        keys = [UInt64](repeating: 0, count: size)
        ids = [Int32](repeating: -1, count: size)
        mask = size - 1
        shift = 64 - bits
    }

    /// The key of a point.
    @inline(__always)
    static func key(_ p: TilePoint) -> UInt64 {
        UInt64(UInt32(bitPattern: p.x)) << 32 | UInt64(UInt32(bitPattern: p.y))
    }

    /// The key of an ordered pair of ids.
    @inline(__always)
    static func key(_ a: Int32, _ b: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: a)) << 32 | UInt64(UInt32(bitPattern: b))
    }

    /// The home slot of `key`: the hash's top bits (`shift` is 64 − log2 of the size, in 1...60, so the masking
    /// shift is the plain one without its checks).
    @inline(__always)
    private func slot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> shift) }

    /// The id of `key`, or nil.
    func id(_ key: UInt64) -> Int32? {
        var s = slot(key)
        while ids[s] >= 0 {
            if keys[s] == key { return ids[s] }
            s = (s + 1) & mask
        }
        return nil
    }

    /// The id of `key`, inserting it with the next id when new; `inserted` tells which.
    @discardableResult
    mutating func insert(_ key: UInt64) -> (id: Int32, inserted: Bool) {
        var s = slot(key)
        while ids[s] >= 0 {
            if keys[s] == key { return (ids[s], false) }
            s = (s + 1) & mask
        }
        let id = Int32(count)
        keys[s] = key
        ids[s] = id
        count += 1
        if 2 * count > keys.count { grow() }
        return (id, true)
    }

    private mutating func grow() {
        let oldKeys = keys, oldIds = ids
        keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
        ids = [Int32](repeating: -1, count: oldKeys.count * 2)
        mask = keys.count - 1
        shift -= 1
        for (k, id) in zip(oldKeys, oldIds) where id >= 0 {
            var s = slot(k)
            while ids[s] >= 0 { s = (s + 1) & mask }
            keys[s] = k
            ids[s] = id
        }
    }
}
