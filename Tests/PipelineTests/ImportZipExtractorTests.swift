import Foundation
import Glibc
import Gzip
import KartpackTestSupport
import Testing

@testable import Import
@Suite struct ImportZipExtractorTests {
    @Test func extractsNestedFoldersAndMixedCaseNamesPrivately() throws {
        let box = try ImportSandbox()
        let roads = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let entries = [
            TestZipEntry.folder("Export/"),
            TestZipEntry("Export/Roads.SHP", roads),
            TestZipEntry("Export/Roads.Shx", [1, 2, 3], method: 0),
            TestZipEntry("Export/sub/deeper/lakes.shp", Array(repeating: 0x20, count: 300)),
            TestZipEntry("Export/Sjöar.dbf", Array("åäö".utf8)),
            TestZipEntry("empty.txt", []),
        ]
        let extracted = try box.extract(entries)
        let root = extracted.root
        #expect(root.hasPrefix(box.parent + "/kartpack-import-"))
        #expect(
            extracted.files.map(\.relativePath) == [
                "Export/Roads.SHP", "Export/Roads.Shx", "Export/sub/deeper/lakes.shp", "Export/Sjöar.dbf", "empty.txt",
            ])
        #expect(try fileBytes(root + "/Export/Roads.SHP") == roads)
        #expect(try fileBytes(root + "/Export/Roads.Shx") == [1, 2, 3])
        #expect(try fileBytes(root + "/Export/sub/deeper/lakes.shp") == Array(repeating: 0x20, count: 300))
        #expect(try fileBytes(root + "/Export/Sjöar.dbf") == Array("åäö".utf8))
        #expect(try fileBytes(root + "/empty.txt") == [])
        #expect(extracted.files.map(\.size) == [5000, 3, 300, 6, 0])
        #expect(extracted.warnings.isEmpty)
        // Private modes: folders 0700, files 0600, whatever the archive says.
        #expect(modeOf(root).map { $0 & 0o777 } == 0o700)
        #expect(modeOf(root + "/Export").map { $0 & 0o777 } == 0o700)
        #expect(modeOf(root + "/Export/sub/deeper").map { $0 & 0o777 } == 0o700)
        #expect(modeOf(root + "/Export/Roads.SHP").map { $0 & 0o777 } == 0o600)
        // The owner removes the folder.
        #expect(extracted.remove())
        #expect(modeOf(root) == nil)
        #expect(extracted.remove())
    }

    @Test func folderIsRemovedWhenTheOwnerIsReleased() throws {
        let box = try ImportSandbox()
        var root = ""
        do {
            let extracted = try box.extract([TestZipEntry("a.shp", [1])])
            root = extracted.root
            #expect(modeOf(root) != nil)
        }
        #expect(modeOf(root) == nil)
        #expect(try box.leftovers() == [])
    }

    @Test(arguments: [
        "../evil.shp", "/abs/x.shp", "C:\\x.shp", "c:x.shp", "a\\..\\..\\x.shp", "a/../../x.shp", "ok/./../../x",
        "\\\\server\\share\\x.shp", "a/b/../../../x", "..",
    ])
    func refusesPathTraversal(name: String) throws {
        let box = try ImportSandbox()
        let zip = try box.write(TestZip.make([TestZipEntry("good.shp", [1, 2]), TestZipEntry(name, [6, 6, 6])]))
        let error = try #require(refusal { try box.extract(zip) })
        guard case .unsafeEntry(let archive, let entry, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(archive == zip)
        #expect(entry == name)
        #expect(error.exitCode == .dataError)
        #expect(error.description.contains(name))
        // Nothing written anywhere: not in the temp parent, not next to it.
        #expect(try box.leftovers() == [])
        #expect(modeOf(box.dir.file("evil.shp")) == nil)
        #expect(modeOf(box.dir.file("x.shp")) == nil)
    }

    @Test func refusesNulBytesInNames() throws {
        let box = try ImportSandbox()
        var e = TestZipEntry("a.shp", [1])
        e.name = Array("a.shp".utf8) + [0] + Array("/../../x".utf8)
        let error = try #require(refusal { try box.extract([e]) })
        #expect(error.description.contains("NUL"))
        #expect(error.description.contains("\\u{0}"))
        #expect(try box.leftovers() == [])
    }

    @Test func refusesSymbolicLinks() throws {
        let box = try ImportSandbox()
        var link = TestZipEntry("data.dbf", Array("/etc/passwd".utf8), method: 0)
        link.unixMode = 0o120777
        let error = try #require(refusal { try box.extract([TestZipEntry("data.shp", [1]), link]) })
        guard case .unsafeEntry(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "data.dbf")
        #expect(reason.contains("symbolic link"))
        #expect(try box.leftovers() == [])
    }

    @Test(arguments: [0o020644 as UInt32, 0o060644, 0o010600, 0o140755])
    func skipsDevicesFIFOsAndSockets(mode: UInt32) throws {
        let box = try ImportSandbox()
        var special = TestZipEntry("data.dbf", Array("bytes".utf8), method: 0)
        special.unixMode = mode
        let extracted = try box.extract([TestZipEntry("data.shp", [1]), special])
        #expect(extracted.files.map(\.relativePath) == ["data.shp"])
        #expect(extracted.warnings.map(\.code) == [.zipSpecialFile])
        #expect(modeOf(extracted.root + "/data.dbf") == nil)
    }

    @Test func skipsNestedArchivesWithAWarning() throws {
        let box = try ImportSandbox()
        let inner = try TestZip.make([TestZipEntry("bomb.shp", [1])])
        let extracted = try box.extract([
            TestZipEntry("inner.zip", inner, method: 0), TestZipEntry("layers/roads.shp", [1, 2]),
            TestZipEntry("data.tar.gz", [0x1f, 0x8b]), TestZipEntry("x.7Z", [1]), TestZipEntry("y.rar", [1]),
            TestZipEntry("z.tgz", [1]), TestZipEntry("w.bz2", [1]), TestZipEntry("v.xz", [1]),
            TestZipEntry("u.tar", [1]),
        ])
        #expect(extracted.files.map(\.relativePath) == ["layers/roads.shp"])
        #expect(extracted.warnings.count == 8)
        #expect(extracted.warnings.allSatisfy { $0.code == .zipNestedArchive })
        #expect(extracted.warnings.first?.message.contains("inner.zip") == true)
        #expect(modeOf(extracted.root + "/inner.zip") == nil)
    }

    @Test func refusesAHighRatioEntryWithHonestHeaders() throws {
        // 50 MB of zeros deflates to about 50 KB: a declared ratio of about 1000:1.
        let box = try ImportSandbox()
        let zeros = [UInt8](repeating: 0, count: 50_000_000)
        let zip = try box.write(TestZip.make([TestZipEntry("zeros.dbf", zeros)]))
        #expect(try contentsSize(zip) < 100_000)
        let error = try #require(refusal { try box.extract(zip) })
        guard case .limitExceeded(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "zeros.dbf")
        #expect(reason.contains("ratio"))
        #expect(try box.leftovers() == [])
    }

    @Test func refusesWhileStreamingWhenTheDataInflatesPastTheDeclaredSize() throws {
        // The central directory claims 1000 bytes; the data inflates to 50 MB. Refused as soon as byte 1001 appears.
        let box = try ImportSandbox()
        var e = TestZipEntry("zeros.dbf", [UInt8](repeating: 0, count: 50_000_000))
        e.declaredSize = 1000
        let error = try #require(refusal { try box.extract([TestZipEntry("a.shp", [1]), e]) })
        guard case .corruptEntry(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "zeros.dbf")
        #expect(reason.contains("more than the 1000 bytes"))
        #expect(try box.leftovers() == [])
        // A declared size larger than the data is refused too, deflated or stored.
        var short = TestZipEntry("short.dbf", Array(repeating: 7, count: 100))
        short.declaredSize = 200
        #expect(refusal { try box.extract([short]) }?.description.contains("100 bytes") == true)
        var stored = TestZipEntry("stored.dbf", Array(repeating: 7, count: 100), method: 0)
        stored.declaredSize = 50
        #expect(refusal { try box.extract([stored]) } != nil)
        #expect(try box.leftovers() == [])
    }

    @Test func enforcesEntryAndTotalSizeCaps() throws {
        let box = try ImportSandbox()
        let data = (0..<4000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7) }
        var limits = ZipLimits()
        limits.maxEntryBytes = 3999
        let perEntry = try #require(refusal { try box.extract([TestZipEntry("a.dbf", data)], limits: limits) })
        #expect(
            perEntry
                == .limitExceeded(
                    source: box.dir.file("in.zip"), entry: "a.dbf",
                    reason: "it declares 4000 bytes, more than the per-entry limit of 3999"))
        limits = ZipLimits(maxTotalBytes: 7000)
        let total = try #require(
            refusal {
                try box.extract([TestZipEntry("a.dbf", data), TestZipEntry("b.dbf", data)], limits: limits)
            })
        guard case .limitExceeded(_, nil, let reason) = total else {
            Issue.record("unexpected error \(total)")
            return
        }
        #expect(reason.contains("7000"))
        // Exactly at the caps is fine.
        limits = ZipLimits(maxTotalBytes: 8000, maxEntryBytes: 4000)
        let ok = try box.extract([TestZipEntry("a.dbf", data), TestZipEntry("b.dbf", data)], limits: limits)
        #expect(ok.files.count == 2)
        ok.remove()
        #expect(try box.leftovers() == [])
    }

    @Test func streamingCapsHoldEvenWhenTheDeclaredSizesPass() throws {
        // Run the streaming check directly: an entry within the declared caps whose real output passes them.
        let box = try ImportSandbox()
        let data = [UInt8](repeating: 1, count: 3_000_000)
        let zip = try box.write(TestZip.make([TestZipEntry("a.dbf", data)]))
        let file = try ArchiveFile(path: zip)
        let directory = try ZipDirectory.read(file, limits: ZipLimits())
        let folder = try TemporaryFolder(parent: box.parent)
        defer { folder.remove() }
        var run = try ExtractionRun(file: file, root: folder.path, limits: ZipLimits(maxEntryBytes: 1_000_000))
        let plan = try ZipExtractor(limits: ZipLimits(maxRatio: 1_000_000)).makePlan(file: file, directory: directory)
        guard case .file(let dataStart) = plan.items[0].kind else {
            Issue.record("not a file")
            return
        }
        let error = try #require(refusal { try run.extractFile(plan.items[0], dataStart: dataStart) })
        guard case .limitExceeded(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "a.dbf")
        #expect(reason.contains("per-entry limit"))
        var ratioRun = try ExtractionRun(file: file, root: folder.path, limits: ZipLimits())
        let ratio = try #require(
            refusal {
                var item = plan.items[0]
                item.components = ["b.dbf"]
                return try ratioRun.extractFile(item, dataStart: dataStart)
            })
        #expect(ratio.description.contains("ratio"))
    }

    @Test func smallHighlyCompressibleFilesAreNotRatioBombs() throws {
        // A .dbf padded with blanks compresses far beyond 100:1; under the grace size that is fine.
        let box = try ImportSandbox()
        let blanks = [UInt8](repeating: 0x20, count: 900_000)
        let extracted = try box.extract([TestZipEntry("padded.dbf", blanks)])
        #expect(extracted.files.first?.size == 900_000)
        #expect(try fileBytes(extracted.files[0].path) == blanks)
    }

    @Test func refusesTooManyEntries() throws {
        let box = try ImportSandbox()
        let many = (0...10_000).map { TestZipEntry("f\($0).txt", [], method: 0) }
        let error = try #require(refusal { try box.extract(many) })
        guard case .limitExceeded(_, nil, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reason.contains("10001 entries"))
        let ok = try box.extract(Array(many.prefix(10_000)))
        #expect(ok.files.count == 10_000)
        ok.remove()
        var limits = ZipLimits()
        limits.maxEntries = 3
        #expect(refusal { try box.extract(Array(many.prefix(4)), limits: limits) } != nil)
        #expect(try box.leftovers() == [])
    }

    @Test func refusesACRCMismatch() throws {
        let box = try ImportSandbox()
        for method in [0, 8] {
            var e = TestZipEntry("a.shp", Array("hello".utf8), method: method)
            e.declaredCRC = Gzip.crc32(Array("hellp".utf8))
            let error = try #require(refusal { try box.extract([e]) })
            guard case .corruptEntry(_, let entry, let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(entry == "a.shp")
            #expect(reason.contains("CRC-32"))
        }
        // Corrupting a stored byte in the file (headers intact) is caught by the CRC too.
        var bytes = try TestZip.make([TestZipEntry("a.shp", Array("hello world".utf8), method: 0)])
        bytes[30 + 5 + 3] ^= 0x01
        let error = try #require(refusal { try box.extract(try box.write(bytes)) })
        #expect(error.description.contains("CRC-32 mismatch"))
        #expect(try box.leftovers() == [])
    }

    @Test func refusesTruncatedArchivesAtEveryLength() throws {
        let box = try ImportSandbox()
        let full = try TestZip.make([
            TestZipEntry("a/x.shp", Array(repeating: 1, count: 300)),
            TestZipEntry("a/x.dbf", Array("abc".utf8), method: 0),
        ])
        for n in 0..<full.count {
            let path = try box.write(Array(full[..<n]), "cut.zip")
            let error = refusal { try box.extract(path) }
            #expect(error?.exitCode == .dataError, "\(n)-byte prefix: \(String(describing: error))")
        }
        #expect(try box.leftovers() == [])
    }

    @Test func keepsTheFirstOfNamesEqualIgnoringCase() throws {
        let box = try ImportSandbox()
        let extracted = try box.extract([
            TestZipEntry("Data/a.shp", [1]), TestZipEntry("Data/A.SHP", [2]), TestZipEntry("DATA/a.shp", [3]),
            TestZipEntry("data/b.dbf", [4]), TestZipEntry("Data/a.shp/inner.txt", [5]),
            TestZipEntry.folder("Data/b.dbf/"),
        ])
        #expect(extracted.files.map(\.relativePath) == ["Data/a.shp", "Data/b.dbf"])
        #expect(try fileBytes(extracted.root + "/Data/a.shp") == [1])
        #expect(try fileBytes(extracted.root + "/Data/b.dbf") == [4])
        #expect(
            extracted.warnings.map(\.code) == [
                .zipDuplicateEntry, .zipDuplicateEntry, .zipPathConflict, .zipPathConflict,
            ])
        #expect(extracted.warnings[0].message.contains("Data/A.SHP"))
        // Only one folder, spelled as first seen.
        #expect(try FileManager.default.contentsOfDirectory(atPath: extracted.root) == ["Data"])
    }

    @Test func refusesALocalHeaderThatDisagreesWithTheCentralDirectory() throws {
        let box = try ImportSandbox()
        var e = TestZipEntry("safe.shp", [1, 2, 3])
        e.localName = Array("../x.shp".utf8)
        let error = try #require(refusal { try box.extract([e]) })
        guard case .corruptEntry(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "safe.shp")
        #expect(reason.contains("different file"))
        #expect(try box.leftovers() == [])
    }

    @Test func refusesOverlappingEntries() throws {
        // Two central records pointing at one local header: the non-recursive zip bomb construction.
        let box = try ImportSandbox()
        let bytes = try TestZip.make([TestZipEntry("a.dbf", [1, 2, 3])], repeatCentralRecords: [0])
        let error = try #require(refusal { try box.extract(try box.write(bytes)) })
        guard case .corruptEntry(_, _, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reason.contains("overlaps"))
    }

    @Test func refusesEncryptionAndUnknownMethods() throws {
        let box = try ImportSandbox()
        var enc = TestZipEntry("a.shp", [1], method: 0)
        enc.flags |= 1
        #expect(
            refusal { try box.extract([enc]) }
                == .unsupported(
                    archive: box.dir.file("in.zip"), entry: "a.shp", reason: "encrypted entries are not supported"))
        let error = try #require(refusal { try box.extract([TestZipEntry("a.shp", [1], method: 12)]) })
        guard case .unsupported(_, let entry, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(entry == "a.shp")
        #expect(reason.contains("method 12"))
    }

    @Test func readsDataDescriptorsPrefixesCommentsAndZip64() throws {
        let box = try ImportSandbox()
        var described = TestZipEntry("dd.shp", Array(repeating: 9, count: 1000))
        described.dataDescriptor = true
        let plain = TestZipEntry("dir/plain.dbf", Array("attributes".utf8), method: 0)
        let variants: [[UInt8]] = [
            try TestZip.make([described, plain]),
            try TestZip.make([described, plain], prefix: Array(repeating: 0x4d, count: 777)),
            try TestZip.make([described, plain], comment: Array("PK\u{5}\u{6} not an end record".utf8)),
            try TestZip.make([TestZipEntry("dd.shp", Array(repeating: 9, count: 1000)), plain], zip64: true),
        ]
        for (k, bytes) in variants.enumerated() {
            let extracted = try box.extract(try box.write(bytes, "v\(k).zip"))
            #expect(extracted.files.map(\.relativePath) == ["dd.shp", "dir/plain.dbf"], "variant \(k)")
            #expect(try fileBytes(extracted.root + "/dd.shp") == Array(repeating: 9, count: 1000))
            #expect(try fileBytes(extracted.root + "/dir/plain.dbf") == Array("attributes".utf8))
        }
    }

    @Test func decodesCP437NamesWithoutTheUTF8Flag() throws {
        let box = try ImportSandbox()
        var e = TestZipEntry("x", [1])
        e.name = Array("Sj".utf8) + [0x94] + Array("ar.shp".utf8)  // "Sjöar.shp" in CP437
        e.flags = 0
        let extracted = try box.extract([e])
        #expect(extracted.files.map(\.relativePath) == ["Sjöar.shp"])
    }

    @Test func refusesGarbageMissingFilesAndFIFOsWithoutTrapping() throws {
        let box = try ImportSandbox()
        #expect(refusal { try box.extract(try box.write([], "empty.zip")) }?.exitCode == .dataError)
        #expect(
            refusal { try box.extract(try box.write(Array("not a zip at all".utf8), "t.zip")) }?.exitCode == .dataError)
        #expect(refusal { try box.extract(box.dir.file("missing.zip")) }?.exitCode == .noInput)
        let fifo = box.dir.file("fifo.zip")
        #expect(mkfifo(fifo, 0o600) == 0)
        let error = try #require(refusal { try box.extract(fifo) })
        guard case .notAZip(_, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reason.contains("FIFO"))
        // Random mutations of a valid archive: each either extracts or throws, never traps or leaks a folder.
        let valid = try TestZip.make([
            TestZipEntry("a/x.shp", (0..<2000).map { UInt8($0 % 251) }),
            TestZipEntry("a/x.dbf", Array("abc".utf8), method: 0),
            TestZipEntry.folder("b/"),
        ])
        var rng = SplitMix64(seed: 42)
        for round in 0..<1500 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if round % 5 == 0 {
                bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if round % 10 == 0 { bytes += [0x50, 0x4b, 0x05, 0x06] + Array(repeating: 0xff, count: 18) }
            }
            let path = try box.write(bytes, "m.zip")
            if let extracted = try? box.extract(path) {
                for f in extracted.files { #expect(f.path.hasPrefix(extracted.root + "/")) }
            }
        }
        #expect(try box.leftovers() == [])
    }
}

/// The size of a file in bytes.
func contentsSize(_ path: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
}
