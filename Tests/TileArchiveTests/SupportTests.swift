import Foundation
import SQLiteStore
import Testing
@testable import PMTiles
@testable import TileArchive

@Suite struct AtomicFileTests {
    @Test func publishesOnlyOnSuccess() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/out.bin"
            let file = try AtomicFile(targetPath: path, overwrite: false)
            #expect(file.temporaryPath.hasPrefix(dir + "/out.bin.tmp-\(getpid())-"))
            try file.write([1, 2, 3])
            #expect(try listing(dir).count == 1)
            #expect(!FileManager.default.fileExists(atPath: path))
            try file.publish()
            #expect(try readBytes(path) == [1, 2, 3])
            #expect(try listing(dir) == ["out.bin"])
            #expect(throws: TileArchiveError.self) { try file.write([4]) }
        }
    }

    @Test func discardsWhenDroppedUnpublished() throws {
        try withTemporaryDirectory { dir in
            do {
                let file = try AtomicFile(targetPath: dir + "/gone.bin", overwrite: true)
                try file.write([1])
            }
            #expect(try listing(dir).isEmpty)
        }
    }
}

@Suite struct SQLiteStoreTests {
    @Test func bindsStepsAndReadsColumns() throws {
        try withTemporaryDirectory { dir in
            let db = try SQLiteConnection(path: dir + "/t.db", mode: .readWriteCreate)
            try db.exec("CREATE TABLE t (i integer, s text, b blob, n)")
            let put = try db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", persistent: true)
            try put.bind(1, int64: -5)
            try put.bind(2, text: "Göteborg\u{0}x")
            try put.bind(3, blob: [])
            try put.bindNull(4)
            #expect(try !put.step())
            try put.reset()
            try put.clearBindings()
            try put.bind(1, int64: Int64.max)
            try put.bind(2, text: "")
            try put.bind(3, blob: [0, 255])
            try put.step()
            put.finalize()
            let q = try db.prepare("SELECT i, s, b, n, typeof(b) FROM t ORDER BY i")
            #expect(try q.step())
            #expect(q.int64(at: 0) == -5 && q.text(at: 1) == "Göteborg\u{0}x" && q.blob(at: 2) == [])
            #expect(q.columnType(at: 3) == .null && q.text(at: 3) == nil && q.text(at: 4) == "blob")
            #expect(try q.step())
            #expect(q.int64(at: 0) == Int64.max && q.text(at: 1) == "" && q.blob(at: 2) == [0, 255])
            #expect(try !q.step())
            // Closing with a live statement fails and leaves the connection usable.
            #expect(throws: SQLiteError.self) { try db.close() }
            #expect(db.isOpen)
            q.finalize()
            try db.close()
            #expect(!db.isOpen)
            #expect(throws: SQLiteError.self) { try db.exec("SELECT 1") }
        }
    }

    @Test func namesTheStatementInErrors() throws {
        try withTemporaryDirectory { dir in
            let db = try SQLiteConnection(path: dir + "/e.db", mode: .readWriteCreate)
            do throws(SQLiteError) {
                try db.exec("SELEC nonsense")
                Issue.record("bad SQL accepted")
            } catch {
                #expect(error.statement == "SELEC nonsense")
                #expect(error.primaryCode == 1)
                #expect(error.description.contains("syntax error"))
            }
            try db.exec("CREATE TABLE u (a UNIQUE)")
            try db.exec("INSERT INTO u VALUES (1)")
            do throws(SQLiteError) {
                try db.exec("INSERT INTO u VALUES (1)")
                Issue.record("duplicate accepted")
            } catch {
                #expect(error.code == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            }
            #expect(throws: SQLiteError.self) { try SQLiteConnection(path: dir + "/missing.db", mode: .readOnly) }
        }
    }
}

@Suite struct WriterLifecycleTests {
    @Test func droppedWritersLeaveNoTempFiles() throws {
        try withTemporaryDirectory { dir in
            do {
                let pm = try PMTilesWriter(path: dir + "/a.pmtiles")
                try pm.write(z: 0, x: 0, y: 0, data: [1])
                let mb = try MBTilesWriter(path: dir + "/a.mbtiles")
                try mb.write(z: 0, x: 0, y: 0, data: [1])
                #expect(try listing(dir).count == 2)
            }
            #expect(try listing(dir).isEmpty)
        }
    }

    @Test func honoursTheTemporaryDirectory() throws {
        try withTemporaryDirectory { (dir: String) throws in
            do throws(TileArchiveError) {
                _ = try PMTilesWriter(path: dir + "/t.pmtiles", temporaryDirectory: dir + "/no-such-folder")
                Issue.record("a missing temp folder was accepted")
            } catch {
                #expect(error.exitCode == .cantCreate)
            }
            #expect(try listing(dir).isEmpty)
        }
    }

    @Test func finishedWritersRefuseMoreWork() throws {
        try withTemporaryDirectory { dir in
            let pm = try PMTilesWriter(path: dir + "/f.pmtiles")
            try pm.write(z: 0, x: 0, y: 0, data: [1])
            _ = try pm.finish(metadata: sampleMetadata())
            #expect(throws: TileArchiveError.self) { try pm.write(z: 1, x: 0, y: 0, data: [1]) }
            #expect(throws: TileArchiveError.self) { try pm.finish(metadata: sampleMetadata()) }
            pm.abort()  // no effect after publishing
            #expect(try listing(dir) == ["f.pmtiles"])
        }
    }

    @Test func mapsErrorsToExitCodes() {
        #expect(TileArchiveError.io(operation: "write", path: "x", errno: ENOSPC).exitCode == .ioError)
        #expect(TileArchiveError.io(operation: "fsync", path: "x", errno: EIO).description.contains("fsync failed"))
        #expect(TileArchiveError.targetExists(path: "x").exitCode == .cantCreate)
        #expect(TileArchiveError.invalidArchive(path: "x", reason: "y").exitCode == .dataError)
        #expect(
            TileArchiveError.sqlite(SQLiteFailure(SQLiteError(code: 13, message: "full", statement: "s"))).exitCode
                == .ioError)
        #expect(
            TileArchiveError.sqlite(SQLiteFailure(SQLiteError(code: 266, message: "io", statement: "s"))).exitCode
                == .ioError)
        #expect(
            TileArchiveError.sqlite(SQLiteFailure(SQLiteError(code: 1, message: "x", statement: "s"))).exitCode
                == .software)
    }
}
