import Checksum
import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// A minisign signature (`catalog.json.minisig`) and public key, parsed on every platform; the Ed25519 check
/// itself needs CryptoKit (Apple platforms).
///
/// Read: the prehashed form `ED` (minisign's default: the signature signs the BLAKE2b-512 of the file) and the
/// legacy form `Ed` (the file's bytes, `minisign -S -l`), each with its trusted comment.
struct MinisignSignature {
    var algorithm: [UInt8]
    var keyID: [UInt8]
    var signature: [UInt8]
    var trustedComment: String
    var globalSignature: [UInt8]

    init(text: String) throws(SignatureProblem) {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.count >= 4, lines[0].hasPrefix("untrusted comment:"),
            lines[2].hasPrefix("trusted comment: ")
        else {
            throw SignatureProblem("not a minisign signature (4 lines: comments and two base64 lines)")
        }
        guard let sig = Data(base64Encoded: lines[1]).map(Array.init), sig.count == 74 else {
            throw SignatureProblem("the signature line is not 74 bytes of base64")
        }
        guard let global = Data(base64Encoded: lines[3]).map(Array.init), global.count == 64 else {
            throw SignatureProblem("the global signature line is not 64 bytes of base64")
        }
        algorithm = Array(sig[0..<2])
        keyID = Array(sig[2..<10])
        signature = Array(sig[10..<74])
        trustedComment = String(lines[2].dropFirst("trusted comment: ".count))
        globalSignature = global
    }
}

/// A minisign public key: `Ed`, an 8-byte key id and 32 bytes of Ed25519 key, base64 (the key file's last line).
struct MinisignPublicKey {
    var keyID: [UInt8]
    var key: [UInt8]

    init(text: String) throws(SignatureProblem) {
        let line = text.split(whereSeparator: \.isNewline).map(String.init).last {
            !$0.hasPrefix("untrusted comment:")
        }
        guard
            let raw = line.flatMap({ Data(base64Encoded: $0.trimmingCharacters(in: .whitespaces)) }).map(
                Array.init),
            raw.count == 42, raw[0] == 0x45, raw[1] == 0x64
        else {
            throw SignatureProblem(
                "not a minisign Ed25519 public key (42 bytes of base64 starting with Ed)")
        }
        keyID = Array(raw[2..<10])
        key = Array(raw[10..<42])
    }
}

struct SignatureProblem: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension Catalog {
    /// True when this platform can check Ed25519 signatures (it has CryptoKit). False on Linux, where
    /// `verifySignature` answers `.unavailable`.
    public static var canVerifySignatures: Bool {
        #if canImport(CryptoKit)
            true
        #else
            false
        #endif
    }

    /// Checks a minisign signature of the catalog's bytes against a public key (both as the text of their
    /// files). Malformed input or a key id that differs is `.invalid` on every platform; the Ed25519 check
    /// itself (`ED` prehashed with BLAKE2b-512, or legacy `Ed`) is `.unavailable` without CryptoKit (Linux).
    public func verifySignature(_ signatureText: String, publicKey publicKeyText: String)
        -> SignatureCheck
    {
        let sig: MinisignSignature
        let key: MinisignPublicKey
        do throws(SignatureProblem) {
            sig = try MinisignSignature(text: signatureText)
            key = try MinisignPublicKey(text: publicKeyText)
        } catch {
            return .invalid(reason: error.reason)
        }
        guard sig.keyID == key.keyID else {
            return .invalid(reason: "signed with another key (key id differs)")
        }
        let message: [UInt8]
        switch sig.algorithm {
        case [0x45, 0x64]: message = [UInt8](bytes)  // "Ed": the bytes themselves
        case [0x45, 0x44]: message = BLAKE2b.hash512([UInt8](bytes))  // "ED": prehashed
        default: return .invalid(reason: "unknown signature algorithm")
        }
        #if canImport(CryptoKit)
            guard let pk = try? Curve25519.Signing.PublicKey(rawRepresentation: key.key) else {
                return .invalid(reason: "the public key is not an Ed25519 key")
            }
            guard pk.isValidSignature(sig.signature, for: message) else {
                return .invalid(reason: "the signature does not match the catalog's bytes")
            }
            guard
                pk.isValidSignature(
                    sig.globalSignature, for: sig.signature + Array(sig.trustedComment.utf8))
            else {
                return .invalid(reason: "the trusted comment's signature does not match")
            }
            return .valid(trustedComment: sig.trustedComment)
        #else
            _ = message
            return .unavailable(
                reason:
                    "Ed25519 needs CryptoKit, which this platform (Linux) lacks; the signature was not checked"
            )
        #endif
    }
}
