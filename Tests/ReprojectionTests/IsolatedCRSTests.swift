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
            _ = try IsolatedCRS.resolve(prjText: "PROJCS[\"crash-\(UUID())\"]", override: nil, prjFile: "x.prj", helper: helper)
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
            _ = try IsolatedCRS.resolve(prjText: "PROJCS[\"hang-\(UUID())\"]", override: nil, prjFile: "x.prj", helper: helper)
        } throws: { error in
            guard case ProjectionError.hostilePrj(_, let reason) = error else { return false }
            return reason.contains("did not finish")
        }
        #expect(Date().timeIntervalSince(start) < IsolatedCRS.timeout + 5)
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
}
