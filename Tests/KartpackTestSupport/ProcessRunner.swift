import Foundation

/// The outcome of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program to completion, capturing its output (stdin is /dev/null).
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: String? = nil
) throws -> ProcessResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    if let currentDirectory { p.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    // Read both pipes concurrently so a full stderr pipe cannot block the child.
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return ProcessResult(
        status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs the `kartpack` executable, with `environment` added to this process's environment (none by default).
public func runKartpack(
    _ arguments: [String], currentDirectory: String? = nil, environment: [String: String] = [:]
) throws -> ProcessResult {
    var env: [String: String]?
    if !environment.isEmpty {
        env = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    }
    return try runProcess(
        RepositoryPaths.kartpackBinary, arguments, environment: env, currentDirectory: currentDirectory)
}

/// Runs a `/bin/sh -c` script with `$KP` set to the `kartpack` executable (for redirections such as `>&-`,
/// `> /dev/full` or a pipe closed early, which `Process` cannot express).
public func runShell(_ script: String, currentDirectory: String? = nil) throws -> ProcessResult {
    var env = ProcessInfo.processInfo.environment
    env["KP"] = RepositoryPaths.kartpackBinary
    return try runProcess("/bin/sh", ["-c", script], environment: env, currentDirectory: currentDirectory)
}
