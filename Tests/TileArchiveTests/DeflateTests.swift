import Deflate
import Gzip
import Testing

/// libdeflate's output, read back by zlib (`Gzip`), the reader every Kartpack client and tool uses.
@Suite struct DeflateTests {
    /// Half pseudo-random, half repetitive bytes, so both stored and compressed blocks occur.
    static func sample(_ size: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<size).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return i < size / 2 ? UInt8(truncatingIfNeeded: state >> 56) : UInt8(i % 7)
        }
    }

    @Test(arguments: [0, 1, 100, 70_000, 1_000_000])
    func everyFramingRoundTripsThroughZlib(size: Int) throws {
        let bytes = Self.sample(size)
        let gzip = try Deflate.compress(bytes, framing: .gzip)
        #expect(Array(gzip.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(try Gzip.decompress(gzip, maxOutput: size) == bytes)
        let zlib = try Deflate.compress(bytes, framing: .zlib)
        #expect(zlib.first == 0x78)
        #expect(try Gzip.decompress(zlib, maxOutput: size) == bytes)
        for level in [0, 1, 12] as [Int32] {
            let raw = try Deflate.compress(bytes, level: level, framing: .raw)
            #expect(try Gzip.inflateRaw(raw, maxOutput: size) == bytes)
        }
    }

    @Test func gzipMembersAreDeterministicWithAZeroTimestamp() throws {
        let bytes = Self.sample(50_000)
        let a = try Deflate.compress(bytes)
        #expect(a == (try Deflate.compress(bytes)))
        #expect(Array(a[4..<8]) == [0, 0, 0, 0], "mtime 0")
        #expect(a[3] == 0, "no name, comment or extra field")
        // Levels differ in what they find, and a higher level is not larger on repetitive data.
        let repetitive = [UInt8](repeating: 7, count: 10_000) + Self.sample(10_000)
        #expect(try Deflate.compress(repetitive, level: 12).count <= Deflate.compress(repetitive, level: 1).count)
        #expect(try Deflate.compress(repetitive, level: 0).count > repetitive.count)
    }

    @Test func levelsOutsideZeroToTwelveAreRefused() {
        #expect(throws: DeflateError.invalidLevel(13)) { try Deflate.compress([1, 2, 3], level: 13) }
        #expect(throws: DeflateError.invalidLevel(-1)) { try Deflate.compress([1, 2, 3], level: -1) }
        #expect(DeflateError.invalidLevel(13).description.contains("0...12"))
    }
}
