import Foundation
import Checksum
import ConvertEngine
import KartpackTestSupport
import Testing

@testable import Nightly
@testable import PipelineFiles

/// A pipeline folder with one source (shp, shx, dbf, prj), a clip file and a stylesheet.
private struct FingerprintFixture {
    let dir: TemporaryDirectory
    let pipeline: String

    init() throws {
        dir = try TemporaryDirectory(prefix: "fingerprint")
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir.file("Pipelines"), withIntermediateDirectories: true)
        for (name, text) in [
            ("data/roads.shp", "shp-bytes"), ("data/roads.shx", "shx-bytes"), ("data/roads.dbf", "dbf-bytes"),
            ("data/roads.prj", "PROJCS[]"), ("data/area.shp", "clip-shp"), ("data/area.dbf", "clip-dbf"),
            ("style.kss", "roads { stroke: #000; }"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        pipeline = dir.file("Pipelines/p.json")
        try Data(
            (#"{"version":1,"sources":[{"path":"../data/roads.shp"}],"style":"../style.kss","#
                + #""clip":{"path":"../data/area.shp"},"output":{"path":"../o.pmtiles"}}"#)
                .utf8
        ).write(to: URL(fileURLWithPath: pipeline))
    }

    func fingerprint(overrides: [String] = [], version: String = "0.1.0") throws -> Fingerprint {
        try PipelineSpec.load(path: pipeline, overrides: overrides).fingerprint(kartpackVersion: version)
    }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name)))
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.file(name))))
    }
}

