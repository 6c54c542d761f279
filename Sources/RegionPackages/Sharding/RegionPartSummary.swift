import ConvertEngine
import Foundation
import KartpackCore

/// What a package shard knew of its regions and inputs that the merge needs, and would otherwise read, route and
/// hash every source for: each of its regions' fingerprint (those it found empty too, which its catalog leaves
/// out), the inputs as its report names them (path, layer, records and a rejection, without per-record counts:
/// each shard read only some records), and the max zoom it chose. A shard writes it into its part folder as
/// `shard-regions.json` once it published its part (before the command writes `shard.json`, which says the part
/// is finished); the merge takes the night's fingerprints from it (`RegionPackager.mergeInputs`).
package struct RegionPartSummary: Codable, Sendable {
    package static let fileName = "shard-regions.json"
    static let formatVersion = 1

    var kartpackPackagePartRegions = Self.formatVersion
    /// Region id → its fingerprint (`RegionFingerprint.region`), for every region the shard built or found empty.
    package var fingerprints: [String: String]
    /// The inputs in command-line order, their per-record counts left out.
    package var inputs: [ConvertReport.Input]
    /// The max zoom chosen for every region (`--max-zoom auto`), nil otherwise.
    package var maxZoomChosen: MaxZoomChoice?

    package init(fingerprints: [String: String], inputs: [ConvertReport.Input], maxZoomChosen: MaxZoomChoice?) {
        self.fingerprints = fingerprints
        self.inputs = inputs.map { i in
            var i = i
            (i.written, i.rejected, i.repaired, i.coercedToNull, i.classes) = (0, [:], [:], [:], [:])
            (i.insideClip, i.outsideShard) = (nil, nil)
            return i
        }
        self.maxZoomChosen = maxZoomChosen
    }

    /// Writes the summary into the part `folder` (through a temporary file and a rename).
    package func write(folder: String) throws {
        let path = folder + "/" + Self.fileName
        let temporary = path + ".tmp-\(getpid())"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(self), FileManager.default.createFile(atPath: temporary, contents: data),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw PipelineError.badOutput(path: path, reason: "cannot write the part's region summary")
        }
    }

    /// Reads the summary of the part `folder`; nil when it has none or it is damaged (the merge refuses the part).
    package static func read(folder: String) -> RegionPartSummary? {
        guard let data = FileManager.default.contents(atPath: folder + "/" + fileName),
            let s = try? JSONDecoder().decode(RegionPartSummary.self, from: data),
            s.kartpackPackagePartRegions == formatVersion
        else { return nil }
        return s
    }

    /// True when two parts name the same inputs the same way and chose the same max zoom: parts of one plan's
    /// shards always do (a source rejected by one shard and not by another was read differently).
    package func agrees(with other: RegionPartSummary) -> Bool {
        maxZoomChosen == other.maxZoomChosen
            && inputs.map(Self.key) == other.inputs.map(Self.key)
    }

    private static func key(_ i: ConvertReport.Input) -> [String] {
        [i.path, i.layer, i.crs ?? "", i.encoding ?? "", "\(i.records)", i.error ?? "", i.errorCode?.rawValue ?? ""]
    }
}
