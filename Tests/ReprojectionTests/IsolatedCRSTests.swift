import Foundation
import KartpackTestSupport
import Testing

@testable import Reprojection

@Suite struct IsolatedCRSTests {
    private func script(_ dir: TemporaryDirectory, _ body: String) throws -> String {
        let path = dir.file("helper.sh")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    @Test func aCrashingParserRejectsTheFileNotTheRun() throws {
        let dir = try TemporaryDirectory()
        let helper = try script(dir, "cat > /dev/null; kill -SEGV $$")
        #expect {
            _ = try IsolatedCRS.resolve(
                prjText: "PROJCS[\"crash-\(UUID())\"]", override: nil, prjFile: "x.prj", helper: helper)
        } throws: { error in
            guard case ProjectionError.hostilePrj(_, let reason) = error else { return false }
            return reason.contains("crashed")
        }
    }

    @Test func aHangingParserIsStoppedAfterTheTimeLimit() throws {
        let dir = try TemporaryDirectory()
        let helper = try script(dir, "exec sleep 60")
        let start = Date()
        #expect {
            _ = try IsolatedCRS.resolve(
                prjText: "PROJCS[\"hang-\(UUID())\"]", override: nil, prjFile: "x.prj", helper: helper,
                wallLimit: 2)
        } throws: { error in
            guard case ProjectionError.hostilePrj(_, let reason) = error else { return false }
            return reason.contains("did not finish within 2 s")
        }
        #expect(Date().timeIntervalSince(start) < 2 + 5)
    }

    /// A text on which PROJ computes without end is stopped by the CPU limit, not by the wall clock.
    @Test func aSpinningParserIsStoppedByTheCPULimit() throws {
        let dir = try TemporaryDirectory()
        let helper = try script(dir, "cat > /dev/null; ulimit -S -t 1; while :; do :; done")
        #expect {
            _ = try IsolatedCRS.resolve(
                prjText: "PROJCS[\"spin-\(UUID())\"]", override: nil, prjFile: "x.prj", helper: helper)
        } throws: { error in
            guard case ProjectionError.hostilePrj(_, let reason) = error else { return false }
            return reason.contains("s of CPU time")
        }
    }

    /// A child that is slow to answer but uses little CPU (a loaded machine) is waited for: a good `.prj` is not
    /// rejected because the machine was busy (the former 5 s wall limit did that at load 24).
    @Test func aSlowButWorkingHelperIsWaitedFor() throws {
        let dir = try TemporaryDirectory()
        let helper = try script(dir, "sleep 6; exec '\(RepositoryPaths.kartpackBinary)' \"$@\"")
        let crs = try IsolatedCRS.resolve(
            prjText: PrjFixtures.sweref99TM + " ", override: nil, prjFile: "slow.prj", helper: helper)
        #expect(crs.epsg == 3006)
    }

    @Test func theRealHelperResolvesAndRejects() throws {
        let exe = RepositoryPaths.kartpackBinary
        let text = PrjFixtures.sweref99TM
        let crs = try IsolatedCRS.resolve(prjText: text, override: nil, prjFile: "a.prj", helper: exe)
        #expect(crs.epsg == 3006)
        #expect(throws: ProjectionError.self) {
            _ = try IsolatedCRS.resolve(prjText: "GEOGCS[garbage", override: nil, prjFile: "b.prj", helper: exe)
        }
    }

    /// Answers are cached per text; an error about a second file with the same text names that file.
    @Test func aCachedErrorNamesTheFileAskedAbout() throws {
        let exe = RepositoryPaths.kartpackBinary
        let text = "GEOGCS[garbage \(UUID())"
        for file in ["first.prj", "second.prj"] {
            #expect {
                _ = try IsolatedCRS.resolve(prjText: text, override: nil, prjFile: file, helper: exe)
            } throws: { error in
                "\(error)".contains(file) && !"\(error)".contains(file == "first.prj" ? "second" : "first")
            }
        }
    }

    @Test func overridesAreResolvedInTheChildToo() throws {
        let dir = try TemporaryDirectory()
        let hang = try script(dir, "exec sleep 60")
        let start = Date()
        #expect {
            _ = try IsolatedCRS.resolve(
                prjText: nil, override: "EPSG:\(3000 + Int.random(in: 0...99))-hang", prjFile: nil, helper: hang,
                wallLimit: 2)
        } throws: { error in
            guard case ProjectionError.badOverride(_, let detail) = error else { return false }
            return detail.contains("did not finish")
        }
        #expect(Date().timeIntervalSince(start) < 2 + 5)
        let crash = try script(dir, "cat > /dev/null; kill -SEGV $$")
        #expect {
            _ = try IsolatedCRS.resolve(prjText: nil, override: "EPSG:4326 \(UUID())", prjFile: nil, helper: crash)
        } throws: { error in
            guard case ProjectionError.badOverride(_, let detail) = error else { return false }
            return detail.contains("crashed")
        }
        let real = try IsolatedCRS.resolve(
            prjText: nil, override: "3006", prjFile: nil, helper: RepositoryPaths.kartpackBinary)
        #expect(real.epsg == 3006 && real.origin == "option")
    }

    @Test func aHelperThatDiesBeforeReadingDoesNotKillTheParent() throws {
        // The parent writes the text into a pipe nobody reads any more: EPIPE, never SIGPIPE.
        let dir = try TemporaryDirectory()
        let helper = try script(dir, "exec 0<&-; exit 3")
        let big = "PROJCS[\"" + String(repeating: "x", count: 60_000) + "\"]"
        #expect(throws: ProjectionError.self) {
            _ = try IsolatedCRS.resolve(prjText: big, override: nil, prjFile: "x.prj", helper: helper)
        }
    }
}

