import Foundation
import KartpackJSON

/// Typed, range-checked reads of catalog members; each failure names the member.
struct CatalogReader {
    var name: String
    /// The two time forms a catalog may hold, made once per catalog (not per date: a national catalog has
    /// hundreds of thousands of `built` times, and a formatter costs more to make than to use).
    private let plain = Self.formatter([.withInternetDateTime])
    private let fractional = Self.formatter([.withInternetDateTime, .withFractionalSeconds])

    init(name: String) { self.name = name }

    func fail(_ at: String, _ why: String) -> KartpackKitError {
        .invalidCatalog(path: name, reason: "\(at): \(why)")
    }

    func member(_ o: JSONValue, _ key: String, _ at: String) throws(KartpackKitError) -> JSONValue {
        guard let v = o[key] else { throw fail(at.isEmpty ? key : "\(at).\(key)", "missing") }
        return v
    }

    func object(_ v: JSONValue, _ at: String) throws(KartpackKitError) -> JSONValue {
        guard v.objectMembers != nil else { throw fail(at, "must be an object") }
        return v
    }

    func array(_ o: JSONValue, _ key: String, at: String = "") throws(KartpackKitError) -> [JSONValue] {
        guard let a = try member(o, key, at).arrayValue else {
            throw fail(path(at, key), "must be an array")
        }
        return a
    }

    func string(_ o: JSONValue, _ key: String, at: String = "", nonEmpty: Bool = false)
        throws(KartpackKitError)
        -> String
    {
        guard let s = try member(o, key, at).stringValue else {
            throw fail(path(at, key), "must be a string")
        }
        guard !nonEmpty || !s.isEmpty else { throw fail(path(at, key), "must not be empty") }
        guard s.utf8.count <= 4096 else { throw fail(path(at, key), "longer than 4096 bytes") }
        return s
    }

    /// A whole number in `range`; fractions, strings, booleans and numbers beyond 2^53 are refused.
    func int(_ o: JSONValue, _ key: String, _ range: ClosedRange<Int64>, at: String = "")
        throws(KartpackKitError)
        -> Int64
    {
        let v = try member(o, key, at)
        guard let i = v.intValue, abs(Double(i)) <= 9_007_199_254_740_992 else {
            throw fail(path(at, key), "must be a whole number (got \(Self.shown(v)))")
        }
        guard range.contains(i) else {
            throw fail(path(at, key), "\(i) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return i
    }

    func date(_ o: JSONValue, _ key: String, at: String = "") throws(KartpackKitError) -> Date {
        let s = try string(o, key, at: at)
        guard let d = parseDate(s) else {
            throw fail(path(at, key), "\"\(s)\" is not an ISO-8601 UTC time (YYYY-MM-DDThh:mm:ssZ)")
        }
        return d
    }

    func parseDate(_ s: String) -> Date? {
        guard s.hasSuffix("Z") else { return nil }
        return plain.date(from: s) ?? fractional.date(from: s)
    }

    private static func formatter(_ options: ISO8601DateFormatter.Options) -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = options
        return f
    }

    func path(_ at: String, _ key: String) -> String { at.isEmpty ? key : "\(at).\(key)" }

    static func shown(_ v: JSONValue) -> String {
        let s = (try? v.serialized()) ?? "a non-finite number"
        return s.count > 40 ? String(s.prefix(40)) + "…" : s
    }

    /// A region `file`: a relative path of plain names below the catalog's folder.
    func file(_ s: String, at: String) throws(KartpackKitError) -> String {
        let why: String?
        let parts = s.split(separator: "/", omittingEmptySubsequences: false)
        if s.isEmpty {
            why = "is empty"
        } else if s.hasPrefix("/") || s.hasPrefix("~") {
            why = "must be relative to the catalog"
        } else if s.contains("\\")
            || s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            why = "holds a backslash or a control character"
        } else if s.contains(":") {
            why = "holds a colon (a URL scheme or drive letter)"
        } else if parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            why = "must not hold empty, . or .. path components"
        } else {
            why = nil
        }
        if let why { throw fail("\(at).file", "\"\(s)\" \(why)") }
        return s
    }

    func region(_ v: JSONValue, at: String) throws(KartpackKitError) -> CatalogRegion {
        let r = try object(v, at)
        let digest = try string(r, "sha256", at: at).lowercased()
        guard digest.utf8.count == 64,
            digest.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) })
        else { throw fail("\(at).sha256", "must be 64 hex digits") }
        let b = try array(r, "bounds", at: at)
        let numbers = b.compactMap(\.doubleValue)
        guard b.count == 4, numbers.count == 4 else {
            throw fail("\(at).bounds", "must be [west, south, east, north]")
        }
        let bounds = GeoRegion(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
        guard bounds.isValid else {
            throw fail("\(at).bounds", "\(bounds) is not a WGS 84 box with west ≤ east and south ≤ north")
        }
        let minZoom = try int(r, "minZoom", 0...31, at: at)
        let maxZoom = try int(r, "maxZoom", 0...31, at: at)
        guard minZoom <= maxZoom else {
            throw fail("\(at).minZoom", "\(minZoom) is above maxZoom \(maxZoom)")
        }
        var layers: [CatalogRegion.Layer] = []
        for (i, l) in try array(r, "layers", at: at).enumerated() {
            let here = "\(at).layers[\(i)]"
            let lo = try object(l, here)
            var classes: [String] = []
            for (j, c) in try array(lo, "classes", at: here).enumerated() {
                guard let s = c.stringValue else { throw fail("\(here).classes[\(j)]", "must be a string") }
                classes.append(s)
            }
            layers.append(
                CatalogRegion.Layer(
                    name: try string(lo, "name", at: here, nonEmpty: true),
                    features: Int(try int(lo, "features", 0...Int64(Int32.max) * 1024, at: here)),
                    classes: classes))
        }
        return CatalogRegion(
            id: try string(r, "id", at: at, nonEmpty: true), name: try string(r, "name", at: at),
            file: try file(try string(r, "file", at: at), at: at),
            bytes: try int(r, "bytes", 0...(Int64(1) << 50), at: at), sha256: digest, bounds: bounds,
            minZoom: Int(minZoom), maxZoom: Int(maxZoom), layers: layers,
            built: try date(r, "built", at: at),
            fingerprint: try string(r, "fingerprint", at: at))
    }
}
