import Glibc

/// A 128-bit digest of what makes a tile's bytes (`TileSignature`) or of a tile's stored bytes: two independent
/// 64-bit lanes, each word folded in with a multiply-rotate-multiply round and finished with an avalanche.
///
/// Not cryptographic: it tells tonight's tile from last night's, where a chance collision (about 2^-128 per pair)
/// is far below any other source of error, and no adversary picks the inputs.
package struct TileDigest: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The digest and length of the file at `path`, read in blocks of 1 MiB; nil when it cannot be read.
    package static func ofFile(_ path: String) -> (digest: TileDigest, length: UInt64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var h = TileHasher()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var length: UInt64 = 0
        while true {
            let n = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            h.add(block[..<n])
            length += UInt64(n)
        }
        return (h.finish(), length)
    }

    /// The digest of `bytes` (a tile as the archive stores it).
    package static func of(_ bytes: [UInt8]) -> TileDigest {
        var h = TileHasher()
        h.add(bytes)
        return h.finish()
    }
}

/// Feeds words and byte strings into a `TileDigest`.
package struct TileHasher {
    private var a: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private var count: UInt64 = 0

    package init() {}

    @inline(__always)
    private static func round(_ h: UInt64, _ w: UInt64, _ k1: UInt64, _ k2: UInt64) -> UInt64 {
        var x = h ^ (w &* k1)
        x = (x << 31) | (x >> 33)
        return x &* k2
    }

    /// Adds one 64-bit word.
    @inline(__always)
    package mutating func add(_ w: UInt64) {
        a = Self.round(a, w, 0x87C3_7B91_1142_53D5, 0x4CF5_AD43_2745_937F)
        b = Self.round(b, w ^ 0x5851_F42D_4C95_7F2D, 0xFF51_AFD7_ED55_8CCD, 0xC4CE_B9FE_1A85_EC53)
        count &+= 1
    }

    package mutating func add(_ w: Int) { add(UInt64(bitPattern: Int64(w))) }

    /// Adds a byte string, its length first (so that two strings never read as one), eight bytes a word.
    package mutating func add(_ bytes: some Collection<UInt8>) {
        add(bytes.count)
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            let raw = UnsafeRawBufferPointer(buffer)
            var i = 0
            while i + 8 <= raw.count {
                add(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                i += 8
            }
            addTail(raw[i...])
        }
        if done == nil { addTail(Array(bytes)[...]) }
    }

    /// Adds the last bytes of a string: whole words, then the rest in one word.
    private mutating func addTail(_ bytes: some Collection<UInt8>) {
        var word: UInt64 = 0
        var n = 0
        for byte in bytes {
            word |= UInt64(byte) << (8 * UInt64(n))
            n += 1
            if n == 8 {
                add(word)
                word = 0
                n = 0
            }
        }
        if n > 0 { add(word) }
    }

    /// Adds a text as its UTF-8 bytes.
    package mutating func add(text: String) { add(text.utf8) }

    /// Adds a text as its UTF-8 bytes (`PropertyHashing`).
    package mutating func add(_ s: String) { add(text: s) }

    private static func avalanche(_ h: UInt64) -> UInt64 {
        var x = h
        x ^= x >> 33
        x = x &* 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x = x &* 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return x
    }

    /// The digest of everything added.
    package func finish() -> TileDigest {
        let x = Self.avalanche(a ^ count)
        let y = Self.avalanche(b ^ (count &* 0x9E37_79B9_7F4A_7C15) ^ x)
        return TileDigest(high: x, low: y)
    }
}
