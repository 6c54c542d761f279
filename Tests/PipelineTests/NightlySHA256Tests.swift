import Foundation
import Checksum
import KartpackTestSupport
import Testing

@testable import Nightly
@Suite struct NightlySHA256Tests {
    @Test func nistVectors() {
        #expect(SHA256.hex(of: Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.hex(
                of: Array(
                    ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
                        + "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    @Test func oneMillionAsFedInUnevenPieces() {
        var h = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 999)
        var left = 1_000_000
        while left > 0 {
            let n = min(left, chunk.count)
            h.update(chunk[..<n])
            left -= n
        }
        #expect(h.byteCount == 1_000_000)
        #expect(h.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func splittingTheInputAnywhereGivesTheSameDigest() {
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let whole = SHA256.hex(of: data)
        for cut in [0, 1, 55, 56, 63, 64, 65, 127, 128, 200, 300] {
            var h = SHA256()
            h.update(data[..<cut])
            h.update(data[cut...])
            #expect(h.finalizeHex() == whole, "cut at \(cut)")
        }
        // Lengths around the padding boundary differ from each other.
        let digests = Set((50...70).map { SHA256.hex(of: data.prefix($0)) })
        #expect(digests.count == 21)
    }

    @Test func fileDigestMatchesSha256sum() throws {
        let dir = try TemporaryDirectory(prefix: "sha-file")
        let path = dir.file("data.bin")
        // 2.5 MiB so the 1 MiB chunks and a partial one are all exercised.
        var bytes = [UInt8](repeating: 0, count: (5 << 20) / 2 + 17)
        var x: UInt32 = 2_463_534_242
        for i in bytes.indices {
            x ^= x << 13
            x ^= x >> 17
            x ^= x << 5
            bytes[i] = UInt8(truncatingIfNeeded: x)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let digest = try FileDigest.sha256(path: path)
        let tool = try runProcess("/usr/bin/sha256sum", [path])
        #expect(tool.status == 0)
        #expect(digest.sha256 == String(tool.stdout.prefix(64)))
        #expect(digest.bytes == UInt64(bytes.count))
        #expect(digest.path == path)
        #expect(digest.sha256 == SHA256.hex(of: bytes))
    }

    @Test func missingFileIsNoInput() {
        do throws(NightlyError) {
            _ = try FileDigest.sha256(path: "/nonexistent-\(UUID().uuidString)")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .noInput)
            #expect(error.description.hasSuffix("No such file or directory"))
        }
    }
}
