import Foundation
import Glibc
import KartpackCore
import Synchronization

/// A fresh private folder made with `mkdtemp` (mode 0700), removed with everything in it by `remove()` or, at the
/// latest, when the last reference goes away. The single owner of that folder.
///
/// Layout: `<parent>/kartpack-import-<pid>-XXXXXX/` holds `owner` (a `ProcessIdentity` line saying which process
/// made it) and `export/`, the folder handed out as `path`. A later import uses `owner` to prove that the maker of
/// a leftover folder is gone before removing it (`ExtractionFolders.removeAbandoned`).
package final class TemporaryFolder: Sendable {
    /// The folder handed out (`…/export`), an absolute path.
    package let path: String
    /// The folder made with `mkdtemp`, removed as a whole.
    let container: String
    private let removed = Mutex(false)

    /// Creates `<parent>/kartpack-import-<pid>-XXXXXX`; `parent` defaults to `$TMPDIR`, then `/tmp`.
    package init(parent: String?) throws(ImportError) {
        let base = ExtractionFolders.folder(parent)
        var template = Array((base + "/" + ExtractionFolders.prefix + "\(getpid())-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buf in
            buf.baseAddress.flatMap { mkdtemp($0) } != nil
        }
        guard made else {
            throw .io(
                path: base, reason: "cannot create a private temporary folder: \(String(cString: strerror(errno)))")
        }
        container = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        path = container + "/export"
        let marker = Array((ProcessIdentity.current.line + "\n").utf8)
        let fd = open(container + "/owner", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        let wrote = fd >= 0 && marker.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == marker.count
        if fd >= 0 { close(fd) }
        guard wrote, mkdir(path, 0o700) == 0 else {
            let e = errno
            try? FileManager.default.removeItem(atPath: container)
            throw .io(path: container, reason: "cannot set up the temporary folder: \(ExtractionRun.errorText(e))")
        }
    }

    /// Deletes the folder and its contents (never following symbolic links); later calls do nothing.
    /// Returns false when something could not be removed.
    @discardableResult
    package func remove() -> Bool {
        let first = removed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return true }
        do {
            try FileManager.default.removeItem(atPath: container)
            return true
        } catch {
            return !FileManager.default.fileExists(atPath: container)
        }
    }

    deinit { remove() }
}

/// The extraction folders of `kartpack import` (`TemporaryFolder`) that killed imports left behind.
package enum ExtractionFolders {
    package static let prefix = "kartpack-import-"

    /// The folder extraction folders go in: `parent`, else `$TMPDIR`, else `/tmp`.
    package static func folder(_ parent: String?) -> String {
        var base = parent ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Removes the extraction folders in `parent` (default `$TMPDIR`, then `/tmp`) that are provably abandoned: named
    /// `kartpack-import-<pid>-XXXXXX`, a real folder owned by this user, with an `owner` marker naming a process
    /// that is provably gone (`ProcessIdentity.isProvablyGone`: same host and pid namespace, no such process or a
    /// different one under that pid). Anything else — another user's folder, one without a marker, one whose maker
    /// may still run — is left alone. Returns the removed folders.
    @discardableResult
    package static func removeAbandoned(parent: String? = nil) -> [String] {
        let base = folder(parent)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return [] }
        var removed: [String] = []
        for name in names.sorted() where isFolderName(name) {
            let folder = base + "/" + name
            var st = stat()
            guard lstat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == getuid() else { continue }
            guard let bytes = try? RegularFile.read(folder + "/owner", maxBytes: 1024),
                let line = String(validating: bytes, as: UTF8.self)?.split(separator: "\n").first,
                let owner = ProcessIdentity(line: String(line)), owner.isProvablyGone,
                name.hasPrefix(prefix + "\(owner.pid)-")
            else { continue }
            if (try? FileManager.default.removeItem(atPath: folder)) != nil { removed.append(folder) }
        }
        return removed
    }

    /// `kartpack-import-<digits>-<6 characters>`.
    static func isFolderName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        return rest.count == 2 && !rest[0].isEmpty && rest[0].allSatisfy(\.isASCII) && rest[0].allSatisfy(\.isNumber)
            && rest[1].count == 6
    }
}
