import Foundation
import KartpackTestSupport
import Synchronization
import Testing

@testable import Nightly

/// Signals are process-wide: these tests run one at a time, and every signal sent is caught by a trap.
@Suite(.serialized) struct NightlySignalTrapTests {
    @Test func sigtermRunsTheCleanupsAndSetsTheFlag() throws {
        let dir = try TemporaryDirectory(prefix: "trap-term")
        let temp = dir.file("o.pmtiles.tmp-1-00000000")
        #expect(FileManager.default.createFile(atPath: temp, contents: Data([1, 2, 3])))
        let trap = SignalTrap()
        defer { trap.uninstall() }
        #expect(!trap.cancelled)
        #expect(trap.signal == nil && trap.exitCode == nil)
        let order = Mutex<[String]>([])
        trap.addCleanup { order.withLock { $0.append("first") } }
        trap.addCleanup {
            _ = unlink(temp)
            order.withLock { $0.append("second") }
        }
        let dropped = trap.addCleanup { order.withLock { $0.append("removed") } }
        trap.removeCleanup(dropped)

        kill(getpid(), SIGTERM)
        #expect(trap.wait(seconds: 10))
        #expect(trap.cancelled)
        #expect(trap.signal == SIGTERM)
        #expect(trap.exitCode == .terminated)
        #expect(trap.exitCode?.rawValue == 143)
        #expect(!FileManager.default.fileExists(atPath: temp))
        // Last registered runs first; a removed cleanup does not run.
        #expect(order.withLock { $0 } == ["second", "first"])
        // A cleanup registered after the signal runs at once.
        trap.addCleanup { order.withLock { $0.append("late") } }
        #expect(order.withLock { $0 } == ["second", "first", "late"])
    }

    @Test func sigintGivesExitCode130() {
        let trap = SignalTrap.install()
        defer { trap.remove() }
        kill(getpid(), SIGINT)
        #expect(trap.wait(seconds: 10))
        #expect(trap.signal == SIGINT)
        #expect(trap.exitCode == .interrupted)
        #expect(trap.exitCode?.rawValue == 130)
    }

    @Test func nestedTrapsKeepTheSignalCaughtUntilTheLastIsRemoved() {
        let outer = SignalTrap(signals: [SIGTERM])
        defer { outer.uninstall() }
        let inner = SignalTrap(signals: [SIGTERM])
        inner.uninstall()
        inner.uninstall()  // idempotent
        // The outer trap still catches it: the process survives.
        kill(getpid(), SIGTERM)
        #expect(outer.wait(seconds: 10))
        #expect(outer.signal == SIGTERM)
        #expect(!inner.cancelled)
    }

    @Test func runCleanupsRunsEachOnce() {
        let trap = SignalTrap(signals: [SIGUSR1])
        defer { trap.uninstall() }
        let count = Mutex(0)
        trap.addCleanup { count.withLock { $0 += 1 } }
        trap.runCleanups()
        trap.runCleanups()
        #expect(count.withLock { $0 } == 1)
        #expect(!trap.cancelled)
        #expect(!trap.wait(seconds: 0.05))
    }
}
