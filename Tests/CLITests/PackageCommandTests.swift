import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package`, `verify` and `extract` through the real binary on the sample forest plan, by
/// municipality (`kommuner`, id KOMMUNKOD) and by property (`fastigheter`, with a safe id added by ogr2ogr).
@Suite struct PackageCommandTests {
    static let layers = ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"]

    /// A pipeline over copies of the sample layers (so a test can change a stand), plus `props.shp`: the
    /// properties with id field PID = p1…p9. `extra` is appended to the top-level object (`, "regions": …`); a
    /// second call in the same folder writes only the pipeline file `name`. `idFields` gives sources an
    /// `idField` (layer → field).
    func setUp(
        _ dir: TemporaryDirectory, extra: String = "", name: String = "plan.json", idFields: [String: String] = [:]
    ) throws -> String {
        let data = dir.file("data")
        let path = dir.file(name)
        if FileManager.default.fileExists(atPath: data) {
            try Data(pipelineText(extra, idFields: idFields).utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for layer in Self.layers {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try FileManager.default.copyItem(
                    atPath: RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path,
                    toPath: "\(data)/\(layer).\(ext)")
            }
        }
        let g = try runProcess(
            "/usr/bin/ogr2ogr",
            [
                "-q", "-dialect", "sqlite", "-lco", "ENCODING=UTF-8", "-nln", "props", "\(data)/props.shp",
                "\(data)/fastigheter.shp",
                "-sql", "SELECT geometry, FASTIGHET, 'p' || (rowid + 1) AS PID FROM fastigheter",
            ])
        #expect(g.status == 0, "\(g.stderr)")
        try FileManager.default.copyItem(
            atPath: RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path,
            toPath: dir.file("forest.kss"))
        try Data(pipelineText(extra, idFields: idFields).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func pipelineText(_ extra: String, idFields: [String: String]) -> String {
        let sources = Self.layers.map { l in
            #"{ "path": "data/\#(l).shp", "layer": "\#(l)""# + (idFields[l].map { #", "idField": "\#($0)""# } ?? "")
                + " }"
        }
        return """
            { "version": 1,
              "sources": [ \(sources.joined(separator: ", ")) ],
              "style": "forest.kss",
              "tiles": { "minZoom": 8, "maxZoom": 13 },
              "output": { "path": "nowhere/plan.pmtiles", "name": "Plan", "attribution": "Synthetic" }\(extra) }
            """
    }

    private func catalog(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/catalog.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func regions(_ folder: String) throws -> [[String: Any]] {
        try #require(try catalog(folder)["regions"] as? [[String: Any]])
    }

    private func sha256(_ path: String) throws -> String {
        let r = try runProcess("/usr/bin/sha256sum", [path])
        return String(r.stdout.prefix(64))
    }

    @Test func packagesMatchCatalogAndSingleRegionConvert() throws {
        let dir = try TemporaryDirectory()
        let plan = try setUp(dir)
        let out = dir.file("out")
        let r = try runKartpack([
            "package", plan, "--regions", dir.file("data/kommuner.shp"), "--id-field", "KOMMUNKOD",
            "--name-field", "KOMMUNNAMN", "--buffer", "50", "-o", out, "--threads", "2", "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let cat = try catalog(out)
        #expect(cat["catalogVersion"] as? Int == 1)
        #expect((cat["created"] as? String)?.hasSuffix("Z") == true)
        let list = try regions(out)
        #expect(list.map { $0["id"] as? String } == ["2404", "2409", "2460", "2480"])
        for region in list {
            let file = out + "/" + (region["file"] as? String ?? "")
            let published = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
            let size = try FileManager.default.attributesOfItem(atPath: published)[.size] as? Int
            #expect(region["bytes"] as? Int == size)
            #expect(region["sha256"] as? String == (try sha256(file)))
            #expect((region["bounds"] as? [Double])?.count == 4)
            #expect(region["minZoom"] as? Int == 8 && region["maxZoom"] as? Int == 13)
            #expect((region["fingerprint"] as? String)?.count == 64)
            #expect(((region["layers"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "kommuner" })
        }
        #expect(
            list.contains { r in
                ((r["layers"] as? [[String: Any]]) ?? []).contains { $0["name"] as? String == "avdelningar" }
            })
        #expect(list.first { $0["id"] as? String == "2460" }?["name"] as? String == "Vännäs")

        // The same region by `convert --clip`: byte for byte the package's file.
        let data = dir.file("data")
        let single = dir.file("single.pmtiles")
        let c = try runKartpack(
            ["convert"] + Self.layers.map { "\(data)/\($0).shp" } + [
                "--style", dir.file("forest.kss"), "--min-zoom", "8", "--max-zoom", "13", "--name", "Vännäs",
                "--attribution", "Synthetic", "--clip", "\(data)/kommuner.shp:[KOMMUNKOD = \"2460\"]",
                "--clip-buffer", "50", "-o", single, "--quiet",
            ])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(try sha256(single) == (try sha256(out + "/2460.pmtiles")))

        // verify: all good, then a flipped byte is named.
        let v = try runKartpack(["verify", out])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.contains("4 regions"), "\(v.stdout)")
        let victim = out + "/2409.pmtiles"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: victim))
        let bad = try runKartpack(["verify", out])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("region 2409") && bad.stderr.contains("SHA-256"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("region 2404"), "\(bad.stderr)")

        // A broken file is rebuilt by the next run, and only it.
        let before = try regions(out)
        let again = try runKartpack([
            "package", plan, "--regions", dir.file("data/kommuner.shp"), "--id-field", "KOMMUNKOD",
            "--name-field", "KOMMUNNAMN", "--buffer", "50", "-o", out, "--report", dir.file("r.json"), "--quiet",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("r.json"))))
                as? [String: Any])
        let statuses = ((report["regions"] as? [[String: Any]]) ?? []).map { "\($0["id"] ?? "")=\($0["status"] ?? "")" }
        #expect(statuses.sorted() == ["2404=up-to-date", "2409=built", "2460=up-to-date", "2480=up-to-date"])
        #expect(try regions(out).map { $0["sha256"] as? String } == before.map { $0["sha256"] as? String })
        #expect(try runKartpack(["verify", out]).status == 0)
    }

    @Test func signatureIsWrittenAndCheckedAndABadOneIsCaught() throws {
        let dir = try TemporaryDirectory()
        let plan = try setUp(dir)
        let key = dir.file("k.key")
        let pub = dir.file("k.pub")
        let g = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", pub, "-s", key])
        #expect(g.status == 0, "\(g.stderr)")
        let out = dir.file("out")
        let r = try runKartpack([
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "--where", "[PID < \"p3\"]",
            "--sign", key, "-o", out, "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try regions(out).map { $0["id"] as? String } == ["p1", "p2"])
        #expect(FileManager.default.fileExists(atPath: out + "/catalog.json.minisig"))
        let v = try runKartpack(["verify", out, "--pubkey", pub])
        #expect(v.status == 0, "\(v.stderr)")
        #expect(v.stdout.contains("signature good"), "\(v.stdout)")

        // Another key's public key, then a catalog changed after signing: both are mismatches.
        let otherPub = dir.file("o.pub")
        _ = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", otherPub, "-s", dir.file("o.key")])
        let wrong = try runKartpack(["verify", out, "--pubkey", otherPub])
        #expect(wrong.status == 65)
        #expect(wrong.stderr.contains("bad signature"), "\(wrong.stderr)")
        // The published generation's catalog, changed in place.
        let catalogPath = URL(fileURLWithPath: out + "/catalog.json").resolvingSymlinksInPath().path
        #expect(catalogPath.hasSuffix("/.generations/1/catalog.json"), "\(catalogPath)")
        let text = try String(contentsOfFile: catalogPath, encoding: .utf8)
        try text.replacingOccurrences(of: "\"p2\"", with: "\"p3\"").write(
            toFile: catalogPath, atomically: true, encoding: .utf8)
        let tampered = try runKartpack(["verify", out, "--pubkey", pub])
        #expect(tampered.status == 65)
        #expect(tampered.stderr.contains("bad signature"), "\(tampered.stderr)")
        // A top-level name that is not the published generation's file is a mismatch too.
        try text.write(toFile: catalogPath, atomically: true, encoding: .utf8)
        #expect(try runKartpack(["verify", out, "--pubkey", pub]).status == 0)
        try FileManager.default.removeItem(atPath: out + "/catalog.json")
        try text.write(toFile: out + "/catalog.json", atomically: true, encoding: .utf8)
        let replaced = try runKartpack(["verify", out, "--pubkey", pub])
        #expect(replaced.status == 65)
        #expect(replaced.stderr.contains("catalog.json is not the file generation 1 publishes"), "\(replaced.stderr)")
    }

    @Test func changedStandRebuildsOnlyTheRegionsItTouchesAndRemovedRegionsGo() throws {
        let dir = try TemporaryDirectory()
        let plan = try setUp(dir)
        let out = dir.file("out")
        let args = [
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "-o", out, "--quiet",
        ]
        let first = try runKartpack(args)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try regions(out)
        #expect(before.count == 9)

        // Change one attribute of the first stand (record 1) in place, same length.
        let dbf = dir.file("data/avdelningar.dbf")
        var d = try Data(contentsOf: URL(fileURLWithPath: dbf))
        let headerLength = Int(d[8]) | Int(d[9]) << 8
        let at = headerLength + 1 + 2
        d[at] = d[at] == 0x39 ? 0x38 : 0x39
        try d.write(to: URL(fileURLWithPath: dbf))
        let second = try runKartpack(args + ["--report", dir.file("r.json")])
        #expect(second.status == 0, "\(second.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("r.json"))))
                as? [String: Any])
        let rows = (report["regions"] as? [[String: Any]]) ?? []
        let rebuilt = rows.filter { $0["status"] as? String == "built" }.compactMap { $0["id"] as? String }
        #expect(!rebuilt.isEmpty && rebuilt.count < 9, "\(rebuilt)")
        let after = try regions(out)
        for (a, b) in zip(before, after) where !rebuilt.contains(a["id"] as? String ?? "") {
            #expect(a["sha256"] as? String == b["sha256"] as? String)
            #expect(a["built"] as? String == b["built"] as? String)
        }

        // Fewer regions: refused without --allow-removals (naming the region, nothing changed); with it the
        // removed ones leave the catalog and their files go.
        let catalogBefore = try Data(contentsOf: URL(fileURLWithPath: out + "/catalog.json"))
        let refused = try runKartpack(args + ["--where", "[PID != \"p9\"]"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("region 'p9' is in the previous catalog"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/catalog.json")) == catalogBefore)
        #expect(FileManager.default.fileExists(atPath: out + "/p9.pmtiles"))
        let fewer = try runKartpack(args + ["--where", "[PID != \"p9\"]", "--allow-removals"])
        #expect(fewer.status == 0, "\(fewer.stderr)")
        #expect(try regions(out).count == 8)
        #expect(!FileManager.default.fileExists(atPath: out + "/p9.pmtiles"))
        #expect(FileManager.default.fileExists(atPath: out + "/p8.pmtiles"))
        #expect(try runKartpack(["verify", out]).status == 0)
    }

    @Test func hostileAndDuplicateIDsAreRefusedNamingTheRecord() throws {
        let dir = try TemporaryDirectory()
        let plan = try setUp(dir)
        let out = dir.file("out")
        // FASTIGHET values hold spaces and colons ("Granbäcken 1:12").
        let hostile = try runKartpack([
            "package", plan, "--regions", dir.file("data/fastigheter.shp"), "--id-field", "FASTIGHET", "-o", out,
        ])
        #expect(hostile.status == 65, "\(hostile.stderr)")
        #expect(hostile.stderr.contains("record 1") && hostile.stderr.contains("Granbäcken 1:12"), "\(hostile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/catalog.json"))

        let traversal = dir.file("data/evil.shp")
        let g = try runProcess(
            "/usr/bin/ogr2ogr",
            [
                "-q", "-dialect", "sqlite", "-nln", "evil", traversal, dir.file("data/fastigheter.shp"), "-sql",
                "SELECT geometry, CASE WHEN rowid = 2 THEN '../../etc/x' ELSE 'a' || rowid END AS RID FROM fastigheter",
            ])
        #expect(g.status == 0, "\(g.stderr)")
        let t = try runKartpack(["package", plan, "--regions", traversal, "--id-field", "RID", "-o", out])
        #expect(t.status == 65)
        #expect(t.stderr.contains("record 3") && t.stderr.contains("../../etc/x"), "\(t.stderr)")

        // KOMMUN repeats ("Vindeln" for several properties).
        let dup = try runKartpack([
            "package", plan, "--regions", dir.file("data/fastigheter.shp"), "--id-field", "KOMMUN", "-o", out,
        ])
        #expect(dup.status == 65)
        #expect(dup.stderr.contains("already used by record"), "\(dup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/catalog.json"))
    }

    @Test func extractEqualsTheBigPackageTileByTile() throws {
        let dir = try TemporaryDirectory()
        let data = dir.file("data")
        _ = try setUp(dir)
        let big = dir.file("big.pmtiles")
        let c = try runKartpack([
            "convert", "\(data)/avdelningar.shp", "\(data)/vagar.shp", "--min-zoom", "8", "--max-zoom", "13", "-o", big,
            "--quiet",
        ])
        #expect(c.status == 0, "\(c.stderr)")
        let part = dir.file("part.pmtiles")
        let bbox = "19.55,63.99,19.65,64.03"
        let x = try runKartpack(["extract", big, "--bbox", bbox, "-o", part, "--max-zoom", "12"])
        #expect(x.status == 0, "\(x.stderr)")
        let region = dir.file("region.pmtiles")
        let xr = try runKartpack(["extract", big, "--region", "\(data)/props.shp:PID=p4", "-o", region])
        #expect(xr.status == 0, "\(xr.stderr)")
        // Every tile of the part is the big package's tile, and every big tile touching the box is in the part.
        let script = """
            import sys, math
            from pmtiles.reader import Reader, MmapSource, all_tiles
            def tiles(p):
                with open(p, 'rb') as f:
                    return {(z, x, y): d for (z, x, y), d in all_tiles(MmapSource(f))}
            big, part = tiles(sys.argv[1]), tiles(sys.argv[2])
            w, s, e, n = map(float, sys.argv[3].split(','))
            def touches(z, x, y):
                k = 2 ** z
                lon0, lon1 = x / k * 360 - 180, (x + 1) / k * 360 - 180
                lat = lambda t: math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * t / k))))
                return lon0 <= e and lon1 >= w and lat(y + 1) <= n and lat(y) >= s
            want = {t for t in big if t[0] <= 12 and touches(*t)}
            assert set(part) == want, (sorted(set(part) ^ want))[:5]
            assert all(part[t] == big[t] for t in part)
            print(len(part))
            """
        let py = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
        let check = try runProcess(py, ["-c", script, big, part, bbox])
        #expect(check.status == 0, "\(check.stderr)")
        #expect((Int(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 5, "\(check.stdout)")
        let checkRegion = try runProcess(
            py,
            [
                "-c",
                """
                import sys
                from pmtiles.reader import Reader, MmapSource, all_tiles
                def tiles(p):
                    with open(p, 'rb') as f:
                        return {(z, x, y): d for (z, x, y), d in all_tiles(MmapSource(f))}
                big, part = tiles(sys.argv[1]), tiles(sys.argv[2])
                assert part and all(part[t] == big[t] for t in part) and len(part) < len(big)
                """, big, region,
            ])
        #expect(checkRegion.status == 0, "\(checkRegion.stderr)")
    }
}
