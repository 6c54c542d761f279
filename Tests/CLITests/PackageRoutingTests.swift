import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package` through the real binary: a region is rebuilt only when a feature touching its polygon (not
/// its box) changed; a package rebuilt into last night's bytes keeps last night's file and catalog entry; the
/// report and the summary say what a tablet must download.
@Suite struct PackageRoutingTests {
    let base = PackageCommandTests()
    let incremental = PackageIncrementalTests()

    /// Stand row 69 lies in property p5 and its box overlaps p6's box, but it shares no point with p6's polygon
    /// (checked here with SpatiaLite, so the test cannot pass by a fixture that does not hold what it claims).
    static let edgeRow = 69

    /// The published file behind a top-level name: its inode and modification time.
    func stamp(_ path: String) throws -> String {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let a = try FileManager.default.attributesOfItem(atPath: real)
        return "\(a[.systemFileNumber] as? Int ?? -1) \((a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }

    /// The size of the published file behind a top-level name.
    func size(_ path: String) throws -> Int {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try FileManager.default.attributesOfItem(atPath: real)[.size] as? Int ?? 0
    }

    func report(_ path: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func entries(_ folder: String) throws -> [String: NSDictionary] {
        var out: [String: NSDictionary] = [:]
        for r in try base.regions(folder) { out[r["id"] as? String ?? ""] = NSDictionary(dictionary: r) }
        return out
    }

    /// The properties (1-based) whose polygon, and whose box, the stand of 0-based `row` touches.
    func touched(_ dir: TemporaryDirectory, row: Int) throws -> (polygons: String, boxes: String) {
        let db = dir.file("check.sqlite")
        try? FileManager.default.removeItem(atPath: db)
        for (layer, extra) in [("props", [String]()), ("avdelningar", ["-update"])] {
            let r = try runProcess(
                "/usr/bin/ogr2ogr",
                ["-q", "-f", "SQLite", "-dsco", "SPATIALITE=YES", "-nlt", "PROMOTE_TO_MULTI"] + extra
                    + [db, dir.file("data/\(layer).shp")])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let sql =
            "SELECT (SELECT group_concat(p.PID) FROM props p WHERE ST_Intersects(a.geometry, p.geometry)) || '/' || "
            + "(SELECT group_concat(p.PID) FROM props p WHERE MbrIntersects(a.geometry, p.geometry)) AS x "
            + "FROM avdelningar a WHERE a.ogc_fid = \(row + 1)"
        let q = try runProcess("/usr/bin/ogrinfo", ["-q", db, "-sql", sql])
        let line = q.stdout.split(separator: "\n").first { $0.contains("x (String) = ") } ?? ""
        let parts = line.components(separatedBy: " = ").last?.split(separator: "/").map(String.init) ?? []
        return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
    }

    @Test func anEditNextToANeighbourRebuildsOnlyTheRegionItTouches() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir, idFields: ["avdelningar": "SID"])
        try incremental.writeStands(dir)
        let where_ = try touched(dir, row: Self.edgeRow)
        #expect(where_.polygons == "p5", "\(where_)")
        #expect(Set(where_.boxes.split(separator: ",")) == ["p5", "p6"], "\(where_)")
        let key = dir.file("k.key")
        let pub = dir.file("k.pub")
        #expect(try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", pub, "-s", key]).status == 0)
        let out = dir.file("out")
        let args = [
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", out, "--sign", key,
        ]
        let first = try runKartpack(args + ["--report", dir.file("r1.json")])
        #expect(first.status == 0, "\(first.stderr)")
        let night1 = try report(dir.file("r1.json"))["night"] as? [String: Any]
        #expect(night1?["added"] as? Int == 9 && night1?["rebuilt"] as? Int == 0, "\(String(describing: night1))")
        let before = try entries(out)
        let stamps = try Dictionary(uniqueKeysWithValues: before.keys.map { ($0, try stamp(out + "/\($0).pmtiles")) })

        // ALDER (kept, so in the bytes) of the stand next to p6 changes: p5 is rebuilt, p6 is not touched.
        try incremental.writeStands(dir, change: Self.edgeRow)
        let second = try runKartpack(args + ["--report", dir.file("r2.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let r2 = try report(dir.file("r2.json"))
        let status = Dictionary(
            uniqueKeysWithValues: ((r2["regions"] as? [[String: Any]]) ?? []).map {
                ($0["id"] as? String ?? "", $0["status"] as? String ?? "")
            })
        #expect(status.filter { $0.value == "built" }.keys.sorted() == ["p5"], "\(status)")
        #expect(status.filter { $0.value == "up-to-date" }.count == 8, "\(status)")
        let after = try entries(out)
        for (id, entry) in before where id != "p5" {
            #expect(entry == after[id], "\(id)")
            #expect(try stamp(out + "/\(id).pmtiles") == stamps[id], "\(id)")
        }
        #expect(after["p5"]?["sha256"] as? String != before["p5"]?["sha256"] as? String)
        #expect(try stamp(out + "/p5.pmtiles") != stamps["p5"])

        // The night: one rebuilt, eight unchanged; a tablet downloads p5, the catalog and its signature.
        let night = try #require(r2["night"] as? [String: Any])
        let catalogBytes = try size(out + "/catalog.json")
        let signatureBytes = try size(out + "/catalog.json.minisig")
        #expect(night["added"] as? Int == 0 && night["rebuilt"] as? Int == 1, "\(night)")
        #expect(night["unchanged"] as? Int == 8 && night["removed"] as? Int == 0, "\(night)")
        let p5 = after["p5"]?["bytes"] as? Int ?? 0
        #expect(night["downloadBytes"] as? Int == p5 + catalogBytes + signatureBytes, "\(night)")
        #expect(second.stdout.contains("; tonight 0 added, 1 rebuilt, 8 unchanged, 0 removed"), "\(second.stdout)")
        let v = try runKartpack(["verify", out, "--pubkey", pub])
        #expect(v.status == 0, "\(v.stderr)")

        // Byte for byte what a build from scratch writes.
        let fresh = dir.file("fresh")
        let scratch = try runKartpack(Array(args.prefix(6)) + ["-o", fresh, "--quiet"])
        #expect(scratch.status == 0, "\(scratch.stderr)")
        for id in after.keys {
            let a = try Data(contentsOf: URL(fileURLWithPath: out + "/\(id).pmtiles"))
            let b = try Data(contentsOf: URL(fileURLWithPath: fresh + "/\(id).pmtiles"))
            #expect(a == b, "\(id)")
        }
    }

    /// The buffer is part of the polygon a feature is routed by: the stand lies about 216 m from p6, so a 100 m
    /// buffer leaves p6 alone and a 300 m one puts part of the stand into p6's package (rebuilt, new bytes).
    @Test func theBufferIsPartOfThePolygonAFeatureIsRoutedBy() throws {
        for (buffer, rebuilt) in [("100", ["p5"]), ("300", ["p5", "p6"])] {
            let dir = try TemporaryDirectory()
            let plan = try base.setUp(dir, idFields: ["avdelningar": "SID"])
            try incremental.writeStands(dir)
            let args = [
                "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", dir.file("out"),
                "--buffer", buffer, "--quiet", "--report", dir.file("r.json"),
            ]
            let first = try runKartpack(args)
            #expect(first.status == 0, "\(first.stderr)")
            try incremental.writeStands(dir, change: Self.edgeRow)
            let second = try runKartpack(args)
            #expect(second.status == 0, "\(second.stderr)")
            let built = ((try report(dir.file("r.json"))["regions"] as? [[String: Any]]) ?? []).filter {
                $0["status"] as? String == "built"
            }
            #expect(built.compactMap { $0["id"] as? String }.sorted() == rebuilt, "buffer \(buffer): \(built)")
        }
    }

    @Test func aRebuildIntoTheSameBytesKeepsFileAndCatalogEntry() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir, idFields: ["avdelningar": "SID"])
        try incremental.writeStands(dir)
        let out = dir.file("out")
        let args = ["package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", out]
        let first = try runKartpack(args + ["--quiet"])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try entries(out)
        let p5Stamp = try stamp(out + "/p5.pmtiles")

        // FASTIGHET of a stand in p5 changes: p5's fingerprint changes, but the stylesheet does not keep it.
        try incremental.writeStands(dir, rename: Self.edgeRow)
        let second = try runKartpack(args + ["--report", dir.file("r.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let r = try report(dir.file("r.json"))
        let p5Report = ((r["regions"] as? [[String: Any]]) ?? []).first { $0["id"] as? String == "p5" }
        #expect(p5Report?["status"] as? String == "identical", "\(String(describing: p5Report))")
        let after = try entries(out)
        let was = try #require(before["p5"]?.mutableCopy() as? NSMutableDictionary)
        let now = try #require(after["p5"]?.mutableCopy() as? NSMutableDictionary)
        #expect(was["fingerprint"] as? String != now["fingerprint"] as? String)
        was.removeObject(forKey: "fingerprint")
        now.removeObject(forKey: "fingerprint")
        // `built`, size and hash are last night's, and so is the file.
        #expect(was == now)
        #expect(try stamp(out + "/p5.pmtiles") == p5Stamp)
        let night = try #require(r["night"] as? [String: Any])
        #expect(night["rebuilt"] as? Int == 0 && night["unchanged"] as? Int == 9, "\(night)")
        #expect(second.stdout.contains("(0 built, 9 up to date"), "\(second.stdout)")

        // The kept entry carries tonight's fingerprint: the next night finds p5 up to date.
        let third = try runKartpack(args + ["--report", dir.file("r3.json")])
        #expect(third.status == 0, "\(third.stderr)")
        let statuses = ((try report(dir.file("r3.json"))["regions"] as? [[String: Any]]) ?? []).map {
            $0["status"] as? String ?? ""
        }
        #expect(Set(statuses) == ["up-to-date"], "\(statuses)")
        #expect(try runKartpack(["verify", out]).status == 0)
    }
}
