import Foundation
import KartpackCore
import TileArchive

/// One connection of `LocalHTTPServer`: reads a request head (bounded, with a timeout), answers it, and returns
/// (the caller closes the socket).
struct HTTPConnection {
    let fd: Int32
    let site: ServedSite
    let port: Int
    /// Style files larger than this are served as they are, not rewritten.
    static let maxStyleBytes = 16 << 20
    /// Bytes read from a file per `send`.
    static let chunk = 256 * 1024

    func serve() {
        var rcv = timeval(tv_sec: LocalHTTPServer.readTimeout, tv_usec: 0)
        var snd = timeval(tv_sec: LocalHTTPServer.writeTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rcv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, socklen_t(MemoryLayout<timeval>.size))
        let request: HTTPRequestHead
        switch readHead() {
        case .success(let r): request = r
        case .failure(.tooLarge):
            reply(HTTPResponse(status: 431, body: Array("request head too large\n".utf8)))
            return lingeringClose()
        case .failure(.badRequest(let why)):
            reply(HTTPResponse(status: 400, body: Array("\(why)\n".utf8)))
            return lingeringClose()
        }
        switch request.method {
        case "GET", "HEAD": answer(request, bodyToo: request.method == "GET")
        case "OPTIONS":
            reply(
                HTTPResponse(
                    status: 204,
                    headers: [
                        ("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
                        ("Access-Control-Allow-Headers", "Range, If-Match, If-None-Match, Cache-Control"),
                        ("Access-Control-Max-Age", "600"),
                    ]))
        default:
            reply(
                HTTPResponse(status: 405, headers: [("Allow", "GET, HEAD, OPTIONS")], body: Array("GET or HEAD\n".utf8))
            )
        }
    }

    /// After an error answered before the request was read to its end: stop sending and read (and drop) what
    /// the client still sends, for at most a second and 1 MiB, so closing does not reset the connection and lose
    /// the answer.
    private func lingeringClose() {
        shutdown(fd, Int32(SHUT_WR))
        var t = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var total = 0
        while total < 1 << 20 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            total += n
        }
    }

    private func reply(_ r: HTTPResponse, bodyToo: Bool = true) {
        LocalHTTPServer.send(fd, r.head, bodyToo ? r.body[...] : [])
    }

