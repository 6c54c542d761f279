import Foundation
import KartpackJSON

/// Bounded reads of the small files of a style folder or catalog.
enum StyleFolderFile {
    /// The file's bytes; refuses what is not a regular file (after following links) and files over `maxBytes`.
    static func bytes(_ url: URL, maxBytes: Int) throws(KartpackKitError) -> Data {
        guard url.isFileURL else {
            throw .cannotOpen(path: url.absoluteString, reason: "not a file: URL")
        }
        let path = url.path
        // A link is followed (a package folder's names link into its published generation); what it names must
        // be a regular file.
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path) } catch {
            throw .cannotOpen(path: path, reason: "no such file or no permission")
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw .cannotOpen(path: path, reason: "not a regular file")
        }
        if let size = attributes[.size] as? NSNumber, size.int64Value > Int64(maxBytes) {
            throw .cannotOpen(path: path, reason: "larger than \(maxBytes) bytes")
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .cannotOpen(path: path, reason: "cannot be read")
        }
        guard data.count <= maxBytes else {
            throw .cannotOpen(path: path, reason: "larger than \(maxBytes) bytes")
        }
        return data
    }

    /// The file parsed as JSON (depth-capped).
    enum Kind { case style, catalog }

    static func json(_ url: URL, maxBytes: Int, kind: Kind) throws(KartpackKitError) -> JSONValue {
        let data = try bytes(url, maxBytes: maxBytes)
        do {
            return try JSONParser.parse(
                [UInt8](data), options: JSONParseOptions(maxDepth: 64, maxBytes: maxBytes))
        } catch {
            let why = "not JSON: \(error)"
            throw kind == .style
                ? .invalidStyle(path: url.path, reason: why) : .invalidCatalog(path: url.path, reason: why)
        }
    }
}
