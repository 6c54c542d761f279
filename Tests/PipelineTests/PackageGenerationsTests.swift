import Foundation
import Testing

@testable import Publishing
@testable import RegionPackages

/// The generations of a region package folder (issue 32: crash-consistent publish): a publish stopped after any
/// of its steps leaves a folder whose catalog, signature and packages are all of one night, and the next night
/// completes from there.
@Suite struct PackageGenerationsTests {
    /// A scratch package folder.
    final class Folder {
        let path: String
        init() {
            path = NSTemporaryDirectory() + "generations-" + UUID().uuidString
            try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func read(_ name: String) -> String? {
            FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) }
        }
        func write(_ text: String, _ name: String) {
            _ = FileManager.default.createFile(atPath: path + "/" + name, contents: Data(text.utf8))
        }
        var names: [String] { PackageGenerations.list(path) }
    }

    /// A night: its catalog lists `files`, each file holds "<name>@<night>", the signature names the night.
    struct Night {
        var number: Int
        var files: [String]
        var catalog: String { "night \(number): " + files.joined(separator: ",") }
        func content(_ file: String) -> String { "\(file)@\(number)" }
    }

    /// Publishes `night` the way `kartpack package` does: stage, write, publish.
    static func publish(
        _ night: Night, in folder: Folder, previous: Night?,
        checkpoint: (String) throws(PublishError) -> Void = { _ in }
    ) throws {
        let generations = PackageGenerations(folder: folder.path)
        let staged = try generations.stage(sequence: night.number)
        for f in night.files {
            _ = FileManager.default.createFile(atPath: staged.path + "/" + f, contents: Data(night.content(f).utf8))
        }
        _ = FileManager.default.createFile(atPath: staged.path + "/catalog.json", contents: Data(night.catalog.utf8))
        _ = FileManager.default.createFile(
            atPath: staged.path + "/catalog.json.minisig", contents: Data("signed \(night.catalog)".utf8))
        try generations.publish(
            staged, names: ["catalog.json", "catalog.json.minisig"] + night.files,
            previousNames: ["catalog.json", "catalog.json.minisig"] + (previous?.files ?? []), checkpoint: checkpoint)
    }

    /// The folder as a reader of its top-level names sees it is exactly one of `nights`; returns its number.
    static func consistentNight(_ folder: Folder, _ nights: [Night]) -> Int? {
        guard let catalog = folder.read("catalog.json"), let night = nights.first(where: { $0.catalog == catalog })
        else { return nil }
        guard folder.read("catalog.json.minisig") == "signed \(catalog)" else { return nil }
        for f in night.files where folder.read(f) != night.content(f) { return nil }
        return night.number
    }

    @Test func aNightIsPublishedAsLinksThroughCurrent() throws {
        let folder = Folder()
        let one = Night(number: 1, files: ["a.pmtiles", "b.pmtiles"])
        try Self.publish(one, in: folder, previous: nil)
        #expect(Self.consistentNight(folder, [one]) == 1)
        #expect(PackageGenerations(folder: folder.path).current() == "1")
        #expect(PackageGenerations.readLink(folder.path + "/a.pmtiles") == ".generations/current/a.pmtiles")
        #expect(folder.names == [".generations", "a.pmtiles", "b.pmtiles", "catalog.json", "catalog.json.minisig"])
    }

    @Test func theNextNightRemovesTheLinksOfRegionsThatLeftAndKeepsOnePreviousGeneration() throws {
        let folder = Folder()
        let nights = [
            Night(number: 1, files: ["a.pmtiles", "b.pmtiles"]), Night(number: 2, files: ["b.pmtiles", "c.pmtiles"]),
            Night(number: 3, files: ["c.pmtiles"]),
        ]
        try Self.publish(nights[0], in: folder, previous: nil)
        try Self.publish(nights[1], in: folder, previous: nights[0])
        #expect(Self.consistentNight(folder, nights) == 2)
        #expect(!folder.names.contains("a.pmtiles"))
        #expect(PackageGenerations.list(folder.path + "/.generations") == ["1", "2", "current"])
        try Self.publish(nights[2], in: folder, previous: nights[1])
        #expect(Self.consistentNight(folder, nights) == 3)
        #expect(folder.names == [".generations", "c.pmtiles", "catalog.json", "catalog.json.minisig"])
        #expect(PackageGenerations.list(folder.path + "/.generations") == ["2", "3", "current"])
    }

    /// A kill after any step of a publish (simulated by throwing from its checkpoint) leaves one whole night, and
    /// the next run sweeps what it left and publishes.
    @Test(arguments: PackageGenerations.publishSteps)
    func aPublishStoppedAfterAnyStepLeavesOneWholeNight(step: String) throws {
        let folder = Folder()
        let nights = [
            Night(number: 1, files: ["a.pmtiles", "b.pmtiles"]), Night(number: 2, files: ["b.pmtiles", "c.pmtiles"]),
            Night(number: 3, files: ["a.pmtiles", "c.pmtiles"]),
        ]
        try Self.publish(nights[0], in: folder, previous: nil)
        #expect(throws: PublishError.self) {
            try Self.publish(nights[1], in: folder, previous: nights[0]) { name throws(PublishError) in
                if name == step { throw .cannotPublish(path: "stop", reason: "simulated kill") }
            }
        }
        let seen = Self.consistentNight(folder, nights)
        #expect(seen == (PackageGenerations.publishSteps.firstIndex(of: step)! >= 3 ? 2 : 1))
        PackageGenerations(folder: folder.path).sweep()
        #expect(Self.consistentNight(folder, nights) == seen)
        try Self.publish(nights[2], in: folder, previous: nights[seen! - 1])
        #expect(Self.consistentNight(folder, nights) == 3)
        #expect(folder.names == [".generations", "a.pmtiles", "c.pmtiles", "catalog.json", "catalog.json.minisig"])
    }

    /// A folder written before generations (regular files at the top) is adopted at every instant consistently.
    @Test(arguments: PackageGenerations.publishSteps)
    func aFolderOfRegularFilesIsAdoptedWithoutAMixedInstant(step: String) throws {
        let folder = Folder()
        let old = Night(number: 7, files: ["a.pmtiles", "b.pmtiles"])
        for f in old.files { folder.write(old.content(f), f) }
        folder.write(old.catalog, "catalog.json")
        folder.write("signed \(old.catalog)", "catalog.json.minisig")
        folder.write("someone else's", "notes.txt")
        let next = Night(number: 8, files: ["a.pmtiles", "c.pmtiles"])
        #expect(throws: PublishError.self) {
            try Self.publish(next, in: folder, previous: old) { name throws(PublishError) in
                if name == step { throw .cannotPublish(path: "stop", reason: "simulated kill") }
            }
        }
        let seen = Self.consistentNight(folder, [old, next])
        #expect(seen == (PackageGenerations.publishSteps.firstIndex(of: step)! >= 3 ? 8 : 7))
        PackageGenerations(folder: folder.path).sweep()
        let last = seen == 8 ? next : old
        let after = Night(number: 9, files: ["c.pmtiles"])
        try Self.publish(after, in: folder, previous: last)
        #expect(Self.consistentNight(folder, [after]) == 9)
        #expect(folder.read("notes.txt") == "someone else's")
        #expect(!folder.names.contains("a.pmtiles") && !folder.names.contains("b.pmtiles"))
    }

    @Test func theSweepRemovesStagingFoldersTemporaryLinksAndUnpublishedGenerations() throws {
        let folder = Folder()
        let one = Night(number: 1, files: ["a.pmtiles"])
        try Self.publish(one, in: folder, previous: nil)
        let store = folder.path + "/.generations"
        try FileManager.default.createDirectory(
            atPath: store + "/2.tmp-99999-0badf00d", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: store + "/5", withIntermediateDirectories: true)
        symlink("2", store + "/current.tmp-99999-0badf00d")
        symlink(".generations/current/x.pmtiles", folder.path + "/x.pmtiles.tmp-99999-0badf00d")
        folder.write("not ours", "y.pmtiles.tmp-99999-0badf00d")
        PackageGenerations(folder: folder.path).sweep()
        #expect(PackageGenerations.list(store) == ["1", "current"])
        #expect(folder.names.contains("y.pmtiles.tmp-99999-0badf00d"))
        #expect(!folder.names.contains("x.pmtiles.tmp-99999-0badf00d"))
        #expect(Self.consistentNight(folder, [one]) == 1)
    }

    @Test func theNightAlreadyPublishedIsNotStagedOverItself() throws {
        let folder = Folder()
        let one = Night(number: 1, files: ["a.pmtiles"])
        try Self.publish(one, in: folder, previous: nil)
        #expect(throws: PublishError.self) { try Self.publish(one, in: folder, previous: one) }
        #expect(Self.consistentNight(folder, [one]) == 1)
    }
}
