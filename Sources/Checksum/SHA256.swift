#if canImport(CNettle)
    internal import CNettle
#endif

/// SHA-256 (FIPS 180-4), streaming: feed bytes with `update` in any pieces, then `finalize` once.
///
/// Used for input fingerprints, package and store digests, not for security. On Linux the blocks are hashed by
/// Nettle (Debian's `nettle-dev`), which uses the CPU's SHA extensions where there are any: about 6–10 times the
/// speed of Swift code on this project's machines, and the nightly job hashes every input record and file.
/// Elsewhere (the client library on Apple platforms) `PortableSHA256` computes the same digests in Swift.
package struct SHA256: Sendable {
    #if canImport(CNettle)
        /// Nettle's state: a plain C struct (no handle), so copying a `SHA256` copies the hash.
        private var context = sha256_ctx()
    #else
        private var portable = PortableSHA256()
    #endif
    /// Total bytes fed so far.
    package private(set) var byteCount: UInt64 = 0
    private var finished = false

    /// A fresh hash.
    package init() {
        #if canImport(CNettle)
            nettle_sha256_init(&context)
        #endif
    }

    /// Feeds bytes.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let fed: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if fed == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Feeds bytes from a raw buffer (not copied).
    package mutating func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256.update after finalize")
        byteCount &+= UInt64(buffer.count)
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        #if canImport(CNettle)
            nettle_sha256_update(&context, buffer.count, base.assumingMemoryBound(to: UInt8.self))
        #else
            portable.update(UnsafeRawBufferPointer(start: base, count: buffer.count))
        #endif
    }

    /// Feeds the UTF-8 bytes of a string.
    package mutating func update(_ text: String) {
        var t = text
        t.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Pads, finishes and returns the 32-byte digest. The hash cannot be fed afterwards.
    package mutating func finalize() -> [UInt8] {
        precondition(!finished, "SHA256.finalize called twice")
        finished = true
        #if canImport(CNettle)
            return [UInt8](unsafeUninitializedCapacity: 32) { out, count in
                nettle_sha256_digest(&context, 32, out.baseAddress)
                count = 32
            }
        #else
            return portable.finalize()
        #endif
    }

    /// Finishes and returns the digest as 64 lowercase hex digits.
    package mutating func finalizeHex() -> String { Self.hex(finalize()) }

    /// The digest of `bytes` as lowercase hex.
    package static func hex(of bytes: some Sequence<UInt8>) -> String {
        var s = SHA256()
        s.update(bytes)
        return s.finalizeHex()
    }

    /// Lowercase hex of any bytes.
    package static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(digest.count * 2)
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
