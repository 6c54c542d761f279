import Foundation

/// One region of a catalog: a package to download, with its size, digest and coverage.
public struct CatalogRegion: Sendable, Hashable {
    /// A layer of the region's package.
    public struct Layer: Sendable, Hashable {
        /// The layer name.
        public var name: String
        /// Its feature count.
        public var features: Int
        /// The classes its features have.
        public var classes: [String]

        /// A layer entry.
        public init(name: String, features: Int, classes: [String]) {
            self.name = name
            self.features = features
            self.classes = classes
        }
    }

    /// The region's unique id.
    public var id: String
    /// A display name.
    public var name: String
    /// The package file, relative to the catalog (checked: no `..`, no absolute path, no scheme).
    public var file: String
    /// The package's size in bytes.
    public var bytes: Int64
    /// The package's SHA-256, 64 lowercase hex digits.
    public var sha256: String
    /// The package's bounds in WGS 84.
    public var bounds: GeoRegion
    /// The package's lowest zoom.
    public var minZoom: Int
    /// The package's highest zoom.
    public var maxZoom: Int
    /// The package's layers.
    public var layers: [Layer]
    /// When the package was built.
    public var built: Date
    /// The fingerprint of the inputs it was built from.
    public var fingerprint: String

    /// A region entry (what `kartpack package` writes for one package).
    public init(
        id: String, name: String, file: String, bytes: Int64, sha256: String, bounds: GeoRegion, minZoom: Int,
        maxZoom: Int, layers: [Layer], built: Date, fingerprint: String
    ) {
        self.id = id
        self.name = name
        self.file = file
        self.bytes = bytes
        self.sha256 = sha256
        self.bounds = bounds
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.layers = layers
        self.built = built
        self.fingerprint = fingerprint
    }
}

/// What checking a catalog's signature found. Never a silent pass: a platform without Ed25519 says so.
public enum SignatureCheck: Sendable, Hashable {
    /// The signature is valid for the catalog bytes and the key; the signed trusted comment.
    case valid(trustedComment: String)
    /// The signature, the key or the catalog does not match or is malformed.
    case invalid(reason: String)
    /// This platform or this signature form cannot be checked (on Linux: no CryptoKit, so no Ed25519).
    case unavailable(reason: String)
}
