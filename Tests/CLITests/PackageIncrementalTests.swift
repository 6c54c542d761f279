import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package` through the real binary: a region's package and fingerprint depend only on the features
/// routed to it (adding, deleting or changing a stand rebuilds only the regions it touches), and the progress line
/// a person watching a run on a terminal sees.
@Suite struct PackageIncrementalTests {
    let base = PackageCommandTests()

    /// Remakes `data/avdelningar.shp` from the sample stands with a stable id `SID` (row + 1): without row
    /// `delete`, with ALDER + 5 in row `change`, with " (ny)" after FASTIGHET (an attribute the stylesheet does not
    /// keep) in row `rename`, and a copy of row `add` appended as SID 1000 (rows 0-based; -1 for none). Every
    /// version is written by the same ogr2ogr query, so the field definitions never differ.
    func writeStands(
        _ dir: TemporaryDirectory, delete: Int = -1, change: Int = -1, add: Int = -1, rename: Int = -1
    ) throws {
        let target = dir.file("data/avdelningar.shp")
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try? FileManager.default.removeItem(atPath: dir.file("data/avdelningar.\(ext)"))
        }
        let columns =
            "AVDNR, CASE WHEN rowid = \(rename) THEN FASTIGHET || ' (ny)' ELSE FASTIGHET END AS FASTIGHET, BESTTYP, "
            + "AREAL, CASE WHEN rowid = \(change) THEN ALDER + 5 ELSE ALDER END AS ALDER, "
            + "TRADSLAG, INVDATUM, CERTIFIER"
        let sql =
            "SELECT geometry, \(columns), rowid + 1 AS SID FROM avdelningar WHERE rowid != \(delete) "
            + "UNION ALL SELECT geometry, \(columns), 1000 AS SID FROM avdelningar WHERE rowid = \(add)"
        let source = RepositoryPaths.sampleForest.appendingPathComponent("avdelningar.shp").path
        let r = try runProcess(
            "/usr/bin/ogr2ogr",
            ["-q", "-dialect", "sqlite", "-lco", "ENCODING=UTF-8", "-nln", "avdelningar", target, source, "-sql", sql])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Inode and modification time of every published file in `folder`, by name.
    func fileStamps(_ folder: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where !name.hasPrefix(".") {
            // Top-level names are links into the current generation: stamp the file they lead to (an unchanged
            // package is a hard link of last night's file, so its inode and time stay).
            let real = URL(fileURLWithPath: folder + "/" + name).resolvingSymlinksInPath().path
            let a = try FileManager.default.attributesOfItem(atPath: real)
            let inode = a[.systemFileNumber] as? Int ?? -1
            let mtime = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            out[name] = "\(inode) \(mtime)"
        }
        return out
    }

    /// The `kartpack` run summary in a package's metadata.
    func runSummary(_ path: String) throws -> [String: Any] {
        let py = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
        let r = try runProcess(
            py,
            [
                "-c",
                """
                import sys
                from pmtiles.reader import Reader, MmapSource
                with open(sys.argv[1], 'rb') as f:
                    print(Reader(MmapSource(f)).metadata()['kartpack'])
                """, path,
            ])
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    func statuses(_ reportPath: String) throws -> [String: String] {
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath)))
                as? [String: Any])
        var out: [String: String] = [:]
        for r in (report["regions"] as? [[String: Any]]) ?? [] {
            out[r["id"] as? String ?? ""] = r["status"] as? String
        }
        return out
    }

    @Test func addingDeletingAndChangingStandsRebuildsOnlyTheirRegions() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir, idFields: ["avdelningar": "SID"])
        try writeStands(dir)
        let out = dir.file("out")
        let args = [
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", out, "--quiet",
        ]
        let first = try runKartpack(args)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try base.regions(out)
        let stampsBefore = try fileStamps(out)
        #expect(before.count == 9)

        // A region's metadata counts the records inside it, not the whole file.
        let p1 = try runSummary(out + "/p1.pmtiles")
        let stands = try #require((p1["inputs"] as? [String: Any])?["avdelningar"] as? [String: Any])
        let records = stands["records"] as? Int ?? 0
        let written = stands["written"] as? Int ?? 0
        let rejected = ((stands["rejected"] as? [String: Int]) ?? [:]).values.reduce(0, +)
        #expect(records > 0 && records < 129 && records == written + rejected, "\(stands)")
        #expect((stands["rejected"] as? [String: Int])?["outside_region"] == nil, "\(stands)")

        // The stands are in property order: rows 31–45 lie in p3, 63–75 in p5 and the last rows in p9. Delete a
        // stand of p3 (renumbering every later record), change one of p5, add a copy of one of p9 at the end.
        try writeStands(dir, delete: 38, change: 64, add: 128)
        let second = try runKartpack(args + ["--report", dir.file("r.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let status = try statuses(dir.file("r.json"))
        #expect(status.filter { $0.value == "built" }.keys.sorted() == ["p3", "p5", "p9"], "\(status)")
        #expect(status.filter { $0.value == "up-to-date" }.count == 6, "\(status)")
        let after = try base.regions(out)
        let stampsAfter = try fileStamps(out)
        for (a, b) in zip(before, after) {
            let id = a["id"] as? String ?? ""
            #expect(id == b["id"] as? String)
            guard !["p3", "p5", "p9"].contains(id) else {
                #expect(a["fingerprint"] as? String != b["fingerprint"] as? String, "\(id)")
                #expect(stampsBefore["\(id).pmtiles"] != stampsAfter["\(id).pmtiles"], "a rebuilt file: \(id)")
                continue
            }
            // Untouched: the same catalog entry, and the very same file (inode and modification time).
            #expect(NSDictionary(dictionary: a).isEqual(to: b), "\(id)")
            #expect(stampsBefore["\(id).pmtiles"] == stampsAfter["\(id).pmtiles"], "\(id)")
        }
        func standCount(_ entry: [String: Any]) -> Int? {
            ((entry["layers"] as? [[String: Any]]) ?? []).first { $0["name"] as? String == "avdelningar" }?["features"]
                as? Int
        }
        let was = Dictionary(uniqueKeysWithValues: before.map { ($0["id"] as? String ?? "", standCount($0)) })
        let now = Dictionary(uniqueKeysWithValues: after.map { ($0["id"] as? String ?? "", standCount($0)) })
        #expect(now["p3"]! == was["p3"]!.map { $0 - 1 }, "\(was) \(now)")
        #expect(now["p9"]! == was["p9"]!.map { $0 + 1 }, "\(was) \(now)")
        #expect(now["p5"]! == was["p5"]!, "\(was) \(now)")

        // The incremental result is what a build from scratch writes, file for file.
        let fresh = dir.file("fresh")
        let scratch = try runKartpack(
            ["package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", fresh, "--quiet"])
        #expect(scratch.status == 0, "\(scratch.stderr)")
        for entry in after {
            let file = entry["file"] as? String ?? ""
            let a = try Data(contentsOf: URL(fileURLWithPath: out + "/" + file))
            let b = try Data(contentsOf: URL(fileURLWithPath: fresh + "/" + file))
            #expect(a == b, "\(file)")
        }
        #expect(try runKartpack(["verify", out]).status == 0)
    }

    @Test func aRunOnATerminalShowsRegionProgressAndQuietOrAPipeShowsNone() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir)
        let out = dir.file("out")
        let kp = RepositoryPaths.kartpackBinary
        let command = "'\(kp)' package '\(plan)' --regions '\(dir.file("data/props.shp"))' --id-field PID -o '\(out)'"
        // `script` gives the run a terminal; its transcript holds what the terminal showed.
        let tty = try runProcess("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        #expect(tty.status == 0, "\(tty.stdout)")
        #expect(tty.stdout.contains("preparing regions: 9/9 (100%)"), "\(tty.stdout)")
        #expect(tty.stdout.contains("building regions (0 unchanged): 9/9 (100%)"), "\(tty.stdout)")
        #expect(tty.stdout.contains("9 regions (9 built, 0 up to date"), "\(tty.stdout)")
        #expect(tty.stdout.contains("; tonight 9 added, 0 rebuilt, 0 unchanged, 0 removed: a tablet downloads "))

        // One region changed: 8 unchanged, 1 of 1 built (p9 leaves with the user's word, then comes back).
        let again = try runProcess(
            "/usr/bin/script",
            ["-q", "-e", "-c", command + " --where '[PID != \"p9\"]' --force --allow-removals", "/dev/null"])
        #expect(again.stdout.contains("building regions (0 unchanged): 8/8 (100%)"), "\(again.stdout)")
        let partly = try runProcess("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"])
        #expect(partly.stdout.contains("building regions (8 unchanged): 1/1 (100%)"), "\(partly.stdout)")

        // --quiet on a terminal, and a pipe: no progress line.
        let quiet = try runProcess("/usr/bin/script", ["-q", "-e", "-c", command + " --force --quiet", "/dev/null"])
        #expect(quiet.status == 0)
        #expect(!quiet.stdout.contains("regions"), "\(quiet.stdout)")
        let piped = try runKartpack([
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID",
            "-o", out, "--force",
        ])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(!piped.stderr.contains("building regions"), "\(piped.stderr)")
    }
}
