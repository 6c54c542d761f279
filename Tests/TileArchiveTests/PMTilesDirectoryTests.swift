import Gzip
import Testing

@testable import PMTiles
@testable import TileArchive

@Suite struct PMTilesDirectoryTests {
    static let workedExample = [
        PMTilesEntry(tileID: 0, offset: 0, length: 100, runLength: 1),
        PMTilesEntry(tileID: 1, offset: 100, length: 80, runLength: 1),
        PMTilesEntry(tileID: 2, offset: 180, length: 80, runLength: 3),
        PMTilesEntry(tileID: 5, offset: 100, length: 80, runLength: 1),
        PMTilesEntry(tileID: 6, offset: 260, length: 300, runLength: 1),
    ]
    static let workedBytes: [UInt8] = [
        0x05, 0x00, 0x01, 0x01, 0x03, 0x01, 0x01, 0x01, 0x03, 0x01, 0x01, 0x64, 0x50, 0x50, 0x50, 0xac, 0x02,
        0x01, 0x00, 0x00, 0x65, 0x85, 0x02,
    ]

    @Test func encodesTheWorkedExampleToTheSpecBytes() {
        #expect(PMTilesDirectory.encode(Self.workedExample) == Self.workedBytes)
    }

    @Test func decodesTheWorkedExample() throws {
        #expect(try PMTilesDirectory.decode(Self.workedBytes) == Self.workedExample)
    }

    @Test func roundTripsRandomDirectories() throws {
        var rng = SplitMix(seed: 7)
        for _ in 0..<50 {
            var entries: [PMTilesEntry] = []
            var id: UInt64 = UInt64.random(in: 0..<1000, using: &rng)
            var offset: UInt64 = 0
            for _ in 0..<Int.random(in: 1...300, using: &rng) {
                let length = UInt32.random(in: 1...100_000, using: &rng)
                let run = UInt32.random(in: 0...5, using: &rng)
                let back = Bool.random(using: &rng)
                entries.append(
                    PMTilesEntry(
                        tileID: id, offset: back ? offset / 2 : offset, length: length, runLength: run))
                offset += UInt64(length)
                id += UInt64(max(run, 1)) + UInt64.random(in: 0...3, using: &rng)
            }
            #expect(try PMTilesDirectory.decode(PMTilesDirectory.encode(entries)) == entries)
        }
    }

    @Test func rejectsMalformedDirectories() {
        let good = Self.workedBytes
        // Every strict prefix is truncated.
        for n in 0..<good.count {
            #expect(throws: PMTilesDirectory.DecodeError.self) { try PMTilesDirectory.decode(Array(good[..<n])) }
        }
        // Trailing bytes, an impossible count, an overlong varint, a zero length, a zero first offset.
        #expect(throws: PMTilesDirectory.DecodeError.trailingBytes(1)) { try PMTilesDirectory.decode(good + [0]) }
        #expect(throws: PMTilesDirectory.DecodeError.self) { try PMTilesDirectory.decode([0xff, 0xff, 0xff, 0x0f]) }
        #expect(throws: PMTilesDirectory.DecodeError.self) {
            try PMTilesDirectory.decode([UInt8](repeating: 0xff, count: 11) + [0x01])
        }
        #expect(throws: PMTilesDirectory.DecodeError.self) { try PMTilesDirectory.decode([1, 0, 1, 0, 1]) }
        #expect(throws: PMTilesDirectory.DecodeError.self) { try PMTilesDirectory.decode([1, 0, 1, 1, 0]) }
        // A length above UInt32.max.
        #expect(throws: PMTilesDirectory.DecodeError.self) {
            try PMTilesDirectory.decode([1, 0, 1, 0x80, 0x80, 0x80, 0x80, 0x10, 1])
        }
    }

    @Test func neverTrapsOnRandomBytes() {
        var rng = SplitMix(seed: 99)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? PMTilesDirectory.decode(bytes)
        }
    }

    @Test func splitsLargeDirectoriesIntoLeavesThatFitTheRoot() throws {
        var rng = SplitMix(seed: 2024)
        var entries: [PMTilesEntry] = []
        var id: UInt64 = 0
        var offset: UInt64 = 0
        for _ in 0..<100_000 {
            let length = UInt32.random(in: 20...5000, using: &rng)
            let run = UInt32.random(in: 1...3, using: &rng)
            entries.append(PMTilesEntry(tileID: id, offset: offset, length: length, runLength: run))
            offset += UInt64(length)
            id += UInt64(run) + UInt64.random(in: 0...20, using: &rng)
        }
        let (root, leaves) = try PMTilesWriter.buildDirectories(entries)
        #expect(root.count + PMTilesHeader.size <= 16_384)
        #expect(!leaves.isEmpty)
        let rootEntries = try PMTilesDirectory.decode(Gzip.decompress(root, maxOutput: 1 << 24))
        #expect(rootEntries.count > 1)
        #expect(rootEntries.allSatisfy { $0.runLength == 0 })
        var all: [PMTilesEntry] = []
        var expectedOffset: UInt64 = 0
        for r in rootEntries {
            #expect(r.offset == expectedOffset)
            expectedOffset += UInt64(r.length)
            let slice = Array(leaves[Int(r.offset)..<Int(r.offset) + Int(r.length)])
            let leaf = try PMTilesDirectory.decode(Gzip.decompress(slice, maxOutput: 1 << 26))
            #expect(leaf.first?.tileID == r.tileID)
            #expect(leaf.count >= 4096 || r == rootEntries.last)
            all += leaf
        }
        #expect(expectedOffset == UInt64(leaves.count))
        #expect(all == entries)
    }

    @Test func keepsSmallDirectoriesInTheRoot() throws {
        let (root, leaves) = try PMTilesWriter.buildDirectories(Self.workedExample)
        #expect(leaves.isEmpty)
        #expect(try PMTilesDirectory.decode(Gzip.decompress(root, maxOutput: 4096)) == Self.workedExample)
    }
}
