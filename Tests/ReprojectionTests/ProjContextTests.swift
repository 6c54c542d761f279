import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Reprojection

@Suite struct ProjContextTests {
    @Test func contextIsPinnedToProjDataWithNetworkOff() throws {
        let c = try ProjContext()
        #expect(!c.isNetworkEnabled)
        #expect(FileManager.default.fileExists(atPath: c.dataDirectory + "/proj.db"))
        #expect(c.messages.isEmpty)
    }

    @Test func loggerCollectsPROJMessages() throws {
        let c = try ProjContext()
        #expect(throws: ProjectionError.self) { try c.crsFromOverride("EPSG:999999") }
        #expect(c.logText(or: "").contains("not found"))
        c.clearMessages()
        #expect(c.logText(or: "none") == "none")
    }

    @Test func objectsKeepTheirContextAlive() throws {
        // The object outlives the local context reference; destroying it must not touch a freed context.
        let object: ProjObject? = try {
            let c = try ProjContext()
            return c.crsFromEPSG(3006)
        }()
        #expect(object?.name == "SWEREF99 TM")
        #expect(object?.isGeographic == false)
    }
}

/// PROJ's own file layer (`ProjFileAccess`): even a CRS text that got past every sanitizer cannot make PROJ open a
/// file outside proj-data — a FIFO named by `+nadgrids=` would otherwise block it forever.
@Suite struct ProjFileAccessTests {
    @Test func aGridPathOutsideProjDataIsNeverOpened() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.file("grid.gsb")
        #expect(mkfifo(fifo, 0o600) == 0)
        let done = DispatchSemaphore(value: 0)
        let definition = "+proj=longlat +ellps=GRS80 +nadgrids=\(fifo) +type=crs"
        Thread.detachNewThread {
            if let context = try? ProjContext() { _ = context.buildsTransformBypassingSanitizers(definition) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 20) == .success, "PROJ blocked on the FIFO")
        // A plain file outside proj-data is refused too (the transformation cannot use it).
        let file = dir.file("grid2.gsb")
        try Data(repeating: 0, count: 64).write(to: URL(fileURLWithPath: file))
        let context = try ProjContext()
        _ = context.buildsTransformBypassingSanitizers("+proj=longlat +ellps=GRS80 +nadgrids=\(file) +type=crs")
        #expect(ProjFileAccess.isInside("/usr/share/proj/x.tif", directory: "/usr/share/proj"))
        #expect(!ProjFileAccess.isInside("/usr/share/projx/x.tif", directory: "/usr/share/proj"))
    }

    @Test func gridsInsideProjDataStillWork() throws {
        // EPSG:3006 → WGS 84 needs no grid; a proj-data grid name resolves through the pinned search path.
        let t = try CoordinateTransformer(
            from: CRSInfo(name: "SWEREF99 TM", epsg: 3006, definition: "EPSG:3006", origin: "prj", isGeographic: false),
            to: .wgs84)
        var xy = [674032.357, 6580821.991]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 18.06) < 0.01 && abs(xy[1] - 59.33) < 0.01)
    }
}
