import Foundation
import KartpackCore

/// Signs and checks `catalog.json` with the `minisign` program (Debian `minisign`), run as a child process that
/// never prompts: its standard input is the password file, or empty (a key made with `minisign -G -W` has no
/// password). A child that does not finish within `timeout` seconds is killed.
package struct CatalogSigner: Sendable {
    /// Seconds a minisign child may take.
    package var timeout: Double = 120

    package init() {}

    /// Writes a signature of `file` to `signature` (a staging path the caller publishes; on failure it is
    /// removed). `name` is the file name the trusted comment gives (the published name, not the staging one), with
    /// `timestamp` (seconds since 1970: the catalog's `created`, so a fixed build time gives the same signature).
    package func sign(
        file: String, signature: String, name: String, secretKey: String, passwordFile: String?, timestamp stamp: Int
    ) throws(SigningError) {
        try Self.checkInputs(secretKey: secretKey, passwordFile: passwordFile)
        let (status, message) = try Self.run(
            ["-S", "-s", secretKey, "-m", file, "-x", signature, "-t", "timestamp:\(stamp)\tfile:\(name)"],
            stdin: passwordFile, timeout: timeout)
        guard status == 0 else {
            unlink(signature)
            let hint = passwordFile == nil ? " (a key with a password needs --sign-password-file)" : ""
            throw .failed(operation: "sign \(file) with \(secretKey)", message: message + hint)
        }
    }

    /// Checks, before anything is built, that signing can work: `minisign` is installed (else 69) and the key and
    /// password files are regular files (a FIFO or device would block minisign or Kartpack; else 66).
    package static func checkInputs(secretKey: String, passwordFile: String?) throws(SigningError) {
        _ = try executable()
        for (path, what) in [(secretKey, "secret key"), (passwordFile, "password file")] {
            guard let path else { continue }
            try requireRegularFile(path, what: what)
        }
    }

    /// Throws `.notRegularFile` unless `path` (following symbolic links) is a regular file.
    package static func requireRegularFile(_ path: String, what: String) throws(SigningError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw .notRegularFile(path: path, what: what, reason: String(cString: strerror(errno)))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw .notRegularFile(
                path: path, what: what, reason: "is a \(RegularFile.describe(st.st_mode)), not a regular file")
        }
    }

    /// Nil when `signature` is a valid signature of `file` by `publicKey`, else minisign's reason.
    package func check(file: String, signature: String, publicKey: String) throws(SigningError) -> String? {
        try Self.requireRegularFile(publicKey, what: "public key")
        try Self.requireRegularFile(signature, what: "signature")
        let (status, message) = try Self.run(
            ["-V", "-q", "-p", publicKey, "-m", file, "-x", signature], stdin: nil, timeout: timeout)
        return status == 0 ? nil : (message.isEmpty ? "signature verification failed" : message)
    }

    /// The path of `minisign` on PATH.
    static func executable() throws(SigningError) -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/minisign"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        throw .notInstalled
    }

    private static func run(
        _ arguments: [String], stdin: String?, timeout: Double
    ) throws(SigningError) -> (Int32, String) {
        let tool = try executable()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        if let stdin {
            try requireRegularFile(stdin, what: "password file")
            guard let handle = FileHandle(forReadingAtPath: stdin) else {
                throw .failed(operation: "read the password file", message: "\(stdin): cannot be opened")
            }
            process.standardInput = handle
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do { try process.run() } catch {
            throw .failed(operation: "start \(tool)", message: error.localizedDescription)
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            finished.wait()
            throw .failed(operation: "minisign", message: "did not finish within \(Int(timeout)) s")
        }
        let text = String(decoding: output, as: UTF8.self)
            .split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("Password") && !$0.hasPrefix("Deriving") }
            .joined(separator: "; ")
        return (process.terminationStatus, text)
    }
}

/// Signing or checking a catalog failed.
package enum SigningError: KartpackError, Equatable {
    /// `minisign` is not on PATH (69, EX_UNAVAILABLE).
    case notInstalled
    /// A key, password or signature file is missing or not a regular file (66).
    case notRegularFile(path: String, what: String, reason: String)
    /// minisign refused or failed (78: a wrong password, an unusable key).
    case failed(operation: String, message: String)

    package var exitCode: ExitCode {
        switch self {
        case .notInstalled: .unavailable
        case .notRegularFile: .noInput
        case .failed: .config
        }
    }
    package var description: String {
        switch self {
        case .notInstalled:
            "minisign is not installed (Debian: apt-get install minisign); needed for --sign and --pubkey"
        case .notRegularFile(let p, let what, let r): "\(p) (\(what)): \(r)"
        case .failed(let op, let m): "cannot \(op): \(m)"
        }
    }
}
