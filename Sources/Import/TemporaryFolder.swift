import Foundation
import Glibc
import Synchronization

/// A fresh private folder made with `mkdtemp` (mode 0700), removed with everything in it by `remove()` or, at the
/// latest, when the last reference goes away. The single owner of that folder.
final class TemporaryFolder: Sendable {
    /// The folder's absolute path.
    let path: String
    private let removed = Mutex(false)

    /// Creates `<parent>/kartpack-import-XXXXXX`; `parent` defaults to `$TMPDIR`, then `/tmp`.
    init(parent: String?) throws(ImportError) {
        var base = parent ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/kartpack-import-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in
            buf.baseAddress.flatMap { mkdtemp($0) } != nil
        }
        guard made else {
            throw .io(path: base, reason: "cannot create a private temporary folder: \(String(cString: strerror(errno)))")
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Deletes the folder and its contents (never following symbolic links); later calls do nothing.
    /// Returns false when something could not be removed.
    @discardableResult
    func remove() -> Bool {
        let first = removed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return true }
        do {
            try FileManager.default.removeItem(atPath: path)
            return true
        } catch {
            return !FileManager.default.fileExists(atPath: path)
        }
    }

    deinit { remove() }
}
