import Foundation
import KartpackTestSupport
import Testing

@testable import PipelineFiles

/// What a night's free-space check counts as last night's output: the package and the piece store and tile index
/// rewritten beside it (each written whole before it replaces the old one).
@Suite struct NightlyDiskNeedTests {
    @Test func lastNightCountsThePackageItsPieceStoreAndItsIndex() throws {
        let dir = try TemporaryDirectory(prefix: "disk-need")
        let package = dir.file("forest.pmtiles")
        #expect(PipelineRunner.previousBytes(package: package) == nil)
        try Data(count: 1000).write(to: URL(fileURLWithPath: package))
        #expect(PipelineRunner.previousBytes(package: package) == 1000)
        try Data(count: 5000).write(to: URL(fileURLWithPath: package + ".piecestore"))
        try Data(count: 70).write(to: URL(fileURLWithPath: package + ".tileindex"))
        #expect(PipelineRunner.previousBytes(package: package) == 6070)
        // A store without its package is a leftover: a first night.
        try FileManager.default.removeItem(atPath: package)
        #expect(PipelineRunner.previousBytes(package: package) == nil)
    }
}
