/// A layer's value table: each distinct `Value` message body once, in first-use order, found by a hash of its
/// bytes (open addressing) rather than through a `Dictionary` of byte arrays: interning a value that is already
/// in the table allocates nothing.
struct MVTValueTable: Sendable {
    /// The bodies, one after another.
    private var bytes: [UInt8] = []
    /// Where body i starts in `bytes`; it ends where body i + 1 starts (the last at `bytes.count`).
    private var starts: [Int] = []
    /// Per body, its hash (the table grows without hashing again).
    private var hashes: [UInt64] = []
    /// Per slot, the index + 1 of the body there (0: empty); a power of two long, at most half full.
    private var slots: [UInt32] = []
    /// The body being looked up (`index(of:)`'s scratch).
    private var scratch = ProtobufWriter()

    /// Distinct values so far.
    var count: Int { starts.count }

    /// The body of value `i`.
    func body(_ i: Int) -> ArraySlice<UInt8> {
        bytes[starts[i]..<(i + 1 < starts.count ? starts[i + 1] : bytes.count)]
    }

    /// The index of the value whose body `write` writes to an empty writer, added on first use.
    mutating func index(of write: (inout ProtobufWriter) -> Void) -> UInt32 {
        scratch.removeAll()
        write(&scratch)
        let (found, h) = scratch.bytes.withUnsafeBufferPointer { b in
            let h = Self.hash(b)
            return (lookUp(b, hash: h), h)
        }
        if let found { return found }
        return add(scratch.bytes, hash: h)
    }

    /// The index of `body` (whose hash is `h`) when it is in the table.
    private func lookUp(_ body: UnsafeBufferPointer<UInt8>, hash h: UInt64) -> UInt32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: h) & mask
        return bytes.withUnsafeBufferPointer { all in
            while true {
                let v = Int(slots[s])
                if v == 0 { return nil }
                // The stored hash first: most bodies met on the way are other values of the same length.
                if hashes[v - 1] == h {
                    let start = starts[v - 1]
                    let end = v < starts.count ? starts[v] : all.count
                    if end - start == body.count && Self.equal(UnsafeBufferPointer(rebasing: all[start..<end]), body) {
                        return UInt32(truncatingIfNeeded: v - 1)
                    }
                }
                s = (s + 1) & mask
            }
        }
    }

    private mutating func add(_ body: [UInt8], hash h: UInt64) -> UInt32 {
        let i = starts.count
        starts.append(bytes.count)
        bytes.append(contentsOf: body)
        hashes.append(h)
        if (i + 1) * 2 > slots.count {
            slots = [UInt32](repeating: 0, count: max(64, slots.count * 2))
            for k in 0..<i { place(k) }
        }
        place(i)
        return UInt32(truncatingIfNeeded: i)
    }

    /// Puts body `k` in the first free slot from its hash on.
    private mutating func place(_ k: Int) {
        let mask = slots.count - 1
        var s = Int(truncatingIfNeeded: hashes[k]) & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = UInt32(truncatingIfNeeded: k + 1)
    }

    /// True when `a` and `b` hold the same bytes (of the same count), compared eight at a time.
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        let (ra, rb) = (UnsafeRawPointer(pa), UnsafeRawPointer(pb))
        var i = 0
        while i + 8 <= a.count {
            let (x, y) = (
                ra.loadUnaligned(fromByteOffset: i, as: UInt64.self),
                rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            )
            if x != y { return false }
            i += 8
        }
        while i < a.count {
            if pa[i] != pb[i] { return false }
            i += 1
        }
        return true
    }

    /// A 64-bit hash of `b`, eight bytes at a time (not cryptographic; only where a value lands in `slots`
    /// depends on it, never the output).
    static func hash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(b.count)
        guard let base = b.baseAddress else { return h }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 8 <= b.count {
            h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < b.count {
            tail |= UInt64(b[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
        h = h &* 0xBF58_476D_1CE4_E5B9
        return h ^ (h >> 32)
    }
}
