import KartpackCore

/// The tags of the feature an `MVTLayerBuilder` is adding, and the layer's key and value tables they index.
///
/// `MVTLayerBuilder.addFeature(id:type:geometry:tags:)` hands it to its caller to add the feature's properties one
/// by one, in order: a string value may be given as its UTF-8 bytes (`add(_:utf8:)`), without making a `String`.
/// The rules are those of `MVTLayerBuilder` (keys by UTF-8 bytes, values by wire encoding, first-use order; nulls
/// and repeated keys left out and counted).
public struct MVTFeatureTags: Sendable {
    /// The key table, in first-use order.
    private(set) var keys: [String] = []
    /// The value table (encoded `Value` message bodies), in first-use order.
    private(set) var values = MVTValueTable()
    private(set) var nullsOmitted = 0
    private(set) var duplicateKeysOmitted = 0
    /// The current feature's tags (key index, value index, …).
    private(set) var tags: [UInt32] = []

    private var keyIndex: [[UInt8]: UInt32] = [:]
    /// Per key index, the feature that last used it (`stamp`).
    private var seenKeys: [Int] = []
    /// Per property position, the key index the feature before had there: a layer's features mostly repeat their
    /// keys in the same order, so a key is usually found by one byte comparison, without hashing or allocating.
    private var keyAtPosition: [UInt32] = []
    /// Per caller key number (`add(_:number:_:)`), its key index + 1 (0: not seen yet).
    private var numbered: [UInt32] = []
    /// The current feature's number (from 1) and the position of its next property.
    private var stamp = 0
    private var position = 0

    init() {}

    /// Starts feature number `stamp` (from 1, one more each feature).
    mutating func begin(feature stamp: Int) {
        self.stamp = stamp
        position = 0
        tags.removeAll(keepingCapacity: true)
    }

    /// Adds the next property (`.null` is left out and counted). `number`, when given, is the caller's number for
    /// `key`, the same for the same bytes in every call to this layer: the key is then found by it, not compared.
    public mutating func add(_ key: String, number: Int? = nil, _ value: PropertyValue) {
        if value.isNull {
            nullsOmitted += 1
            position += 1
            return
        }
        guard let k = newKey(key, number: number) else { return }
        let v = values.index { w in
            switch value {
            case .string(let s): w.writeStringField(1, s)
            case .double(let d): w.writeFixed64Field(3, d.bitPattern)
            case .uint(let u): w.writeVarintField(5, u)
            case .int(let i) where i >= 0: w.writeVarintField(5, UInt64(i))
            case .int(let i): w.writeSignedVarintField(6, i)
            case .bool(let b): w.writeVarintField(7, b ? 1 : 0)
            case .null: break  // Never reached: nulls are left out above.
            }
        }
        tags.append(k)
        tags.append(v)
    }

    /// Adds the next property, a string value given by its UTF-8 bytes (which must be valid UTF-8); `number` as
    /// in `add(_:number:_:)`.
    public mutating func add(_ key: String, number: Int? = nil, utf8 value: UnsafeBufferPointer<UInt8>) {
        guard let k = newKey(key, number: number) else { return }
        let v = values.index { w in w.writeBytesField(1, value) }
        tags.append(k)
        tags.append(v)
    }

    /// The index of `key`, the current position's, moving to the next position; nil (counted) when the feature
    /// already has the key.
    private mutating func newKey(_ key: String, number: Int?) -> UInt32? {
        let k: UInt32
        if let number, number < numbered.count, numbered[number] != 0 {
            k = numbered[number] - 1
        } else {
            k = internKey(key, at: position)
            if let number {
                if numbered.count <= number {
                    numbered.append(contentsOf: repeatElement(0, count: number + 1 - numbered.count))
                }
                numbered[number] = k + 1
            }
        }
        position += 1
        if seenKeys.count <= Int(k) {
            seenKeys.append(contentsOf: repeatElement(0, count: Int(k) + 1 - seenKeys.count))
        }
        if seenKeys[Int(k)] == stamp {
            duplicateKeysOmitted += 1
            return nil
        }
        seenKeys[Int(k)] = stamp
        return k
    }

    /// The index of `key` (the `position`-th property of its feature), added to the table on first use.
    private mutating func internKey(_ key: String, at position: Int) -> UInt32 {
        if position < keyAtPosition.count {
            let guess = keyAtPosition[position]
            if Self.sameBytes(keys[Int(guess)], key) { return guess }
        } else {
            keyAtPosition.append(contentsOf: repeatElement(0, count: position + 1 - keyAtPosition.count))
        }
        let bytes = Array(key.utf8)
        let i: UInt32
        if let known = keyIndex[bytes] {
            i = known
        } else {
            i = UInt32(truncatingIfNeeded: keys.count)
            keys.append(key)
            keyIndex[bytes] = i
        }
        keyAtPosition[position] = i
        return i
    }

    /// True when `a` and `b` have the same UTF-8 bytes (not Swift's canonical equivalence).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in pa.elementsEqual(pb) }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }
}
