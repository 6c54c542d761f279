import Checksum
import Foundation
import KartpackCore
import KartpackJSON
import TileArchive

/// A shard plan (`kartpack plan`): the build it splits (the `convert` command line, run from `directory`), the
/// inputs' fingerprint when it was made, and each shard's tiles (`ShardTiles`: key ranges of the archive's tile
/// order). Shards take their inputs and options from the plan, so they cannot differ; a part records the plan's
/// digest (`digest`, SHA-256 of the file), so the merge refuses parts of another plan.
package struct ShardPlan: Sendable {
    /// 2: a shard holds key ranges (an area's tiles at each zoom), not one range. Region plans have the same
    /// number (`RegionShardPlan`), so that one read as the other is refused by its command, not its format.
    static let formatVersion: Int64 = 2
    /// The command the plan splits (`convert`).
    package var command: String
    /// The working folder the arguments' relative paths are read from.
    package var directory: String
    /// The command's arguments (`kartpack convert` without `--shards`/`--plan`): inputs, options, `-o` the package.
    package var arguments: [String]
    /// The package the merge publishes, as `-o` gave it.
    package var output: String
    package var format: ArchiveFormat
    /// The inputs' fingerprint (`ShardPlanner.fingerprint`).
    package var fingerprint: String
    /// Each shard's tiles, in shard order.
    package var shards: [ShardTiles]
    /// The lowest zoom split into ranges (`ShardZooms`): the zooms below are the first shard's, whole.
    package var splitZoom: Int
    /// The Kartpack version that made the plan; shards and merge of another version refuse it.
    package var kartpack: String = Kartpack.version
    /// Inputs whose stored record boxes the plan does not trust: every shard reads them whole.
    package var untrustedBoxes = UntrustedRecordBoxes()
    /// The stamps of the files the fingerprint hashed (nil: none recorded, the shards hash).
    package var inputStamps: InputStamps?
    /// Why the plan chose its split zoom, when `--split-zoom` did not give it (printed, not stored).
    package var splitNote: String?

    package init(
        command: String, directory: String, arguments: [String], output: String, format: ArchiveFormat,
        fingerprint: String, shards: [ShardTiles], splitZoom: Int
    ) {
        self.splitZoom = splitZoom
        self.command = command
        self.directory = directory
        self.arguments = arguments
        self.output = output
        self.format = format
        self.fingerprint = fingerprint
        self.shards = shards
    }

    /// The plan file's text (pretty JSON, stable).
    package var text: String {
        let list = shards.enumerated().map { i, t -> JSONValue in
            .object([("shard", .int(Int64(i))), ("ranges", t.json)])
        }
        return JSONWriter.text(
            .object([
                ("kartpackShardPlan", .int(Self.formatVersion)), ("kartpack", .string(kartpack)),
                ("command", .string(command)), ("directory", .string(directory)),
                ("arguments", .array(arguments.map { .string($0) })), ("output", .string(output)),
                ("format", .string(format.rawValue)), ("fingerprint", .string(fingerprint)),
                ("splitZoom", .int(Int64(splitZoom))), ("recordBoxesNotTrusted", untrustedBoxes.json),
                ("inputStamps", inputStamps?.json ?? .null), ("shards", .array(list)),
            ]), format: .pretty)
    }

    /// Writes the plan (through a temporary file and a rename) and returns its digest.
    package func write(to path: String) throws -> String { try Self.write(text: text, to: path) }

    /// Writes a plan's text (through a temporary file and a rename) and returns its digest.
    package static func write(text: String, to path: String) throws -> String {
        let bytes = Array(text.utf8)
        let temporary = path + ".tmp-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)),
            rename(temporary, path) == 0
        else {
            unlink(temporary)
            throw PipelineError.badOutput(path: path, reason: "cannot write the plan")
        }
        return SHA256.hex(of: bytes)
    }

    /// Reads a plan file and its digest.
    package static func read(path: String) throws -> (plan: ShardPlan, digest: String) {
        let (j, bytes) = try readJSON(path: path)
        func bad(_ why: String) -> ShardError { .damaged(path: path, reason: why) }
        guard let command = j["command"]?.stringValue, let directory = j["directory"]?.stringValue,
            let args = j["arguments"]?.arrayValue?.compactMap(\.stringValue), let output = j["output"]?.stringValue,
            let format = j["format"]?.stringValue.flatMap(ArchiveFormat.init(rawValue:)),
            let fingerprint = j["fingerprint"]?.stringValue, let shards = j["shards"]?.arrayValue, !shards.isEmpty,
            let version = j["kartpack"]?.stringValue, let splitZoom = j["splitZoom"]?.intValue,
            let untrusted = UntrustedRecordBoxes(json: j["recordBoxesNotTrusted"])
        else { throw bad("a key is missing or has the wrong type") }
        var tiles: [ShardTiles] = []
        for s in shards {
            guard let t = ShardTiles(json: s["ranges"]) else { throw bad("shard \(tiles.count) has no valid ranges") }
            tiles.append(t)
        }
        try ShardSet.checkContiguous(tiles.enumerated().map { (shard: $0.offset, tiles: $0.element) }) { bad($0) }
        guard version == Kartpack.version else {
            throw bad("made by kartpack \(version); this is \(Kartpack.version): make the plan again")
        }
        var plan = ShardPlan(
            command: command, directory: directory, arguments: args, output: output, format: format,
            fingerprint: fingerprint, shards: tiles, splitZoom: Int(splitZoom))
        plan.kartpack = version
        plan.untrustedBoxes = untrusted
        plan.inputStamps = try InputStamps.read(j["inputStamps"], bad: bad)
        return (plan, SHA256.hex(of: bytes))
    }

    /// A plan file's JSON and bytes; refused unless it is a shard plan of this format (region plans share it:
    /// `RegionShardPlan`).
    package static func readJSON(path: String) throws -> (json: JSONValue, bytes: [UInt8]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ShardError.missing(path: path, reason: "cannot read the shard plan")
        }
        let bytes = [UInt8](data)
        guard let j = try? JSONParser.parse(bytes), j["kartpackShardPlan"]?.intValue == formatVersion else {
            throw ShardError.damaged(path: path, reason: "not a shard plan (kartpackShardPlan \(formatVersion))")
        }
        return (j, bytes)
    }
}
