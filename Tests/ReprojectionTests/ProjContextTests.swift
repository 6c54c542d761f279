import Foundation
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
