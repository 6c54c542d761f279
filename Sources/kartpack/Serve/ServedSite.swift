import Foundation
import KartpackCore
import MapStyle

/// What `kartpack serve` serves: the files under one root folder, single files mounted at fixed paths (a package
/// given alone), and the viewer (`index.html`, `viewer/…`) when the folder has none.
///
/// A request path is percent-decoded, split at `/`, and refused when a segment is `..` or starts with a dot, or
/// holds a NUL; a file is served only when its real path (symbolic links resolved) lies inside the real root.
struct ServedSite: Sendable {
    /// The real path of the root folder.
    let root: String
    /// Request path (`/forest-plan.pmtiles`) → real file path.
    var mounts: [String: String] = [:]
    /// Request path → content held in memory.
    var pages: [String: [UInt8]] = [:]
    /// The folder holding `ViewerPage.libraryFiles`, served under `/viewer/` when the root lacks them.
    var library: String?
    /// The package whose tiles `/tiles/Z/X/Y.pbf` serves (a package given alone), nil for none.
    var tilePackage: String?

    /// Where a request path leads.
    enum Target: Equatable {
        case file(String)
        case memory([UInt8])
        case notFound
        case forbidden
        /// A tile of `tilePackage`.
        case tile(z: Int, x: Int, y: Int)
    }

    init(root: String) {
        self.root = RegularFile.realPath(root) ?? root
    }

    /// The target of a request path (still percent-encoded).
    func target(_ rawPath: String) -> Target {
        guard let decoded = Self.percentDecoded(rawPath) else { return .forbidden }
        var segments: [String] = []
        for s in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            guard !s.hasPrefix("."), !s.contains("\0") else { return .forbidden }
            segments.append(String(s))
        }
        if decoded.hasSuffix("/") || segments.isEmpty { segments.append("index.html") }
        let path = "/" + segments.joined(separator: "/")
        if let m = mounts[path] { return .file(m) }
        if tilePackage != nil, let t = Self.tileAddress(segments) { return t }
        let joined = root + path
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: joined, isDirectory: &isDir) {
            guard let real = RegularFile.realPath(joined), real.hasPrefix(root.hasSuffix("/") ? root : root + "/")
            else {
                return .forbidden
            }
            if isDir.boolValue { return target(rawPath + "/") }
            return .file(real)
        }
        if let page = pages[path] { return .memory(page) }
        if let library, segments.count == 2, segments[0] == "viewer", ViewerPage.libraryFiles.contains(segments[1]) {
            return .file((library as NSString).appendingPathComponent(segments[1]))
        }
        return .notFound
    }

    /// `tiles/Z/X/Y.pbf` (also `.mvt`) inside the tile grid, else nil.
    static func tileAddress(_ segments: [String]) -> Target? {
        guard segments.count == 4, segments[0] == "tiles" else { return nil }
        let last = segments[3]
        guard last.hasSuffix(".pbf") || last.hasSuffix(".mvt"), let z = Int(segments[1]), let x = Int(segments[2]),
            let y = Int(last.dropLast(4)), (0...30).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y)
        else { return nil }
        return .tile(z: z, x: x, y: y)
    }

    /// `%XX` escapes decoded; nil for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var it = Array(text.utf8)[...]
        while let b = it.popFirst() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard it.count >= 2, let h = hex(it.popFirst()!), let l = hex(it.popFirst()!) else { return nil }
            bytes.append(h << 4 | l)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The `Content-Type` of a file name.
    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        case "pbf", "mvt": "application/x-protobuf"
        default: "application/octet-stream"
        }
    }
}
