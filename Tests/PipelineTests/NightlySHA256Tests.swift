import Foundation
import KartpackTestSupport
import Testing

@testable import Checksum
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

    /// Nettle hashes on Linux; the Swift code that hashes elsewhere must give the same digests, whatever the
    /// lengths and however the input is split.
    @Test func portableCodeAgreesWithNettle() {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        let data = (0..<70_000).map { _ -> UInt8 in
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: x >> 33)
        }
        for length in Array(0...200) + [1_000, 4_095, 4_096, 65_536, 70_000] {
            let part = data.prefix(length)
            var fast = SHA256()
            var portable = PortableSHA256()
            let cut = length / 3
            part.prefix(cut).withContiguousStorageIfAvailable { fast.update(UnsafeRawBufferPointer($0)) }
            part.dropFirst(cut).withContiguousStorageIfAvailable { fast.update(UnsafeRawBufferPointer($0)) }
            Array(part.prefix(cut)).withUnsafeBytes { portable.update($0) }
            Array(part.dropFirst(cut)).withUnsafeBytes { portable.update($0) }
            #expect(fast.finalize() == portable.finalize(), "length \(length)")
        }
    }

    /// `SHA256` is a value: a copy taken mid-stream hashes on by itself (Nettle's state is a plain C struct).
    @Test func aCopyHashesOnByItself() {
        var first = SHA256()
        first.update(Array("ab".utf8))
        var second = first
        first.update(Array("c".utf8))
        second.update(Array("d".utf8))
        #expect(first.finalizeHex() == SHA256.hex(of: Array("abc".utf8)))
        #expect(second.finalizeHex() == SHA256.hex(of: Array("abd".utf8)))
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