/// What `--source-crs` and a pipeline's `"crs"` may hold (CRSOverrideSanitizer).
@Suite struct CRSOverrideSanitizerTests {
    @Test(arguments: [
        "EPSG:3006", "3006", "SWEREF99 TM", "NAD83 / UTM zone 15N", "urn:ogc:def:crs:EPSG::4326", "ESRI:102100",
        "+proj=utm +zone=33 +ellps=GRS80", "+proj=longlat +ellps=GRS80 +nadgrids=@null",
        "+proj=longlat +ellps=GRS80 +nadgrids=@conus,@alaska", "EPSG:4326+5773",
    ])
    func safeTextPasses(_ text: String) throws {
        _ = try CRSOverrideSanitizer.sanitize(text)
    }

    @Test(arguments: [
        ("+proj=longlat +nadgrids=/tmp/fifo", "file path"), ("+proj=longlat +geoidgrids=../g.gtx", "relative"),
        ("+init=epsg:4326", "+init="), ("init=epsg:4326", "+init="), ("+proj=longlat +nadgrids=@./x", "relative"),
        ("+proj=tinshift +file=/etc/passwd", "file path"), ("http://example.com/crs", "URL"),
        ("file:///etc/x.prj", "URL"), ("C:\\x.prj", "file path"),
        ("GEOGCS[\"x\",DATUM[\"D\",SPHEROID[\"a\",1,1]],PARAMETERFILE[\"f\",\"/tmp/fifo\"]]", "file path"),
        ("{\"type\": \"GeographicCRS\", \"name\": \"+proj=longlat +nadgrids=/x\"}", "PROJ string"),
        ("{\"a\": {\"value\": \"/tmp/fifo\"}}", "file path"),
        ("GEOGCS" + String(repeating: "[A", count: 100), "deeper than 64"), ("EPSG:4326\u{0}x", "control character"),
    ])
    func unsafeTextIsRefusedWithTheReason(_ text: String, _ reason: String) {
        #expect {
            _ = try CRSOverrideSanitizer.sanitize(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func wktOverridesAreCleanedLikeAPrj() throws {
        let wkt =
            #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],"#
            + #"PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433],EXTENSION["PROJ4","+proj=longlat"]]"#
        let cleaned = try CRSOverrideSanitizer.sanitize(wkt)
        #expect(!cleaned.contains("EXTENSION"))
        let crs = try CRSResolver.resolve(prjText: nil, override: wkt, prjFile: nil)
        #expect(crs.epsg == 4326)
    }
}
