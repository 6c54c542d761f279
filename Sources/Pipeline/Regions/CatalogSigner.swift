import Foundation
import KartpackCore

/// Signs and checks `catalog.json` with the `minisign` program (Debian `minisign`), run as a child process that
/// never prompts: its standard input is the password file, or empty (a key made with `minisign -G -W` has no
/// password). A child that does not finish within `timeout` seconds is killed.
package struct CatalogSigner: Sendable {
    /// Seconds a minisign child may take.
    package var timeout: Double = 120

    package init() {}

    /// Writes a signature of `file` to `signature` (atomically: a temporary file renamed into place).
    package func sign(file: String, signature: String, secretKey: String, passwordFile: String?) throws(SigningError) {
        let temporary = signature + ".tmp-\(getpid())"
        defer { unlink(temporary) }
        let (status, message) = try Self.run(
            ["-S", "-s", secretKey, "-m", file, "-x", temporary], stdin: passwordFile, timeout: timeout)
        guard status == 0 else {
            let hint = passwordFile == nil ? " (a key with a password needs --sign-password-file)" : ""
            throw .failed(operation: "sign \(file) with \(secretKey)", message: message + hint)
        }
        guard rename(temporary, signature) == 0 else {
            throw .failed(operation: "publish \(signature)", message: String(cString: strerror(errno)))
        }
    }

    /// Nil when `signature` is a valid signature of `file` by `publicKey`, else minisign's reason.
    package func check(file: String, signature: String, publicKey: String) throws(SigningError) -> String? {
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
    case notInstalled
    case failed(operation: String, message: String)

    package var exitCode: ExitCode {
        switch self {
        case .notInstalled: .config
        case .failed: .config
        }
    }
    package var description: String {
        switch self {
        case .notInstalled:
            "minisign is not installed (Debian: apt-get install minisign); needed for --sign and --pubkey"
        case .failed(let op, let m): "cannot \(op): \(m)"
        }
    }
}
