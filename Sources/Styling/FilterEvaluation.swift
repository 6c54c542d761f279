import KartpackCore

extension AttributeFilter.Test {
    /// Whether a feature's value (nil when the feature lacks the attribute) passes the test.
    @inline(__always)
    func matches(_ value: PropertyValue?) -> Bool {
        switch self {
        case .present:
            guard let value else { return false }
            return !value.isNull
        case .null:
            guard let value else { return true }
            return value.isNull
        case .compare(let op, let literal):
            guard let value, let order = typedOrder(value, literal) else { return op == .notEqual }
            return op.holds(order)
        case .prefix(let p):
            guard case .string(let s)? = value else { return false }
            return s.unicodeScalars.starts(with: p.unicodeScalars)
        case .suffix(let p):
            guard case .string(let s)? = value else { return false }
            return s.unicodeScalars.reversed().starts(with: p.unicodeScalars.reversed())
        case .contains(let p):
            guard case .string(let s)? = value else { return false }
            return p.isEmpty || containsScalars(s, p)
        case .regex(let r):
            guard case .string(let s)? = value else { return false }
            return r.matches(s)
        }
    }
}

/// Three-way typed comparison of an attribute value with a filter literal; nil when they do not compare (different
/// kinds, null, NaN). For booleans only equality is meaningful: 0 when equal, 1 when not.
@inline(__always)
func typedOrder(_ value: PropertyValue, _ literal: FilterValue) -> Int? {
    switch literal {
    case .number(let n):
        switch value {
        case .int(let i):
            if let e = n.integer { return i < e ? -1 : (i > e ? 1 : 0) }
            return compareDoubles(Double(i), n.value)
        case .uint(let u):
            if let e = n.integer {
                if e < 0 { return 1 }
                let ue = UInt64(e)
                return u < ue ? -1 : (u > ue ? 1 : 0)
            }
            return compareDoubles(Double(u), n.value)
        case .double(let d):
            return compareDoubles(d, n.value)
        case .string(let s):
            guard let d = parseDecimal(s[...]) else { return nil }
            return compareDoubles(d, n.value)
        case .bool, .null:
            return nil
        }
    case .text(let t):
        guard case .string(let s) = value else { return nil }
        return compareCodeUnits(s, t)
    case .bool(let b):
        guard case .bool(let v) = value else { return nil }
        return v == b ? 0 : 1
    }
}

/// Three-way comparison of two texts code unit by code unit (UTF-16), without Unicode normalization: the order and
/// equality JavaScript (and so a MapLibre client) uses, so that a filter means the same in Kartpack and the client.
func compareCodeUnits(_ a: String, _ b: String) -> Int {
    var i = a.utf16.makeIterator()
    var j = b.utf16.makeIterator()
    while true {
        switch (i.next(), j.next()) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
        }
    }
}

/// True when `needle`'s scalars occur in a row in `text` (no Unicode normalization).
func containsScalars(_ text: String, _ needle: String) -> Bool {
    let t = Array(text.unicodeScalars)
    let n = Array(needle.unicodeScalars)
    guard n.count <= t.count else { return false }
    for start in 0...(t.count - n.count) where t[start] == n[0] {
        if t[start..<(start + n.count)].elementsEqual(n) { return true }
    }
    return false
}

@inline(__always)
private func compareDoubles(_ a: Double, _ b: Double) -> Int? {
    if a < b { return -1 }
    if a > b { return 1 }
    if a == b { return 0 }
    return nil
}

/// True when `key` equals `lowercasedName` ignoring case. ASCII names compare byte by byte without allocating;
/// names with non-ASCII characters fall back to Unicode lower-casing.
@inline(__always)
func equalsIgnoringCase(_ key: String, lowercased name: String) -> Bool {
    var a = key.utf8.makeIterator()
    var b = name.utf8.makeIterator()
    while true {
        switch (a.next(), b.next()) {
        case (nil, nil):
            return true
        case (let x?, let y?):
            if x >= 0x80 || y >= 0x80 { return key.lowercased() == name }
            let lx = (0x41...0x5A).contains(x) ? x + 32 : x
            if lx != y { return hasNonASCII(key) || hasNonASCII(name) ? key.lowercased() == name : false }
        default:
            return hasNonASCII(key) || hasNonASCII(name) ? key.lowercased() == name : false
        }
    }
}

@inline(__always)
private func hasNonASCII(_ s: String) -> Bool { s.utf8.contains { $0 >= 0x80 } }

/// The value of the attribute named `lowercasedName` (case-insensitive), or nil when the feature lacks it.
func lookup(_ properties: Properties, lowercased name: String) -> PropertyValue? {
    let keys = properties.keys
    for i in keys.indices where equalsIgnoringCase(keys[i], lowercased: name) { return properties.values[i] }
    return nil
}
