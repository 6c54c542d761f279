import Glibc
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing

/// Turns a parsed (and overridden) document into a `PipelineSpec`, collecting every problem.
package struct SpecDecoder {
    package var reader = SpecReader()
    package let file: String
    package let directory: String

    package init(file: String) {
        self.file = file
        self.directory = SpecPaths.folder(of: file)
    }

    func resolve(_ path: String) -> String { SpecPaths.absolute(path, base: directory) }

    /// The spec, or nil when a required part is missing or unusable (the problems are in `reader.issues`).
    package mutating func decode(_ document: JSONValue) -> PipelineSpec? {
        let root = JSONPath.root
        guard case .object = document else {
            reader.report(root, "expected a JSON object with \"version\": 1, got \(SpecReader.describe(document))")
            return nil
        }
        // The version decides how everything else is read: check it before reporting unknown keys.
        guard checkVersion(document) else { return nil }
        guard let top = reader.object(document, at: root, known: PipelineSpec.keys) else { return nil }

        let tiles = decodeTiles(top)
        let sources = decodeSources(top, tiles: tiles)
        var style: String?
        if let s = reader.string(top, "style") { style = resolve(s) }
        let clip = decodeClip(top)
        let output = decodeOutput(top)

        let onInputError = reader.choice(top, "onInputError", InputErrorPolicy.allCases.map(\.rawValue))
        let maxShrink = reader.double(top, "maxShrink", in: 0...1)
        let memoryBudget = decodeMemoryBudget(top)
        let regions = decodeRegions(top, tiles: tiles)

        guard let sources, let output else { return nil }
        var spec = PipelineSpec(file: file, sources: sources, style: style, clip: clip, tiles: tiles, output: output)
        spec.version = PipelineSpec.supportedVersion
        spec.onInputError = onInputError.flatMap(InputErrorPolicy.init(rawValue:)) ?? .fail
        spec.maxShrink = maxShrink
        spec.memoryBudget = memoryBudget
        spec.regions = regions
        return spec
    }

    /// `"memoryBudget"`: a byte count or a size text (`MemoryBudget.parse`).
    mutating func decodeMemoryBudget(_ top: SpecObject) -> Int? {
        guard let v = top.value("memoryBudget") else { return nil }
        if case .string(let text) = v {
            if let n = MemoryBudget.parse(text) { return n }
            reader.report(
                top.path.appending("memoryBudget"),
                "expected a size from 64K to 1T such as \"512M\" or \"2G\", got \"\(text)\"")
            return nil
        }
        return reader.int(top, "memoryBudget", in: MemoryBudget.minimumBytes...(1 << 40))
    }

    mutating func checkVersion(_ document: JSONValue) -> Bool {
        let path = JSONPath.root.appending("version")
        guard let v = document["version"] else {
            reader.report(path, "missing required key (this build reads \"version\": \(PipelineSpec.supportedVersion))")
            return true  // keep checking the rest as version 1
        }
        let number: JSONValue
        if case .double = v, let n = v.intValue { number = .int(n) } else { number = v }
        switch number {
        case .int(let n) where n > Int64(PipelineSpec.supportedVersion):
            reader.report(
                path,
                "version \(n) is newer than this build of Kartpack \(Kartpack.version) reads "
                    + "(\(PipelineSpec.supportedVersion)); upgrade Kartpack"
            )
            return false
        case .int(let n) where n == Int64(PipelineSpec.supportedVersion):
            return true
        case .int(let n):
            reader.report(path, "unknown version \(n); this build reads version \(PipelineSpec.supportedVersion)")
            return false
        default:
            reader.report(path, "expected an integer, got \(SpecReader.describe(v))")
            return true
        }
    }

    /// `"tiles"`: zooms, limits and simplification.
    mutating func decodeTiles(_ top: SpecObject) -> TileSpec {
        var t = TileSpec()
        guard let v = top.value("tiles") else { return t }
        let path = JSONPath.root.appending("tiles")
        guard let o = reader.object(v, at: path, known: TileSpec.keys) else { return t }
        if let z = reader.int(o, "minZoom", in: 0...24) { t.minZoom = z }
        if case .string(let text) = o.value("maxZoom") {
            if text == "auto" {
                t.maxZoomAuto = true
                t.maxZoom = max(MaxZoomGuess.cap, t.minZoom)
            } else {
                reader.report(path.appending("maxZoom"), "expected an integer or \"auto\", got \"\(text)\"")
            }
        } else if let z = reader.int(o, "maxZoom", in: 0...24) {
            t.maxZoom = z
        }
        if t.minZoom > t.maxZoom {
            reader.report(path.appending("minZoom"), "\(t.minZoom) is above tiles.maxZoom \(t.maxZoom)")
            t.maxZoom = t.minZoom
        }
        if let d = reader.double(o, "simplify", in: 0...1000) { t.simplify = d }
        if let d = reader.double(o, "buffer", in: 0...2048) { t.buffer = d }
        if let n = reader.int(o, "maxTileBytes", in: 1024...1_000_000_000) { t.maxTileBytes = n }
        if let n = reader.int(o, "maxTileFeatures", in: 1...100_000_000) { t.maxTileFeatures = n }
        if let b = reader.bool(o, "sharedBorders") { t.sharedBorders = b }
        if let b = reader.bool(o, "smallFeatures") { t.smallFeatures = b }
        if let b = reader.bool(o, "coalesce") { t.coalesce = b }
        if let d = reader.double(o, "smallFeatureSize", in: 0.5...256) { t.smallFeatureSize = d }
        if let m = reader.choice(o, "thinning", ThinningMode.allCases.map(\.rawValue)) {
            t.thinning = ThinningMode(rawValue: m) ?? .spacing
        }
        if let text = reader.string(o, "thinPriority") {
            if ThinningOptions.priority(text) == nil {
                reader.report(
                    path.appending("thinPriority"),
                    "expected FIELD, FIELD:asc or FIELD:desc, got \(JSONWriter.quoted(text))")
            } else {
                t.thinPriority = text
            }
        }
        if let n = reader.int(o, "extent", in: 256...16384) {
            if n & (n - 1) == 0 {
                t.extent = n
            } else {
                reader.report(path.appending("extent"), "must be a power of two (256, 512, … 16384), got \(n)")
            }
        }
        return t
    }
}
