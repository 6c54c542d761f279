import Glibc
import Checksum
/// A hash of everything a nightly job's output depends on, for the up-to-date check: SHA-256 over tagged,
/// length-prefixed items (what the items are is the caller's: Pipeline hashes a pipeline's spec and inputs).
/// File names and times are not hashed: only contents.
package struct Fingerprint: Sendable, Hashable {
    /// The fingerprint as 64 lowercase hex digits.
    package var hex: String
    /// Every file read, in hashing order, with its size and own SHA-256 (for the run report).
    package var inputs: [FileDigest]

    /// Creates a fingerprint from parts.
    package init(hex: String, inputs: [FileDigest]) {
        self.hex = hex
        self.inputs = inputs
    }

    /// One thing hashed: bytes, or a file's contents, each under a tag.
    package enum Item: Sendable, Hashable {
        /// Bytes under a tag.
        case bytes(tag: String, [UInt8])
        /// The contents of a file under a tag (a missing file is an error).
        case file(tag: String, path: String)
        /// A file read for the report's list (its size and SHA-256) but not hashed into the fingerprint: its
        /// contents count through another item (a Shapefile's records, in any order).
        case listed(path: String)
    }

    /// Hashes the items in order: each as its tag, a zero byte, its length as 8 big-endian bytes, then its bytes.
    /// - Throws: `.inputUnreadable` (66) for a missing file, `.inputChanged` (75) for a file that changed while
    ///   being read, `.io` (74) for read errors.
    package static func compute(_ items: [Item]) throws(NightlyError) -> Fingerprint {
        try compute(items, listed: [:])
    }

    /// `compute(items)` with the digests of `.listed` files already taken (`compute(listing:_:)`); a file not in
    /// `listed` is hashed here.
    static func compute(_ items: [Item], listed: [String: Result<FileDigest, NightlyError>]) throws(NightlyError)
        -> Fingerprint
    {
        var builder = Builder()
        for item in items {
            switch item {
            case .bytes(let tag, let bytes): builder.item(tag, bytes)
            case .file(let tag, let path): try builder.file(tag, path: path)
            case .listed(let path):
                if let taken = listed[path] {
                    builder.inputs.append(try taken.get())
                } else {
                    builder.inputs.append(try FileDigest.sha256(path: path))
                }
            }
        }
        return Fingerprint(hex: builder.hash.finalizeHex(), inputs: builder.inputs)
    }

    /// Feeds tagged, length-prefixed items into one hash.
    private struct Builder {
        var hash = SHA256()
        var inputs: [FileDigest] = []

        /// `tag`, a zero byte, then the length as 8 big-endian bytes.
        static func header(_ tag: String, length: UInt64, into hash: inout SHA256) {
            var bytes = Array(tag.utf8) + [0]
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
            hash.update(bytes)
        }

        mutating func item(_ tag: String, _ bytes: [UInt8]) {
            Self.header(tag, length: UInt64(bytes.count), into: &hash)
            hash.update(bytes)
        }

        mutating func file(_ tag: String, path: String) throws(NightlyError) {
            var local = hash
            let digest = try FileDigest.stream(
                path: path,
                expectSize: { size in Self.header(tag, length: size, into: &local) }, { chunk in local.update(chunk) })
            hash = local
            inputs.append(digest)
        }
    }
}
