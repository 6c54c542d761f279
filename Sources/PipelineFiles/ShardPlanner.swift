import Foundation
import KartpackCore
import Nightly
import Reprojection
import Shapefile
import TileArchive
import ConvertEngine

/// Makes a shard plan for a `convert` command line: the inputs' fingerprint (what shards check before building
/// and what the merge relies on through the plan's digest) and each shard's tiles, split by `ShardSplitter` so that
/// each range shard gets an area of about equal estimated feature pieces (`estimateWork`: every record's stored
/// box, projected, and vertex count; no record is decoded), or, for inputs it cannot estimate (GeoPackage), equal
/// shares of the area (each `.shp` header's box, projected as the features will be).
/// The fingerprint hashes every record (`ShapefileRecordDigest`), as the nightly fingerprint does.
package struct ShardPlanner {
    /// The conversion (its inputs, clip, zooms and format).
    package var options: ConvertOptions
    /// The command line the shards run (without `--shards`/`--plan`).
    package var arguments: [String]
    /// Files the build reads besides the inputs and the clip: the stylesheet and its icons.
    package var otherFiles: [String]

    package init(options: ConvertOptions, arguments: [String], otherFiles: [String]) {
        self.options = options
        self.arguments = arguments
        self.otherFiles = otherFiles
    }

    /// The plan for `shards` shards, with `directory` as the folder the arguments are read from: the zooms below
    /// `splitZoom` go whole to the first shard, the tiles of the others are split. Without `splitZoom`, the max
    /// zoom; with `chooseSplit` (`--split-zoom auto`), the lowest zoom the estimate shows far under the tile limits
    /// (`chosenSplitZoom`), else the max zoom.
    package func plan(shards: Int, directory: String, splitZoom: Int? = nil, chooseSplit: Bool = false) throws
        -> ShardPlan
    {
        let zooms = options.minZoom...max(options.minZoom, options.maxZoom)
        let work = shards > 1 ? estimateWork() : nil
        let chosen = splitZoom == nil && chooseSplit ? chosenSplitZoom(work) : nil
        let split = min(max(splitZoom ?? chosen?.zoom ?? zooms.upperBound, zooms.lowerBound), zooms.upperBound)
        let tiles = ShardSplitter.split(
            shards: shards, zooms: zooms, splitZoom: split, bounds: bounds(), order: options.format.tileOrder,
            work: work)
        let (fingerprint, untrusted, stamps) = try stampedAudit()
        var plan = ShardPlan(
            command: "convert", directory: directory, arguments: arguments, output: options.output,
            format: options.format, fingerprint: fingerprint, shards: tiles, splitZoom: split)
        plan.untrustedBoxes = untrusted
        plan.inputStamps = stamps
        plan.splitNote = chosen?.note
        return plan
    }

    /// The fingerprint of what the build reads: the Kartpack version, the command line, the other files' bytes,
    /// each input's Shapefile sets (records in any order, `.prj`, `.cpg`, memo), the clip file's.
    package func fingerprint() throws(NightlyError) -> String { try fingerprint(boxDoubt: nil) }

    /// The fingerprint and, from the same pass over the records, the inputs whose stored record boxes cannot be
    /// trusted (`UntrustedRecordBoxes`): what a plan records.
    package func audit() throws(NightlyError) -> (fingerprint: String, untrustedBoxes: UntrustedRecordBoxes) {
        var untrusted = UntrustedRecordBoxes()
        let fingerprint = try fingerprint { untrusted.add($0, reason: $1) }
        return (fingerprint, untrusted)
    }

    private func fingerprint(boxDoubt: ((String, String) -> Void)?) throws(NightlyError) -> String {
        var items: [Fingerprint.Item] = [
            .bytes(tag: "kartpack-shard-plan", Array("1".utf8)), .bytes(tag: "version", Array(Kartpack.version.utf8)),
            .bytes(tag: "arguments", Array(arguments.joined(separator: "\0").utf8)),
        ]
        for path in otherFiles { items.append(.file(tag: "file", path: path)) }
        for input in options.inputs {
            items.append(.bytes(tag: "input", Array(input.path.utf8)))
            guard let layers = try? input.inputSets() else {
                items.append(.file(tag: "input-file", path: input.path))
                continue
            }
            for layer in layers {
                switch layer {
                case .shapefile(let set): items += PipelineSpec.shapefileItems(set.shp, boxDoubt: boxDoubt)
                case .geoPackage(let path, let table):
                    items += [.file(tag: "gpkg", path: path), .bytes(tag: "table", Array(table.utf8))]
                }
            }
        }
        if case .polygons(let path, _, _)? = options.clip?.source {
            items.append(.bytes(tag: "clip", []))
            items += PipelineSpec.shapefileItems(path)
        }
        return try Fingerprint.compute(items).hex
    }

    /// The inputs' bounds in Web Mercator metres from their headers (nil when none can be projected: the split
    /// then spreads over the world, which is still correct, only less even).
    package func bounds() -> Bounds? {
        var box = Bounds.empty
        let quiet = DiagnosticSink(sampleLimit: 0)
        for input in options.inputs {
            guard let layers = try? input.inputSets() else { continue }
            for set in layers {
                guard
                    let intake = try? IntakeReader(
                        set: set, sourceCRS: input.sourceCRS, encoding: input.encoding, diagnostics: quiet),
                    let native = intake.reader.schema.bounds,
                    let transformer = try? CoordinateTransformer(from: intake.crs, to: .wgs84),
                    let degrees = transformer.transformBounds(native)
                else { continue }
                box.include(SphericalMercator.project(box: degrees))
            }
        }
        if case .bbox(let b)? = options.clip?.source, !box.isEmpty {
            let clip = SphericalMercator.project(box: b)
            box = Bounds(
                minX: max(box.minX, clip.minX), minY: max(box.minY, clip.minY), maxX: min(box.maxX, clip.maxX),
                maxY: min(box.maxY, clip.maxY))
        }
        return box.isEmpty ? nil : box
    }
}