    /// Reads up to the blank line; the bytes after it (a body) are ignored.
    private func readHead() -> Result<HTTPRequestHead, HTTPRequestHead.Failure> {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failure(.badRequest("the request ended early or timed out")) }
            let start = max(0, bytes.count - 3)
            bytes += buffer[..<n]
            if let end = Self.headEnd(bytes, from: start) {
                return Result { () throws(HTTPRequestHead.Failure) in try HTTPRequestHead.parse(Array(bytes[..<end])) }
            }
            if bytes.count > HTTPRequestHead.maxBytes { return .failure(.tooLarge) }
        }
    }

    /// The index of the blank line ending a head (`\r\n\r\n` or `\n\n`), searching from `from`.
    static func headEnd(_ b: [UInt8], from: Int) -> Int? {
        var i = from
        while i < b.count {
            if b[i] == 10 {
                if i + 1 < b.count, b[i + 1] == 10 { return i }
                if i + 2 < b.count, b[i + 1] == 13, b[i + 2] == 10 { return i }
            }
            i += 1
        }
        return nil
    }

    private func answer(_ request: HTTPRequestHead, bodyToo: Bool) {
        switch site.target(request.path) {
        case .forbidden: reply(HTTPResponse(status: 403, body: Array("forbidden\n".utf8)), bodyToo: bodyToo)
        case .notFound: reply(HTTPResponse(status: 404, body: Array("not found\n".utf8)), bodyToo: bodyToo)
        case .memory(let bytes):
            let type = ServedSite.contentType(request.path.hasSuffix("/") ? "index.html" : request.path)
            reply(HTTPResponse(status: 200, headers: [("Content-Type", type)], body: bytes), bodyToo: bodyToo)
        case .file(let path): sendFile(path, request: request, bodyToo: bodyToo)
        case .tile(let z, let x, let y): sendTile(z: z, x: x, y: y, bodyToo: bodyToo)
        }
    }

    private func sendFile(_ path: String, request: HTTPRequestHead, bodyToo: Bool) {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            return reply(HTTPResponse(status: 404, body: Array("not found\n".utf8)), bodyToo: bodyToo)
        }
        defer { close(file) }
        var st = stat()
        guard fstat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            return reply(HTTPResponse(status: 403, body: Array("not a file\n".utf8)), bodyToo: bodyToo)
        }
        let size = Int(st.st_size)
        let type = ServedSite.contentType(path)
        if path.hasSuffix(".json"), size <= Self.maxStyleBytes, let style = styleText(file, size: size, request) {
            return reply(HTTPResponse(status: 200, headers: [("Content-Type", type)], body: style), bodyToo: bodyToo)
        }
        var headers = [
            ("Content-Type", type), ("Accept-Ranges", "bytes"), ("ETag", "\"\(size)-\(st.st_mtim.tv_sec)\""),
        ]
        var lower = 0
        var upper = size - 1
        var status = 200
        switch ByteRange(header: request.headers["range"], size: size) {
        case .whole: break
        case .unsatisfiable:
            headers.append(("Content-Range", "bytes */\(size)"))
            return reply(HTTPResponse(status: 416, headers: headers), bodyToo: bodyToo)
        case .part(let a, let b):
            (lower, upper, status) = (a, b, 206)
            headers.append(("Content-Range", "bytes \(a)-\(b)/\(size)"))
        }
        let length = max(0, upper - lower + 1)
        let head = HTTPResponse(status: status, headers: headers, contentLength: length).head
        guard LocalHTTPServer.send(fd, head, []), bodyToo else { return }
        var offset = lower
        var buffer = [UInt8](repeating: 0, count: Self.chunk)
        while offset <= upper {
            let want = min(Self.chunk, upper - offset + 1)
            let n = buffer.withUnsafeMutableBytes { pread(file, $0.baseAddress, want, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0, LocalHTTPServer.send(fd, [], buffer[..<n]) else { return }
            offset += n
        }
    }

    /// A tile of the package as stored (gzip tiles with `Content-Encoding: gzip`, which the browser undoes);
    /// 204 for a tile the package does not have (an empty tile to MapLibre), 500 when the package cannot be read.
    private func sendTile(z: Int, x: Int, y: Int, bodyToo: Bool) {
        guard let path = site.tilePackage else { return reply(HTTPResponse(status: 404), bodyToo: bodyToo) }
        let stored: [UInt8]?
        do {
            stored = try openTileArchive(path: path).storedTile(TileCoordinate(z: z, x: x, y: y))
        } catch {
            return reply(HTTPResponse(status: 500, body: Array("\(error)\n".utf8)), bodyToo: bodyToo)
        }
        guard let stored, !stored.isEmpty else { return reply(HTTPResponse(status: 204), bodyToo: bodyToo) }
        var headers = [("Content-Type", "application/x-protobuf")]
        if stored.count >= 2, stored[0] == 0x1F, stored[1] == 0x8B { headers.append(("Content-Encoding", "gzip")) }
        reply(HTTPResponse(status: 200, headers: headers, body: stored), bodyToo: bodyToo)
    }

    /// A style file with its URLs made absolute against the URL it was requested from; nil for other JSON.
    private func styleText(_ file: Int32, size: Int, _ request: HTTPRequestHead) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress, size, 0) }
        guard n == size else { return nil }
        let folder = request.path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .joined(separator: "/")
        return StyleURLs.absolute(bytes, folderURL: "http://\(host(request))\(folder)/")
    }

    /// The `Host` header when it is a plain host[:port], else 127.0.0.1 and the bound port.
    private func host(_ request: HTTPRequestHead) -> String {
        if let h = request.headers["host"], !h.isEmpty, h.count <= 255,
            h.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".:-[]".contains($0)) })
        {
            return h
        }
        return "127.0.0.1:\(port)"
    }
}
