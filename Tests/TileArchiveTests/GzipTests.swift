import Gzip
import Testing

@Suite struct GzipTests {
    @Test(arguments: [0, 1, 100, 70_000, 1_000_000])
    func roundTrips(size: Int) throws {
        var rng = SplitMix(seed: UInt64(size))
        // Half random, half repetitive, so both stored and compressed blocks occur.
        let bytes = (0..<size).map { i in i % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : UInt8(i % 7) }
        let packed = try Gzip.compress(bytes)
        #expect(Array(packed.prefix(3)) == [0x1f, 0x8b, 0x08])
        #expect(try Gzip.decompress(packed, maxOutput: size) == bytes)
    }

    @Test func isDeterministicWithAZeroTimestamp() throws {
        let bytes = Array("the same input gives the same bytes".utf8)
        let a = try Gzip.compress(bytes)
        let b = try Gzip.compress(bytes)
        #expect(a == b)
        #expect(Array(a[4..<8]) == [0, 0, 0, 0])
        #expect(try Gzip.compress(bytes, level: 9) != Gzip.compress(bytes, level: 0))
        #expect(throws: GzipError.invalidLevel(10)) { try Gzip.compress(bytes, level: 10) }
    }

    @Test func readsZlibStreamsToo() throws {
        // zlib.compress(b"") and zlib.compress(b"a").
        #expect(try Gzip.decompress([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01], maxOutput: 10) == [])
        #expect(
            try Gzip.decompress([0x78, 0x9c, 0x4b, 0x04, 0x00, 0x00, 0x62, 0x00, 0x62], maxOutput: 10) == [0x61])
    }

    @Test func joinsConcatenatedMembers() throws {
        let a = try Gzip.compress(Array("abc".utf8))
        let b = try Gzip.compress(Array("def".utf8))
        #expect(try Gzip.decompress(a + b, maxOutput: 100) == Array("abcdef".utf8))
    }

    @Test func enforcesTheOutputCap() throws {
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let packed = try Gzip.compress(zeros)
        #expect(packed.count < 2000)
        #expect(throws: GzipError.outputTooLarge(limit: (1 << 20) - 1)) {
            try Gzip.decompress(packed, maxOutput: (1 << 20) - 1)
        }
        #expect(throws: GzipError.outputTooLarge(limit: 0)) { try Gzip.decompress(packed, maxOutput: 0) }
        #expect(try Gzip.decompress(packed, maxOutput: 1 << 20).count == 1 << 20)
    }

    @Test func rejectsGarbageTruncationAndTrailingBytes() throws {
        let packed = try Gzip.compress(Array("hello, tiles".utf8))
        #expect(throws: GzipError.truncated) { try Gzip.decompress([], maxOutput: 100) }
        #expect(throws: GzipError.self) { try Gzip.decompress(Array("not gzip at all".utf8), maxOutput: 100) }
        for n in 1..<packed.count {
            #expect(throws: GzipError.self) { try Gzip.decompress(Array(packed[..<n]), maxOutput: 100) }
        }
        #expect(throws: GzipError.trailingData(count: 3)) { try Gzip.decompress(packed + [1, 2, 3], maxOutput: 100) }
        var flipped = packed
        flipped[flipped.count - 5] ^= 0xff  // CRC
        #expect(throws: GzipError.self) { try Gzip.decompress(flipped, maxOutput: 100) }
    }

    @Test func neverTrapsOnRandomOrMutatedInput() throws {
        var rng = SplitMix(seed: 5)
        let packed = try Gzip.compress((0..<2000).map { UInt8($0 % 251) })
        for _ in 0..<3000 {
            var bytes = packed
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            _ = try? Gzip.decompress(bytes, maxOutput: 4000)
            let random = (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? Gzip.decompress([0x1f, 0x8b, 0x08, 0] + random, maxOutput: 4000)
        }
    }
}
