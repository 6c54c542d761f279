/// A location inside a pipeline document, written `sources[1].minZoom` (the root is the empty path).
///
/// Keys that are not plain identifiers are written in brackets: `sources[0].rename["A.B"]`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step: an object key or an array index.
    public enum Component: Sendable, Hashable {
        /// A member of an object.
        case key(String)
        /// An element of an array (0-based).
        case index(Int)
    }

    /// The steps from the root.
    public var components: [Component]

    /// Creates a path from its steps.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The document root.
    public static let root = JSONPath()

    /// The path of the containing value; the root is its own parent.
    public var parent: JSONPath { JSONPath(Array(components.dropLast())) }

    /// This path followed by an object key.
    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }

    /// This path followed by an array index.
    public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }

    /// `sources[1].minZoom`; the root is written as the empty string.
    public var description: String {
        var s = ""
        for c in components {
            switch c {
            case .index(let i): s += "[\(i)]"
            case .key(let k):
                if Self.isIdentifier(k) {
                    if !s.isEmpty { s += "." }
                    s += k
                } else {
                    s += "[\"" + k.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\"]"
                }
            }
        }
        return s
    }

    /// True for keys written without brackets: letters, digits, `_` and `-`, not starting with a digit.
    static func isIdentifier(_ k: String) -> Bool {
        guard let first = k.unicodeScalars.first, first.properties.numericType == nil else { return false }
        return k.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" || $0 == "-"
        }
    }

    /// Parses the text written by `description` (`tiles.maxZoom`, `sources[0].crs`, `sources[0].rename["A.B"]`).
    /// Returns nil for malformed text.
    public static func parse(_ text: String) -> JSONPath? {
        let chars = Array(text)
        var i = 0
        var out: [Component] = []
        var expectKey = true  // at the start, or after a '.'
        while i < chars.count {
            let c = chars[i]
            if c == "[" {
                i += 1
                if i < chars.count, chars[i] == "\"" {
                    i += 1
                    var key = ""
                    var closed = false
                    while i < chars.count {
                        if chars[i] == "\\", i + 1 < chars.count {
                            key.append(chars[i + 1])
                            i += 2
                        } else if chars[i] == "\"" {
                            closed = true
                            i += 1
                            break
                        } else {
                            key.append(chars[i])
                            i += 1
                        }
                    }
                    guard closed, i < chars.count, chars[i] == "]" else { return nil }
                    out.append(.key(key))
                } else {
                    var digits = ""
                    while i < chars.count, chars[i].isASCII, chars[i].isNumber {
                        digits.append(chars[i])
                        i += 1
                    }
                    guard !digits.isEmpty, digits.count <= 9, let n = Int(digits), i < chars.count, chars[i] == "]"
                    else { return nil }
                    out.append(.index(n))
                }
                i += 1
                expectKey = false
            } else if c == "." {
                guard !out.isEmpty, !expectKey else { return nil }
                expectKey = true
                i += 1
            } else {
                guard expectKey || out.isEmpty else { return nil }
                var key = ""
                while i < chars.count, chars[i] != ".", chars[i] != "[" {
                    key.append(chars[i])
                    i += 1
                }
                guard !key.isEmpty else { return nil }
                out.append(.key(key))
                expectKey = false
            }
        }
        guard !out.isEmpty, !expectKey else { return nil }
        return JSONPath(out)
    }
}

extension JSONPath: ExpressibleByArrayLiteral {
    /// A path written as its steps: `[.key("sources"), .index(0)]`.
    public init(arrayLiteral elements: Component...) {
        self.init(elements)
    }
}
