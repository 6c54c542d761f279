import PMTiles
import Testing

/// The per-directory entry limit: a directory claiming more entries than the reader allows is refused by its
/// count, before anything is allocated for it.
@Suite struct PMTilesDirectoryLimitTests {
    /// A directory of `n` one-byte-per-column entries (TileIDs 0..<n, contiguous one-byte tiles).
    private func directory(_ n: Int) -> [UInt8] {
        var out: [UInt8] = []
        var v = UInt64(n)
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
        out += [0] + [UInt8](repeating: 1, count: n - 1)
        out += [UInt8](repeating: 1, count: 2 * n)
        out += [1] + [UInt8](repeating: 0, count: n - 1)
        return out
    }

    @Test func aDirectoryOverTheLimitIsRefusedByItsCount() throws {
        let bytes = directory(5_000)
        #expect(try PMTilesDirectory.decode(bytes, maxEntries: 5_000).count == 5_000)
        #expect(throws: PMTilesDirectory.DecodeError.tooManyEntries(5_000, limit: 4_999)) {
            try PMTilesDirectory.decode(bytes, maxEntries: 4_999)
        }
    }

    @Test func theReaderDefaultsKeepDirectoriesSmall() {
        let limits = PMTilesReader.Limits()
        #expect(limits.maxDirectoryEntries == 1 << 20)
        #expect(limits.maxCachedEntries >= limits.maxDirectoryEntries)
        // A decoded entry is 24 bytes: the cache stays near 100 MB.
        #expect(limits.maxCachedEntries * 24 <= 128 << 20)
    }
}
