import Foundation
import Glibc
import Synchronization

/// A small HTTP/1.1 server on POSIX sockets for `kartpack serve`: GET, HEAD and OPTIONS (CORS preflight), single
/// byte ranges (PMTiles clients read archives by range), one request per connection.
///
/// Bounded: request heads over `HTTPRequestHead.maxBytes` get 431, more than `maxConnections` open connections
/// get 503 at once, a connection that sends nothing for `readTimeout` seconds is closed. `run` returns when
/// `stop()` is called (from a signal handler's cleanup), after the open connections finish or time out.
final class LocalHTTPServer: Sendable {
    static let maxConnections = 32
    static let readTimeout = 10
    static let writeTimeout = 30

    let site: ServedSite
    /// The port bound (the one given, or the one the system chose for 0).
    let port: Int
    private let listenFD: Int32
    private let stopPipe: (read: Int32, write: Int32)
    private let active = Mutex(0)

    /// Why the server could not start.
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// Binds `host:port` (an IPv4 address) and listens.
    init(site: ServedSite, host: String, port: Int) throws(StartError) {
        self.site = site
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &addr.sin_addr) == 1 else {
            close(fd)
            throw StartError(description: "--host \(host) is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw StartError(description: "cannot listen on \(host):\(port): \(reason)")
        }
        var actual = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            close(fd)
            throw StartError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for p in fds {
            _ = fcntl(p, F_SETFD, FD_CLOEXEC)
            _ = fcntl(p, F_SETFL, fcntl(p, F_GETFL) | O_NONBLOCK)
        }
        listenFD = fd
        stopPipe = (fds[0], fds[1])
    }

    deinit {
        close(listenFD)
        close(stopPipe.read)
        close(stopPipe.write)
    }

    /// Makes `run` return (async-signal-safe: one `write`).
    func stop() {
        var b: UInt8 = 1
        _ = write(stopPipe.write, &b, 1)
    }

    /// Accepts connections until `stop()`; each is answered on its own thread.
    func run() {
        var fds = [
            pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if n < 0 || fds[1].revents != 0 { break }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let admitted = active.withLock { count -> Bool in
                guard count < Self.maxConnections else { return false }
                count += 1
                return true
            }
            guard admitted else {
                Self.send(client, HTTPResponse(status: 503, body: Array("too many connections\n".utf8)).head, [])
                close(client)
                continue
            }
            let site = self.site
            let port = self.port
            Thread.detachNewThread { [self] in
                HTTPConnection(fd: client, site: site, port: port).serve()
                close(client)
                active.withLock { $0 -= 1 }
            }
        }
        // Let the open connections finish (each is bounded by its timeouts).
        let deadline = Date().addingTimeInterval(Double(Self.writeTimeout))
        while active.withLock({ $0 }) > 0, Date() < deadline { usleep(20_000) }
    }

    /// Writes every byte (`MSG_NOSIGNAL`: a closed peer is an error, never SIGPIPE); false on failure.
    @discardableResult
    static func send(_ fd: Int32, _ head: [UInt8], _ body: ArraySlice<UInt8>) -> Bool {
        for part in [head[...], body] {
            var offset = part.startIndex
            while offset < part.endIndex {
                let n = part[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
        }
        return true
    }
}
