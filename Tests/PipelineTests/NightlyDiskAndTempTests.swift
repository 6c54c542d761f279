import Foundation
import KartpackTestSupport
import Testing
import TileArchive

@testable import Nightly

@Suite struct NightlyDiskAndTempTests {
    @Test func freeSpaceIsReported() throws {
        let dir = try TemporaryDirectory(prefix: "disk")
        let free = try DiskSpace.available(at: dir.path)
        #expect(free > 0)
        try DiskSpace.check(folder: dir.path, needed: 0)
        try DiskSpace.check(folder: dir.path, needed: free / 2)
    }

    @Test func tooLittleSpaceIsAClearError() throws {
        let dir = try TemporaryDirectory(prefix: "disk-full")
        do throws(NightlyError) {
            try DiskSpace.check(folder: dir.path, needed: UInt64.max)
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .ioError)
            #expect(error.exitCode.rawValue == 74)
            #expect(error.description.hasPrefix("\(dir.path): not enough free disk space: "))
            #expect(error.description.contains("available, about "))
        }
    }

    @Test func aMissingFolderIsAnIOError() {
        do throws(NightlyError) {
            _ = try DiskSpace.available(at: "/nonexistent-\(UUID().uuidString)")
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .ioError)
        }
    }

    @Test func sizesAndEstimates() {
        #expect(NightlyError.size(900) == "900 bytes")
        #expect(NightlyError.size(3 << 20) == "3.0 MiB")
        #expect(NightlyError.size(1_610_612_736) == "1.5 GiB")
        #expect(DiskSpace.estimate(inputBytes: 100, previousOutputBytes: nil) == 100 + (64 << 20))
        #expect(DiskSpace.estimate(inputBytes: 100, previousOutputBytes: 5000) == 5000 + (64 << 20))
        #expect(DiskSpace.estimate(inputBytes: .max, previousOutputBytes: nil) == .max)
    }

    @Test func tempNamesAreRecognized() {
        #expect(StaleTemporaryFiles.parse("forest.pmtiles.tmp-1234-0a1b2c3d")! == ("forest.pmtiles", 1234))
        #expect(StaleTemporaryFiles.parse("x.tmp-7-ffffffff")! == ("x", 7))
        for bad in [
            "forest.pmtiles", "x.tmp-12-0A1B2C3D", "x.tmp-12-abc", ".tmp-12-0a1b2c3d", "x.tmp--0a1b2c3d",
            "x.tmp-12-0a1b2c3d.bak", "x.tmp-0-0a1b2c3d", "x.tmpx12-0a1b2c3d", "x.tmp-12_0a1b2c3d", "notes.tmp",
        ] {
            #expect(StaleTemporaryFiles.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func theArchiveWritersTempNamesMatchThePattern() throws {
        let dir = try TemporaryDirectory(prefix: "temp-writer")
        let file = try AtomicFile(targetPath: dir.file("forest.pmtiles"), overwrite: false)
        let name = URL(fileURLWithPath: file.temporaryPath).lastPathComponent
        let parsed = StaleTemporaryFiles.parse(name)
        #expect(parsed?.target == "forest.pmtiles")
        #expect(parsed?.pid == getpid())
        // A run's own cleanup removes it whatever its age.
        #expect(try StaleTemporaryFiles.removeOwn(in: dir.path, target: "other.pmtiles") == [])
        #expect(try StaleTemporaryFiles.removeOwn(in: dir.path) == [file.temporaryPath])
        #expect(!FileManager.default.fileExists(atPath: file.temporaryPath))
        file.discard()
    }

    @Test func onlyOldFilesOfDeadWritersAreRemoved() throws {
        let dir = try TemporaryDirectory(prefix: "temp-stale")
        // A pid that is not running.
        let finished = try runProcess("/bin/true", [])
        #expect(finished.status == 0)
        let dead = Self.deadPid()
        #expect(dead != 0)
        let fm = FileManager.default
        let old = Date().addingTimeInterval(-7200)
        func make(_ name: String, age: Date?) throws -> String {
            let path = dir.file(name)
            #expect(fm.createFile(atPath: path, contents: Data("x".utf8)))
            if let age { try fm.setAttributes([.modificationDate: age], ofItemAtPath: path) }
            return path
        }
        let staleDead = try make("forest.pmtiles.tmp-\(dead)-0a1b2c3d", age: old)
        let staleOther = try make("other.mbtiles.tmp-\(dead)-00000001", age: old)
        let fresh = try make("forest.pmtiles.tmp-\(dead)-0a1b2c3e", age: nil)
        let mine = try make("forest.pmtiles.tmp-\(getpid())-0a1b2c3f", age: old)
        let alive = try make("forest.pmtiles.tmp-1-0a1b2c40", age: old)  // pid 1 always runs
        let unrelated = try make("forest.pmtiles", age: old)
        let notes = try make("notes.tmp", age: old)
        try fm.createDirectory(atPath: dir.file("d.pmtiles.tmp-\(dead)-0a1b2c41"), withIntermediateDirectories: true)
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: dir.file("d.pmtiles.tmp-\(dead)-0a1b2c41"))
        try fm.createSymbolicLink(atPath: dir.file("l.pmtiles.tmp-\(dead)-0a1b2c42"), withDestinationPath: unrelated)

        #expect(try StaleTemporaryFiles.remove(in: dir.path, target: "forest.pmtiles", olderThan: 3600) == [staleDead])
        #expect(try StaleTemporaryFiles.remove(in: dir.path, olderThan: 3600) == [staleOther])
        for kept in [fresh, mine, alive, unrelated, notes, dir.file("d.pmtiles.tmp-\(dead)-0a1b2c41")] {
            #expect(fm.fileExists(atPath: kept), "\(kept)")
        }
        #expect((try? fm.destinationOfSymbolicLink(atPath: dir.file("l.pmtiles.tmp-\(dead)-0a1b2c42"))) == unrelated)
        // With no minimum age the fresh one goes too.
        #expect(try StaleTemporaryFiles.remove(in: dir.path, olderThan: 0) == [fresh])
    }

    /// A pid no process has (0 when none was found).
    static func deadPid() -> Int32 {
        for candidate in stride(from: Int32(4_000_000), to: 4_100_000, by: 7)
        where kill(candidate, 0) != 0 && errno == ESRCH {
            return candidate
        }
        return 0
    }

    /// Every temporary a killed `convert` of `forest.pmtiles` can leave: its staged package, the package writer's
    /// temp file of it, its sort-run scratch, and the package writer's tile-data scratch of the staged package.
    @Test func abandonedTemporariesOfAnOutputAreRemovedInEveryShape() throws {
        let dir = try TemporaryDirectory(prefix: "temp-abandoned")
        let dead = Self.deadPid()
        try #require(dead != 0)
        let staged = "forest.pmtiles.tmp-\(dead)-0a1b2c3d"
        let gone = [
            staged, staged + ".tmp-\(dead)-00000001", "forest.pmtiles.data.tmp-\(dead)-00000002",
            staged + ".data.tmp-\(dead)-00000003",
        ]
        let kept = [
            "other.pmtiles.tmp-\(dead)-0a1b2c3d.data.tmp-\(dead)-00000004",  // another output
            "forest.pmtiles.tmp-1-0a1b2c3d.data.tmp-\(dead)-00000005",  // its staged package's writer (pid 1) runs
            staged + ".data",  // not a temporary name
            "forest.pmtiles.tmp-\(dead)-0a1b2c3d.info.tmp-\(dead)-00000006",  // no writer of ours makes this
        ]
        for name in gone + kept { #expect(FileManager.default.createFile(atPath: dir.file(name), contents: nil)) }
        let removed = try StaleTemporaryFiles.removeAbandoned(in: dir.path, targets: ["forest.pmtiles"])
        #expect(Set(removed.map { ($0 as NSString).lastPathComponent }) == Set(gone))
        for name in kept { #expect(FileManager.default.fileExists(atPath: dir.file(name)), "\(name)") }
    }

    @Test func aMissingFolderCannotBeSwept() {
        do throws(NightlyError) {
            _ = try StaleTemporaryFiles.remove(in: "/nonexistent-\(UUID().uuidString)", olderThan: 0)
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .ioError)
        }
    }
}
