import Checksum
import Foundation
import KartpackTestSupport
import Testing

@testable import KartpackKit

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// `Catalog` on hand-written catalogs: the schema, region look-ups, streamed verification against `sha256sum`,
/// hostile catalogs (wrong types, missing keys, huge numbers, path traversal) and the signature result.
@Suite struct CatalogTests {
    static let digest = String(repeating: "ab", count: 32)

    static func region(
        _ id: String, file: String = "r.pmtiles", bytes: String = "10", sha: String = digest,
        bounds: String = "[19.4, 63.8, 20.0, 64.1]", extra: String = ""
    ) -> String {
        #"""
        {"id": "\#(id)", "name": "Region \#(id)", "file": "\#(file)", "bytes": \#(bytes), "sha256": "\#(sha)",
         "bounds": \#(bounds), "minZoom": 8, "maxZoom": 14,
         "layers": [{"name": "avdelningar", "features": 412, "classes": ["stand", "broadleaf-stand"]}],
         "built": "2026-12-01T11:58:00Z", "fingerprint": "f1"\#(extra)}
        """#
    }

    static func catalog(_ regions: [String], head: String = #""catalogVersion": 1"#) -> String {
        #"{\#(head), "created": "2026-12-01T12:00:00Z", "kartpack": "0.9.0", "regions": "#
            + #"[\#(regions.joined(separator: ","))]}"#
    }

    static func parse(_ text: String) throws -> Catalog {
        try Catalog(data: Data(text.utf8), folder: URL(fileURLWithPath: "/srv/maps"))
    }

    @Test func readsRegionsAndFindsThemByPointAndBox() throws {
        let c = try Self.parse(
            Self.catalog([
                Self.region("vannas", file: "regions/vannas.pmtiles"),
                Self.region("umea", bounds: "[20.0, 63.7, 20.5, 64.0]"),
            ]))
        #expect(c.version == 1 && c.kartpackVersion == "0.9.0")
        #expect(c.created == Date(timeIntervalSince1970: 1_796_126_400))
        #expect(c.regions.map(\.id) == ["vannas", "umea"])
        let v = try #require(c.region(id: "vannas"))
        #expect(
            v.name == "Region vannas" && v.bytes == 10 && v.sha256 == Self.digest && v.minZoom == 8
                && v.maxZoom == 14)
        #expect(v.bounds == GeoRegion(west: 19.4, south: 63.8, east: 20.0, north: 64.1))
        #expect(
            v.layers == [
                .init(name: "avdelningar", features: 412, classes: ["stand", "broadleaf-stand"])
            ])
        #expect(v.fingerprint == "f1" && v.built == Date(timeIntervalSince1970: 1_796_126_280))
        #expect(c.fileURL(of: v).path == "/srv/maps/regions/vannas.pmtiles")
        #expect(
            c.regions(covering: GeoCoordinate(longitude: 19.7, latitude: 63.9)).map(\.id) == ["vannas"])
        #expect(
            c.regions(covering: GeoCoordinate(longitude: 20.0, latitude: 63.9)).map(\.id) == [
                "vannas", "umea",
            ])
        #expect(c.regions(covering: GeoCoordinate(longitude: 0, latitude: 0)).isEmpty)
        #expect(
            c.regions(covering: GeoRegion(west: 19.5, south: 63.85, east: 19.9, north: 64.0)).map(\.id)
                == ["vannas"])
        #expect(
            c.regions(covering: GeoRegion(west: 19.5, south: 63.85, east: 20.2, north: 63.95)).isEmpty)
        #expect(
            c.regions(intersecting: GeoRegion(west: 19.5, south: 63.85, east: 20.2, north: 63.95)).count
                == 2)
        // Members outside the schema are ignored; upper-case digests are read in lower case.
        let extra = try Self.parse(
            Self.catalog([Self.region("x", sha: Self.digest.uppercased(), extra: #", "future": [1]"#)]))
        #expect(extra.regions[0].sha256 == Self.digest)
    }

    @Test func verifiesSizeAndDigestStreamed() throws {
        let dir = try TemporaryDirectory(prefix: "kit-catalog")
        var rng = SplitMix64(seed: 5)
        let bytes = (0..<(3 << 20) + 123).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let file = dir.url.appendingPathComponent("r.pmtiles")
        try Data(bytes).write(to: file)
        let sum = try runProcess("/usr/bin/env", ["sha256sum", file.path])
        let digest = String(sum.stdout.prefix(64))
        let c = try Self.parse(
            Self.catalog([
                Self.region("ok", bytes: "\(bytes.count)", sha: digest),
                Self.region("size", bytes: "\(bytes.count + 1)", sha: digest),
                Self.region("short", bytes: "\(bytes.count - 1)", sha: digest),
                Self.region("digest", bytes: "\(bytes.count)", sha: Self.digest),
            ]))
        try c.verify(c.regions[0], file: file)
        for r in c.regions.dropFirst() {
            #expect { try c.verify(r, file: file) } throws: { error in
                guard case .verificationFailed(let path, _) = error as? KartpackKitError else {
                    return false
                }
                return path == file.path
            }
        }
        #expect {
            try c.verify(c.regions[0], file: dir.url.appendingPathComponent("missing"))
        } throws: { error in
            if case .cannotOpen = error as? KartpackKitError { return true }
            return false
        }
        // "abc" (FIPS 180-2 example).
        try Data("abc".utf8).write(to: file)
        let abc = try Self.parse(
            Self.catalog([
                Self.region(
                    "abc", bytes: "3", sha: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
                )
            ]))
        try abc.verify(abc.regions[0], file: file)
    }

    @Test func hostileCatalogsAreRefusedNamingTheMember() throws {
        let cases: [(text: String, says: String)] = [
            ("[]", "catalog"),
            ("{", "not JSON"),
            (Self.catalog([], head: #""catalogVersion": 2"#), "catalogVersion 2"),
            (Self.catalog([], head: #""catalogVersion": "1""#), "catalogVersion"),
            (Self.catalog([], head: #""catalogVersion": 1.5"#), "catalogVersion"),
            (Self.catalog([], head: #""catalogVersion": 1e400"#), "number out of range"),
            (
                #"{"catalogVersion": 1, "created": "2026-12-01T12:00:00Z", "kartpack": "x"}"#,
                "regions: missing"
            ),
            (
                #"{"catalogVersion": 1, "created": "yesterday", "kartpack": "x", "regions": []}"#, "created"
            ),
            (
                #"{"catalogVersion": 1, "created": "2026-12-01T12:00:00+02:00", "kartpack": "x", "regions": []}"#,
                "created"
            ),
            (
                #"{"catalogVersion": 1, "catalogVersion": 1, "created": "2026-12-01T12:00:00Z", "kartpack": "x", "#
                    + #""regions": []}"#,
                "not JSON"
            ),
            (
                #"{"catalogVersion": 1, "created": "2026-12-01T12:00:00Z", "kartpack": 9, "regions": []}"#,
                "kartpack"
            ),
            (
                #"{"catalogVersion": 1, "created": "2026-12-01T12:00:00Z", "kartpack": "x", "regions": {}}"#,
                "regions"
            ),
            (Self.catalog(["7"]), "regions[0]"),
            (Self.catalog([Self.region("a"), Self.region("a")]), "used twice"),
            (Self.catalog([Self.region("")]), "regions[0].id"),
            (Self.catalog([Self.region("a", bytes: "-1")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", bytes: "1e300")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", bytes: "9223372036854775807")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", bytes: "99999999999999999999999")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", bytes: "\"10\"")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", bytes: "true")]), "regions[0].bytes"),
            (Self.catalog([Self.region("a", sha: "abc")]), "sha256"),
            (Self.catalog([Self.region("a", sha: String(repeating: "g", count: 64))]), "sha256"),
            (Self.catalog([Self.region("a", bounds: "[20, 63, 19, 64]")]), "bounds"),
            (Self.catalog([Self.region("a", bounds: "[-200, 63, 19, 64]")]), "bounds"),
            (Self.catalog([Self.region("a", bounds: "[1, 2, 3]")]), "bounds"),
            (Self.catalog([Self.region("a", bounds: #"["1", 2, 3, 4]"#)]), "bounds"),
            (Self.catalog([Self.region("a", extra: #", "minZoom": 15"#)]), "not JSON"),  // a duplicate key
        ]
        for traversal in [
            "../x.pmtiles", "a/../../b.pmtiles", "/etc/passwd", "~/x", "./a", "a//b", "..", "C:\\\\x",
            "http://host/x", "a\\\\..\\\\b", "a/\\u0000b", "",
        ] {
            #expect(throws: KartpackKitError.self, "file \(traversal)") {
                try Self.parse(Self.catalog([Self.region("a", file: traversal)]))
            }
        }
        for c in cases {
            #expect {
                try Self.parse(c.text)
            } throws: { error in
                guard case .invalidCatalog(_, let reason) = error as? KartpackKitError else { return false }
                return reason.contains(c.says)
            }
        }
        let badZooms = Self.region("a").replacingOccurrences(
            of: #""minZoom": 8"#, with: #""minZoom": 15"#)
        #expect(throws: KartpackKitError.self) { try Self.parse(Self.catalog([badZooms])) }
        for key in [
            "id", "name", "file", "bytes", "sha256", "bounds", "minZoom", "maxZoom", "layers", "built",
            "fingerprint",
        ] {
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(Self.region("a").utf8)) as? [String: Any])
            var missing = json
            missing[key] = nil
            let text = String(
                decoding: try JSONSerialization.data(withJSONObject: missing), as: UTF8.self)
            #expect {
                try Self.parse(Self.catalog([text]))
            } throws: { error in
                guard case .invalidCatalog(_, let reason) = error as? KartpackKitError else { return false }
                return reason.contains("regions[0].\(key): missing")
            }
        }
        let dir = try TemporaryDirectory(prefix: "kit-catalog")
        #expect(throws: KartpackKitError.self) { try Catalog(contentsOf: dir.url) }  // a directory
    }

    @Test func signatureResultIsTypedNeverASilentPass() throws {
        let c = try Self.parse(Self.catalog([Self.region("a")]))
        let keyID: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        func key(_ id: [UInt8], _ raw: [UInt8]) -> String {
            "untrusted comment: minisign public key\n"
                + Data(Array("Ed".utf8) + id + raw).base64EncodedString() + "\n"
        }
        func signature(
            _ alg: String, _ id: [UInt8], _ sig: [UInt8], _ comment: String, _ global: [UInt8]
        ) -> String {
            "untrusted comment: signature\n" + Data(Array(alg.utf8) + id + sig).base64EncodedString()
                + "\ntrusted comment: \(comment)\n" + Data(global).base64EncodedString() + "\n"
        }
        let zeros = [UInt8](repeating: 0, count: 64)
        #expect(
            c.verifySignature("garbage", publicKey: key(keyID, .init(repeating: 0, count: 32))).isInvalid)
        #expect(
            c.verifySignature(signature("Ed", keyID, zeros, "t", zeros), publicKey: "nope").isInvalid)
        #expect(
            c.verifySignature(
                signature("Ed", [9, 9, 9, 9, 9, 9, 9, 9], zeros, "t", zeros),
                publicKey: key(keyID, .init(repeating: 0, count: 32))
            ).isInvalid)
        for alg in ["Ed", "ED"] {
            #if canImport(CryptoKit)
                #expect(Catalog.canVerifySignatures)
                let sk = Curve25519.Signing.PrivateKey()
                let pk = key(keyID, Array(sk.publicKey.rawRepresentation))
                let message = alg == "Ed" ? [UInt8](c.bytes) : BLAKE2b.hash512([UInt8](c.bytes))
                let sig = Array(try sk.signature(for: message))
                let global = Array(try sk.signature(for: sig + Array("t".utf8)))
                #expect(
                    c.verifySignature(signature(alg, keyID, sig, "t", global), publicKey: pk)
                        == .valid(trustedComment: "t"))
                #expect(
                    c.verifySignature(signature(alg, keyID, zeros, "t", global), publicKey: pk).isInvalid)
            #else
                #expect(!Catalog.canVerifySignatures)
                let r = c.verifySignature(
                    signature(alg, keyID, zeros, "t", zeros),
                    publicKey: key(keyID, .init(repeating: 0, count: 32)))
                guard case .unavailable(let why) = r else {
                    Issue.record("without CryptoKit the result must be unavailable, got \(r)")
                    return
                }
                #expect(why.contains("CryptoKit"))
            #endif
        }
    }
}

extension SignatureCheck {
    var isInvalid: Bool { if case .invalid = self { true } else { false } }
}

/// BLAKE2b-512 (for minisign's prehashed signatures) against Python's hashlib over lengths around the block size.
@Suite struct BLAKE2bTests {
    @Test func matchesHashlib() throws {
        var rng = SplitMix64(seed: 3)
        for n in [0, 1, 3, 127, 128, 129, 255, 256, 257, 1000, 100_000] {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let dir = try TemporaryDirectory(prefix: "kit-blake")
            try Data(bytes).write(to: dir.url.appendingPathComponent("b"))
            let r = try runProcess(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import hashlib,sys; print(hashlib.blake2b(open(sys.argv[1],'rb').read()).hexdigest())",
                    dir.file("b"),
                ])
            let ours = BLAKE2b.hash512(bytes).map { String(format: "%02x", $0) }.joined()
            #expect(ours == r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "length \(n)")
        }
    }
}
