import Foundation
import KartpackTestSupport
import Testing

@testable import Nightly
/// A child process started with its stdout on a pipe; killed (SIGKILL) and reaped when released.
private final class ChildProcess {
    let process = Process()
    private let out = Pipe()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads stdout until a full line arrived (or EOF).
    func readLine() -> String {
        var data = Data()
        while !data.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill() }
}

private let pythonHolder = """
    import fcntl, os, socket, sys
    f = open(sys.argv[1], "a+")
    fcntl.flock(f, fcntl.LOCK_EX)
    f.seek(0); f.truncate(0)
    f.write("%d %s 2026-01-01T02:00:00Z\\n" % (os.getpid(), socket.gethostname())); f.flush()
    print("locked", flush=True)
    __import__("time").sleep(60)
    """

@Suite struct NightlyRunLockTests {
    @Test func aSecondLockInTheSameProcessFailsUntilReleased() throws {
        let dir = try TemporaryDirectory(prefix: "lock-same")
        let output = dir.file("o.pmtiles")
        let first = try RunLock(output: output)
        #expect(first.path == output + ".lock")
        #expect(first.isHeld)
        let text = try String(contentsOfFile: first.path, encoding: .utf8)
        #expect(text.hasPrefix("\(getpid()) "))
        #expect(text.split(separator: " ").count == 3)
        do throws(NightlyError) {
            _ = try RunLock(output: output)
            Issue.record("expected the lock to be held")
        } catch {
            #expect(error.exitCode == .tempFail)
            #expect(error.description.contains("pid \(getpid()) on host "))
        }
        first.release()
        #expect(!first.isHeld)
        #expect(!FileManager.default.fileExists(atPath: output + ".lock"))
        let again = try RunLock(output: output)
        #expect(again.isHeld)
    }

    @Test func aLockHeldByAnotherProcessFailsFastNamingTheHolder() throws {
        let dir = try TemporaryDirectory(prefix: "lock-python")
        let output = dir.file("forest.pmtiles")
        let lockPath = RunLock.lockPath(forOutput: output)
        let child = try ChildProcess("/usr/bin/python3", ["-c", pythonHolder, lockPath])
        #expect(child.readLine() == "locked")
        let started = Date()
        do throws(NightlyError) {
            _ = try RunLock(output: output)
            Issue.record("expected the lock to be held")
        } catch {
            #expect(error.exitCode == .tempFail)
            #expect(error.exitCode.rawValue == 75)
            #expect(
                error.description.contains(
                    "another run is in progress (pid \(child.process.processIdentifier) on host "))
            #expect(error.description.contains("since 2026-01-01T02:00:00Z"))
            #expect(error.description.contains(lockPath))
        }
        #expect(Date().timeIntervalSince(started) < 2)
        // The holder dies without cleaning up: its lock file stays, but the kernel lock is gone.
        child.kill()
        #expect(FileManager.default.fileExists(atPath: lockPath))
        let lock = try RunLock(output: output)
        let text = try String(contentsOfFile: lockPath, encoding: .utf8)
        #expect(text.hasPrefix("\(getpid()) "))
        lock.release()
    }

    @Test func utilLinuxFlockIsTheSameLock() throws {
        let dir = try TemporaryDirectory(prefix: "lock-flock")
        let output = dir.file("o.mbtiles")
        let lockPath = RunLock.lockPath(forOutput: output)
        let child = try ChildProcess("/usr/bin/flock", ["-n", lockPath, "/bin/sh", "-c", "echo locked; exec sleep 2"])
        #expect(child.readLine() == "locked")
        do throws(NightlyError) {
            _ = try RunLock(output: output)
            Issue.record("expected the lock to be held")
        } catch {
            #expect(error.exitCode == .tempFail)
            #expect(error.description.contains("held by another process that did not say who it is"))
        }
        child.process.waitUntilExit()
        let lock = try RunLock(output: output)
        #expect(lock.isHeld)
    }

    @Test func aMissingFolderCannotBeLocked() {
        do throws(NightlyError) {
            _ = try RunLock(output: "/nonexistent-\(UUID().uuidString)/o.pmtiles")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .cantCreate)
        }
    }

    @Test func holderTextIsDescribed() {
        #expect(
            NightlyError.describeHolder("42 host 2026-01-01T00:00:00Z")
                == "pid 42 on host host since 2026-01-01T00:00:00Z")
        #expect(NightlyError.describeHolder("") == "held by another process that did not say who it is")
        #expect(NightlyError.describeHolder("weird") == "held by weird")
    }
}
