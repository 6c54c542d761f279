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

    @Test func aNightWithoutAPieceStoreCountsTheStoreItWillWrite() throws {
        let dir = try TemporaryDirectory(prefix: "disk-need")
        let package = dir.file("forest.pmtiles")
        let margin = UInt64(64 << 20)
        // A first night: the inputs' bytes for the package, 1.5 times them for the store.
        #expect(PipelineRunner.neededBytes(package: package, inputBytes: 1000, memoryBudget: 1 << 20) == 2500 + margin)
        #expect(PipelineRunner.neededBytes(package: package, inputBytes: .max, memoryBudget: 1 << 20) == .max)
        // The store never counts above its limit (four times the memory budget): a larger one is not written.
        #expect(
            PipelineRunner.neededBytes(package: package, inputBytes: 10 << 20, memoryBudget: 1 << 20)
                == (10 << 20) + (4 << 20) + margin)
        // Last night's package without a store: its bytes, and the store tonight writes.
        try Data(count: 3000).write(to: URL(fileURLWithPath: package))
        #expect(PipelineRunner.neededBytes(package: package, inputBytes: 1000, memoryBudget: 1 << 20) == 4500 + margin)
        // With last night's store: last night's files, each rewritten whole.
        try Data(count: 5000).write(to: URL(fileURLWithPath: package + ".piecestore"))
        #expect(PipelineRunner.neededBytes(package: package, inputBytes: 1000, memoryBudget: 1 << 20) == 8000 + margin)
    }
}
