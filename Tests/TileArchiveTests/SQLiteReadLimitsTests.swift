import Foundation
import KartpackTestSupport
import SQLiteStore
import Testing

/// `SQLiteConnection(untrustedPath:limits:)`: the length limit and the progress handler stop hostile statements.
@Suite struct SQLiteReadLimitsTests {
    private func database() throws -> (TemporaryDirectory, String) {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/plain.db"
        let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
        try db.exec("CREATE TABLE t (v BLOB); INSERT INTO t VALUES (x'00');")
        try db.close()
        return (folder, path)
    }

    @Test func aValueBeyondTheLengthLimitIsTooBig() throws {
        let (folder, path) = try database()
        defer { _ = folder }
        let db = try SQLiteConnection(untrustedPath: path)
        do {
            _ = try db.textColumn("SELECT length(zeroblob(900000000))")
            Issue.record("zeroblob(900 MB) was allowed")
        } catch {
            #expect(error.isTooBig, "\(error)")
        }
    }

    @Test func aRunawayStatementIsInterrupted() throws {
        let (folder, path) = try database()
        defer { _ = folder }
        var limits = SQLiteReadLimits()
        limits.maxStepInstructions = 1 << 22
        let db = try SQLiteConnection(untrustedPath: path, limits: limits)
        let start = Date()
        do {
            _ = try db.textColumn(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r")
            Issue.record("the endless statement finished")
        } catch {
            #expect(error.isInterrupted, "\(error)")
        }
        #expect(Date().timeIntervalSince(start) < 10)
        // Ordinary statements still run: the budget is per step.
        #expect(try db.textColumn("SELECT count(*) FROM t") == ["1"])
    }

    @Test func theConnectionIsReadOnlyAndSeesTheSchema() throws {
        let (folder, path) = try database()
        defer { _ = folder }
        let db = try SQLiteConnection(untrustedPath: path)
        #expect(throws: SQLiteError.self) { try db.exec("INSERT INTO t VALUES (x'01')") }
        #expect(try db.schemaObject(named: "T")?.type == "table")
        #expect(try db.schemaObject(named: "missing") == nil)
    }

    @Test func pathsWithReservedCharactersOpen() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/a b?c#d%e.db"
        let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
        try db.exec("CREATE TABLE t (v);")
        try db.close()
        let ro = try SQLiteConnection(untrustedPath: path)
        #expect(try ro.schemaObject(named: "t")?.type == "table")
    }
}
