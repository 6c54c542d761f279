/// A response head (and small body) of `LocalHTTPServer`; every response closes the connection and allows any
/// origin (a page on another local port may load the tiles and the style).
struct HTTPResponse {
    var status: Int
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    /// The body's length when it is sent separately (a file), else `body.count`.
    var contentLength: Int?

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 206: "Partial Content"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 416: "Range Not Satisfiable"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// The status line and headers, ending with the blank line.
    var head: [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        var all = headers
        all.append(("Content-Length", String(contentLength ?? body.count)))
        all.append(("Connection", "close"))
        all.append(("Access-Control-Allow-Origin", "*"))
        all.append(("Access-Control-Expose-Headers", "Content-Range, Content-Length, Accept-Ranges, ETag"))
        all.append(("Cache-Control", "no-cache"))
        if !all.contains(where: { $0.0 == "Content-Type" }) {
            all.append(("Content-Type", "text/plain; charset=utf-8"))
        }
        for (k, v) in all { text += "\(k): \(v)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}