@Suite struct NightlyFingerprintTests {
    @Test func sameInputsGiveTheSameFingerprint() throws {
        let f = try FingerprintFixture()
        let a = try f.fingerprint()
        let b = try f.fingerprint()
        #expect(a == b)
        #expect(a.hex.count == 64)
        // Touching a file (new mtime, same bytes) changes nothing.
        let now = Date().addingTimeInterval(3600)
        try FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: f.dir.file("data/roads.dbf"))
        #expect(try f.fingerprint() == a)
    }

    @Test func oneChangedByteInAnyInputChangesIt() throws {
        let f = try FingerprintFixture()
        let original = try f.fingerprint().hex
        for name in [
            "data/roads.shp", "data/roads.shx", "data/roads.dbf", "data/roads.prj", "data/area.shp", "data/area.dbf",
            "style.kss",
        ] {
            let bytes = try f.read(name)
            var changed = bytes
            changed[changed.count / 2] ^= 0x01
            try f.write(name, changed)
            #expect(try f.fingerprint().hex != original, "\(name)")
            try f.write(name, bytes)
            #expect(try f.fingerprint().hex == original, "\(name) restored")
        }
    }

    @Test func specVersionAndNewCompanionFilesChangeIt() throws {
        let f = try FingerprintFixture()
        let original = try f.fingerprint().hex
        #expect(try f.fingerprint(overrides: ["tiles.maxZoom=12"]).hex != original)
        #expect(try f.fingerprint(version: "0.2.0").hex != original)
        // Another output format (the same version writing other bytes) is not up to date either.
        let spec = try PipelineSpec.load(path: f.pipeline)
        let items = spec.fingerprintItems(kartpackVersion: "0.1.0")
        #expect(try Fingerprint.compute(items).hex == original)
        let next = spec.fingerprintItems(kartpackVersion: "0.1.0", outputFormat: OutputFormat.version + 1)
        #expect(try Fingerprint.compute(next).hex != original)
        try f.write("data/roads.cpg", Array("UTF-8".utf8))
        let withCPG = try f.fingerprint()
        #expect(withCPG.hex != original)
        #expect(withCPG.inputs.map { URL(fileURLWithPath: $0.path).lastPathComponent }.contains("roads.cpg"))
        // The memo file of M fields is read into attributes, so it is part of the input too.
        try f.write("data/roads.dbt", Array("memo text".utf8))
        let withMemo = try f.fingerprint()
        #expect(withMemo.hex != withCPG.hex)
        try f.write("data/roads.dbt", Array("memo tex!".utf8))
        #expect(try f.fingerprint().hex != withMemo.hex)
    }

    @Test func movingBytesBetweenFilesChangesIt() throws {
        // Length prefixes keep "ab" + "c" apart from "a" + "bc".
        let f = try FingerprintFixture()
        try f.write("data/roads.shp", Array("ab".utf8))
        try f.write("data/roads.shx", Array("c".utf8))
        let first = try f.fingerprint().hex
        try f.write("data/roads.shp", Array("a".utf8))
        try f.write("data/roads.shx", Array("bc".utf8))
        #expect(try f.fingerprint().hex != first)
    }

    @Test func inputsAreListedWithSizesAndDigests() throws {
        let f = try FingerprintFixture()
        let fp = try f.fingerprint()
        let names = fp.inputs.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        #expect(names == ["style.kss", "roads.shp", "roads.shx", "roads.dbf", "roads.prj", "area.shp", "area.dbf"])
        for input in fp.inputs {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input.path)))
            #expect(input.bytes == UInt64(bytes.count))
            #expect(input.sha256 == SHA256.hex(of: bytes))
        }
    }

    @Test func listedFilesAreHashedWhileTheItemsAreMade() throws {
        let f = try FingerprintFixture()
        let spec = try PipelineSpec.load(path: f.pipeline)
        let names = spec.listedFiles().map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(names == ["roads.shp", "roads.shx", "roads.dbf", "area.shp", "area.dbf"])
        let listed = [f.dir.file("data/roads.shp"), f.dir.file("data/roads.dbf")]
        let items: [Fingerprint.Item] = [.bytes(tag: "a", [1, 2])] + listed.map { .listed(path: $0) }
        let done = DispatchSemaphore(value: 0)
        var hashedMeanwhile = false
        let fp = try Fingerprint.compute(listing: listed, aheadDone: { done.signal() }) {
            // The files are hashed on another thread: done before the items are (not after, as one thread would).
            hashedMeanwhile = done.wait(timeout: .now() + 30) == .success
            return items
        }
        #expect(hashedMeanwhile)
        let serial = try Fingerprint.compute(items)
        #expect(fp == serial)
        let digests = listed.map { SHA256.hex(of: [UInt8](FileManager.default.contents(atPath: $0) ?? Data())) }
        #expect(fp.inputs.map(\.sha256) == digests)
        // The pipeline's fingerprint is the one the items give hashed in one thread.
        #expect(try spec.fingerprint() == Fingerprint.compute(spec.fingerprintItems()))
    }

    @Test func aListedFileThatCannotBeReadFailsAsInOneThread() throws {
        let f = try FingerprintFixture()
        let missing = f.dir.file("data/none.dbf")
        do throws(NightlyError) {
            _ = try Fingerprint.compute(listing: [missing]) { [.listed(path: missing)] }
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .noInput)
        }
    }

    @Test func movingTheWholeTreeKeepsIt() throws {
        let a = try FingerprintFixture()
        let b = try FingerprintFixture()
        #expect(a.dir.path != b.dir.path)
        #expect(try a.fingerprint().hex == b.fingerprint().hex)
    }

    @Test func missingSourceIsNoInput() throws {
        let f = try FingerprintFixture()
        try FileManager.default.removeItem(atPath: f.dir.file("data/roads.shp"))
        let spec = try PipelineSpec.load(path: f.pipeline)
        do throws(NightlyError) {
            _ = try spec.fingerprint()
            Issue.record("expected an error")
        } catch {
            #expect(error.exitCode == .noInput)
        }
    }

    @Test func companionsAreTheSetConvertReads() throws {
        let dir = try TemporaryDirectory(prefix: "fingerprint-case")
        for name in ["R.SHP", "R.SHX", "R.DBF", "r.prj"] {
            try Data(name.utf8).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        // The set as convert reads it (ShapefileGrouping): r.prj has no .shp of its exact name, so it is R's.
        let parts = PipelineSpec.shapefileItems(dir.file("R.SHP")).map { item -> String in
            guard case .file(let tag, let path) = item else { return "" }
            return tag + " " + URL(fileURLWithPath: path).lastPathComponent
        }
        #expect(parts == ["shp R.SHP", "shx R.SHX", "dbf R.DBF", "prj r.prj"])
    }
}
