import KartpackCore

/// A hash that takes words and strings: a feature's attributes go into it the same way for its content key
/// (`Hash64`, `FeatureKey`) and for a tile's signature (`TileHasher`, `TileSignature`).
package protocol PropertyHashing {
    mutating func add(_ word: UInt64)
    mutating func add(_ s: String)
}

extension PropertyHashing {
    /// Adds attributes: their count, then each name and typed value.
    package mutating func add(_ properties: Properties) {
        add(UInt64(properties.count))
        for (key, value) in properties {
            add(key)
            switch value {
            case .string(let s):
                add(1)
                add(s)
            case .int(let v):
                add(2)
                add(UInt64(bitPattern: v))
            case .uint(let v):
                add(3)
                add(v)
            case .double(let v):
                add(4)
                add(v.bitPattern)
            case .bool(let b):
                add(b ? 5 : 6)
            case .null:
                add(7)
            }
        }
    }
}

extension Hash64: PropertyHashing {}
extension TileHasher: PropertyHashing {}
