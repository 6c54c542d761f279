import Glibc
import KartpackCore

/// A hash of everything a pipeline's output depends on, for the nightly up-to-date check.
///
/// SHA-256 over, in this order: a format tag, the Kartpack version, the canonical spec (paths relative to the
/// pipeline file, so moving the checkout keeps the hash), the stylesheet's bytes, then for each source (and then
/// the clip file) the bytes of its `.shp`, `.shx`, `.dbf`, `.prj` and `.cpg` that exist, each item prefixed by
/// its tag (the extension) and its length. File names and times are not hashed: only contents.
public struct Fingerprint: Sendable, Hashable {
    /// The fingerprint as 64 lowercase hex digits.
    public var hex: String
    /// Every file read, in hashing order, with its size and own SHA-256 (for the run report).
    public var inputs: [FileDigest]

    /// Creates a fingerprint from parts.
    public init(hex: String, inputs: [FileDigest]) {
        self.hex = hex
        self.inputs = inputs
    }

    /// The Shapefile companion extensions hashed for each source, in hashing order.
    public static let shapefileExtensions = ["shp", "shx", "dbf", "prj", "cpg"]

    /// Hashes the spec and every input file it names.
    /// - Throws: `.inputUnreadable` (66) for a missing `.shp` or stylesheet, `.inputChanged` (75) for a file
    ///   that changed while being read, `.io` (74) for read errors.
    public static func compute(spec: PipelineSpec, kartpackVersion: String = Kartpack.version) throws(NightlyError)
        -> Fingerprint
    {
        var builder = Builder()
        builder.item("kartpack-fingerprint", Array("1".utf8))
        builder.item("version", Array(kartpackVersion.utf8))
        builder.item("spec", Array(spec.canonicalJSON.utf8))
        if let style = spec.style {
            try builder.file("style", path: style)
        } else {
            builder.item("style-none", [])
        }
        for source in spec.sources {
            builder.item("source", Array(source.layer.utf8))
            try builder.shapefile(source.path)
        }
        if let clip = spec.clip, case .file(let path, _) = clip.area {
            builder.item("clip", [])
            try builder.shapefile(path)
        }
        return Fingerprint(hex: builder.hash.finalizeHex(), inputs: builder.inputs)
    }

    /// The companion files of a `.shp` that exist, in `shapefileExtensions` order (the `.shp` itself first,
    /// even when it is missing, so that reading it reports the error). Extensions match in lower or upper case.
    public static func shapefileParts(of shpPath: String) -> [(ext: String, path: String)] {
        let base = String(shpPath.dropLast(4))
        var out: [(String, String)] = [("shp", shpPath)]
        for ext in shapefileExtensions.dropFirst() {
            for candidate in [base + "." + ext, base + "." + ext.uppercased()] where isRegularFile(candidate) {
                out.append((ext, candidate))
                break
            }
        }
        return out
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }

    /// Feeds tagged, length-prefixed items into one hash.
    private struct Builder {
        var hash = SHA256()
        var inputs: [FileDigest] = []

        /// `tag`, a zero byte, then the length as 8 big-endian bytes.
        static func header(_ tag: String, length: UInt64, into hash: inout SHA256) {
            var bytes = Array(tag.utf8) + [0]
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
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

        mutating func shapefile(_ shpPath: String) throws(NightlyError) {
            for part in Fingerprint.shapefileParts(of: shpPath) { try file(part.ext, path: part.path) }
        }
    }
}
