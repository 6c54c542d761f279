import Gzip
import Testing

/// Raw deflate, zlib framing, CRC-32 and the streaming `Inflater` (used by zip import and the PNG writer).
@Suite struct GzipRawTests {
    @Test func crc32MatchesTheStandardCheckValues() {
        #expect(Gzip.crc32([]) == 0)
        #expect(Gzip.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Gzip.crc32(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        // Continuing over chunks gives the same value as one call.
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var crc: UInt32 = 0
        for start in stride(from: 0, to: bytes.count, by: 777) {
            crc = Gzip.crc32(Array(bytes[start..<min(bytes.count, start + 777)]), continuing: crc)
        }
        #expect(crc == Gzip.crc32(bytes))
        #expect(crc != Gzip.crc32(Array(bytes.dropLast())))
    }

    @Test func zlibCompressWritesAZlibStream() throws {
        let bytes = (0..<50_000).map { UInt8($0 % 13) }
        let packed = try Gzip.zlibCompress(bytes)
        #expect(packed[0] == 0x78)
        #expect((UInt16(packed[0]) << 8 | UInt16(packed[1])) % 31 == 0)  // RFC 1950 header check
        #expect(packed.count < bytes.count / 10)
        #expect(try Gzip.decompress(packed, maxOutput: bytes.count) == bytes)
        var inflater = try Inflater(format: .zlib, maxOutput: bytes.count)
        inflater.feed(packed)
        var out: [UInt8] = []
        while !inflater.isFinished { out += try inflater.next() }
        #expect(out == bytes)
        #expect(try Gzip.zlibCompress([]) == Gzip.zlibCompress([]))
        #expect(throws: GzipError.invalidLevel(11)) { try Gzip.zlibCompress(bytes, level: 11) }
    }

    @Test(arguments: [0, 1, 1000, 300_000])
    func rawDeflateRoundTrips(size: Int) throws {
        var rng = SplitMix(seed: UInt64(size) + 7)
        let bytes = (0..<size).map { i in i % 3 == 0 ? UInt8.random(in: 0...255, using: &rng) : UInt8(i % 5) }
        let packed = try Gzip.deflateRaw(bytes)
        #expect(try Gzip.inflateRaw(packed, maxOutput: size) == bytes)
        #expect(try Gzip.inflateRaw(try Gzip.deflateRaw(bytes, level: 0), maxOutput: size) == bytes)
    }

    @Test func inflateRawReadsKnownBytes() throws {
        // The raw deflate part of zlib.compress(b"a") (78 9c | 4b 04 00 | adler).
        #expect(try Gzip.inflateRaw([0x4b, 0x04, 0x00], maxOutput: 1) == [0x61])
        // A zlib header is not raw deflate.
        #expect(throws: GzipError.self) { try Gzip.inflateRaw([0x78, 0x9c, 0x4b, 0x04, 0x00], maxOutput: 10) }
    }

    @Test func inflateRawRejectsTruncationTrailingBytesAndOversizedOutput() throws {
        let bytes = Array(String(repeating: "kartpack tiles ", count: 200).utf8)
        let packed = try Gzip.deflateRaw(bytes)
        #expect(throws: GzipError.truncated) { try Gzip.inflateRaw([], maxOutput: 10) }
        for n in 1..<packed.count {
            #expect(throws: GzipError.self) { try Gzip.inflateRaw(Array(packed[..<n]), maxOutput: 10_000) }
        }
        #expect(throws: GzipError.trailingData(count: 2)) { try Gzip.inflateRaw(packed + [9, 9], maxOutput: 10_000) }
        #expect(throws: GzipError.outputTooLarge(limit: bytes.count - 1)) {
            try Gzip.inflateRaw(packed, maxOutput: bytes.count - 1)
        }
        #expect(try Gzip.inflateRaw(packed, maxOutput: bytes.count) == bytes)
        #expect(try Gzip.inflateRaw(packed, maxOutput: Int.max) == bytes)
    }

    @Test func inflaterStreamsByteByByteWithBoundedChunks() throws {
        var rng = SplitMix(seed: 11)
        let bytes = (0..<200_000).map { i in i % 4 == 0 ? UInt8.random(in: 0...255, using: &rng) : 0 }
        let packed = try Gzip.deflateRaw(bytes)
        var inflater = try Inflater(format: .raw, maxOutput: bytes.count)
        var out: [UInt8] = []
        var fed = 0
        var largest = 0
        while !inflater.isFinished {
            if inflater.needsInput {
                try #require(fed < packed.count, "ran out of input before the end of the stream")
                let n = min(fed < 100 ? 1 : 4096, packed.count - fed)
                inflater.feed(Array(packed[fed..<fed + n]))
                fed += n
            }
            let chunk = try inflater.next(maxBytes: 1000)
            largest = max(largest, chunk.count)
            out += chunk
        }
        #expect(out == bytes)
        #expect(largest <= 1000)
        #expect(inflater.totalOut == bytes.count)
        #expect(inflater.totalIn == packed.count)
        #expect(inflater.unconsumedInputCount == 0)
    }

    @Test func inflaterStopsAtTheCapWhileStreaming() throws {
        // 8 MiB of zeros deflates to about 8 KB; the cap stops it after little more than 1 MB was produced.
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let packed = try Gzip.deflateRaw(zeros)
        #expect(packed.count < 20_000)
        var inflater = try Inflater(format: .raw, maxOutput: 1 << 20)
        inflater.feed(packed)
        var produced = 0
        #expect(throws: GzipError.outputTooLarge(limit: 1 << 20)) {
            while !inflater.isFinished { produced += try inflater.next(maxBytes: 1 << 16).count }
        }
        #expect(produced <= 1 << 20)
        #expect(inflater.totalOut <= (1 << 20) + (1 << 16))
    }

    @Test func inflaterReportsBytesAfterTheEndOfTheStream() throws {
        let packed = try Gzip.deflateRaw(Array("abc".utf8))
        var inflater = try Inflater(format: .raw, maxOutput: 10)
        inflater.feed(packed + [1, 2, 3, 4])
        var out: [UInt8] = []
        while !inflater.isFinished { out += try inflater.next() }
        #expect(out == Array("abc".utf8))
        #expect(inflater.unconsumedInputCount == 4)
        #expect(try inflater.next() == [])
    }

    @Test func rawInflateNeverTrapsOnGarbage() throws {
        var rng = SplitMix(seed: 99)
        let packed = try Gzip.deflateRaw((0..<3000).map { UInt8($0 % 251) })
        for _ in 0..<3000 {
            var bytes = packed
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = try? Gzip.inflateRaw(bytes, maxOutput: 6000)
            let random = (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? Gzip.inflateRaw(random, maxOutput: 6000)
        }
    }
}
