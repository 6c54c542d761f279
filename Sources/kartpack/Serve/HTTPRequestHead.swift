/// The request line and headers of one HTTP/1.x request, as `LocalHTTPServer` reads them.
struct HTTPRequestHead: Sendable, Equatable {
    /// Most bytes of a request line plus headers; more is refused with 431.
    static let maxBytes = 16 * 1024
    /// Most header lines; more is refused with 431.
    static let maxHeaders = 100

    var method: String
    /// The path part of the target, still percent-encoded, without the query.
    var path: String
    /// Header names in lower case; a repeated header keeps its first value.
    var headers: [String: String]

    /// Why a head was refused: the HTTP status to answer with.
    enum Failure: Error, Equatable {
        case badRequest(String)
        case tooLarge
    }

    /// Parses the bytes before the blank line (`\r\n\r\n`, also bare `\n\n`).
    static func parse(_ bytes: [UInt8]) throws(Failure) -> HTTPRequestHead {
        guard bytes.count <= maxBytes else { throw .tooLarge }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .badRequest("not UTF-8") }
        // Split on scalars: "\r\n" is one Character in Swift, so splitting the String at "\n" would not split it.
        var lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Substring(line.last == "\r" ? String(line.dropLast()) : String(line))
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw .badRequest("empty request") }
        let parts = first.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && $0.isUppercase })
        else { throw .badRequest("bad request line") }
        var target = parts[1]
        // An absolute-form target (`http://host/path`) is reduced to its path.
        if let scheme = target.range(of: "://") {
            let rest = target[scheme.upperBound...]
            target = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        guard target.hasPrefix("/") else { throw .badRequest("the target must start with /") }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard lines.count - 1 <= maxHeaders else { throw .tooLarge }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .badRequest("bad header line")
            }
            let name = line[..<colon].lowercased()
            guard !name.contains(" "), !name.contains("\t") else { throw .badRequest("bad header name") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if headers[name] == nil { headers[name] = value }
        }
        return HTTPRequestHead(method: String(parts[0]), path: String(path), headers: headers)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: TrimSet) -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    fileprivate enum TrimSet { case whitespaces }
}
