import Foundation

/// A private folder for the files one fuzz process hands to readers that take paths; removed when the process
/// exits normally (a crashing process leaves it behind, named `kartpack-fuzz-*`: `scripts/fuzz-long.sh` and
/// `scripts/fuzz-replay.sh` put them all in one folder that they remove at the end).
public struct FuzzScratch: Sendable {
    /// The folder's path.
    public let path: String

    /// The process's folder, made on first use under `$KARTPACK_FUZZ_TMPDIR` (set by `scripts/fuzz-long.sh`, which
    /// removes it afterwards), else under `/dev/shm` when it is writable (no disk I/O per run), else `$TMPDIR` or
    /// `/tmp`.
    public static let shared: FuzzScratch = {
        let environment = ProcessInfo.processInfo.environment
        var parents: [String] = []
        if let chosen = environment["KARTPACK_FUZZ_TMPDIR"], !chosen.isEmpty { parents.append(chosen) }
        if access("/dev/shm", W_OK) == 0 { parents.append("/dev/shm") }
        parents.append(environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        for parent in parents {
            var template = Array("\(parent)/kartpack-fuzz-XXXXXX".utf8CString)
            let made = template.withUnsafeMutableBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                return mkdtemp(base) != nil
            }
            if made {
                let dir = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                atexit { FuzzScratch.shared.removeAll() }
                return FuzzScratch(path: dir)
            }
        }
        FuzzDriver.fail("cannot create a scratch folder under \(parents)")
    }()

    /// The path of file `name` in the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to file `name` (replacing it), or removes the file when `bytes` is nil.
    public func write(_ name: String, _ bytes: [UInt8]?) {
        let target = file(name)
        guard let bytes else {
            _ = unlink(target)
            return
        }
        let fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { FuzzDriver.fail("cannot create \(target): errno \(errno)") }
        defer { _ = close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.write(fd, base + done, raw.count - done)
            }
            guard n > 0 else { FuzzDriver.fail("cannot write \(target): errno \(errno)") }
            done += n
        }
    }

    /// Removes the folder and everything in it.
    public func removeAll() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
