internal import CZlib

/// The single owner of one heap-allocated `z_stream` (zlib keeps a back pointer to it, so it must not move).
/// `deinit` calls `deflateEnd` or `inflateEnd` and frees the memory.
struct ZStream: ~Copyable {
    enum Direction { case deflate, inflate }

    let pointer: UnsafeMutablePointer<z_stream>
    let direction: Direction

    /// Wraps `deflateInit2_` with gzip framing (`MAX_WBITS + 16`).
    init(gzipLevel level: Int32) throws(GzipError) {
        try self.init(deflateLevel: level, windowBits: MAX_WBITS + 16)
    }

    /// Wraps `deflateInit2_`; `windowBits` selects the framing: `MAX_WBITS` zlib, `MAX_WBITS + 16` gzip,
    /// `-MAX_WBITS` raw deflate (no header or trailer, as in zip entries).
    init(deflateLevel level: Int32, windowBits: Int32) throws(GzipError) {
        let p = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        p.initialize(to: z_stream())
        let rc = deflateInit2_(
            p, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            p.deinitialize(count: 1)
            p.deallocate()
            throw .initializationFailed(code: rc)
        }
        pointer = p
        direction = .deflate
    }

    /// Wraps `inflateInit2_` with automatic gzip/zlib detection (`MAX_WBITS + 32`).
    init(inflatingGzipOrZlib: Void) throws(GzipError) {
        try self.init(inflateWindowBits: MAX_WBITS + 32)
    }

    /// Wraps `inflateInit2_`; `windowBits` as for `inflateInit2` (`-MAX_WBITS` reads raw deflate).
    init(inflateWindowBits windowBits: Int32) throws(GzipError) {
        let p = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        p.initialize(to: z_stream())
        let rc = inflateInit2_(p, windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else {
            p.deinitialize(count: 1)
            p.deallocate()
            throw .initializationFailed(code: rc)
        }
        pointer = p
        direction = .inflate
    }

    /// zlib's last message, if any.
    var message: String? {
        pointer.pointee.msg.map { String(cString: $0) }
    }

    deinit {
        switch direction {
        case .deflate: _ = deflateEnd(pointer)
        case .inflate: _ = inflateEnd(pointer)
        }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
