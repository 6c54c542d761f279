import KartpackCore
import Styling
import KartpackJSON
import Nightly
import TileArchive
import ConvertEngine
import PipelineFiles
import Publishing

/// Everything `kartpack package` needs.
package struct RegionPackageOptions: Sendable {
    /// The conversion every region shares (inputs, style, zooms, tiling, format); `output` and `clip` are unused.
    package var convert: ConvertOptions
    /// Texts the packages depend on beyond the inputs (the pipeline's canonical form, the stylesheet's digest):
    /// part of every region's fingerprint.
    package var settings: [String]
    /// The region polygons.
    package var regionsPath: String
    package var idField: String
    package var nameField: String?
    /// Only regions whose record matches (stylesheet filter syntax); nil keeps all.
    package var filter: AttributeFilterList?
    /// Buffer around each region in metres.
    package var buffer: Double = 0
    /// The package folder (created when its parent exists).
    package var outputFolder: String
    /// minisign secret key: sign the catalog.
    package var signKey: String?
    /// A file whose first line is the key's password (minisign reads it from standard input).
    package var signPasswordFile: String?
    /// Rebuild every region, even those up to date.
    package var rebuildAll = false
    /// Plan only: read, route and fingerprint, write nothing.
    package var dryRun = false
    /// Regions built at once (each on one thread).
    package var threads = 1
    /// What a rejected source does (the pipeline's `onInputError`): `.fail` refuses the night.
    package var policy: InputErrorPolicy = .fail
    /// The sources' record-count guards (`minFeatures`, `maxShrink`, `requireFeatures`), checked per region and
    /// for the whole catalog (`CatalogCheck`).
    package var expectations: [LayerExpectation] = []
    /// Regions of the previous catalog may leave it (`--allow-removals`, `"allowRemovals": true`); otherwise such
    /// a region refuses the night.
    package var allowRemovals = false
    /// A shard of a plan (`RegionShardPlan`): only these regions are built and listed; nil builds all.
    package var onlyRegions: Set<String>?
    /// A shard's sources whose stored record boxes its plan does not trust (`UntrustedRecordBoxes`): read whole.
    package var readWhole: Set<String> = []
    /// The merge of a plan's shards: each region's package is taken from its shard's part (region id → part)
    /// instead of being built; nil builds.
    package var parts: [String: RegionPackager.Part]?

    package init(convert: ConvertOptions, regionsPath: String, idField: String, outputFolder: String) {
        self.convert = convert
        self.settings = []
        self.regionsPath = regionsPath
        self.idField = idField
        self.outputFolder = outputFolder
    }

    /// The file extension of the packages.
    var fileExtension: String { convert.format == .mbtiles ? "mbtiles" : "pmtiles" }
}

/// What `kartpack package --report` writes and the summary shows.
package struct RegionPackageReport: Encodable, Sendable {
    package struct Region: Encodable, Sendable {
        package var id: String
        package var name: String
        /// `built`, `up-to-date`, `identical` (rebuilt into last night's bytes: last night's file and entry kept),
        /// `empty` (no feature: left out of the catalog); in a dry run `new` (not in the
        /// catalog), `changed` (in it with another fingerprint, or its file damaged) or `up-to-date`; `refused`
        /// when the night was refused (its previous package, if any, is untouched).
        package var status: String
        package var file: String?
        package var features: Int
        package var bytes: UInt64
        package var fingerprint: String
    }

    package var kartpack: String
    package var outputFolder: String
    package var catalog: String
    package var signed: Bool
    package var dryRun: Bool
    package var regions: [Region]
    /// Ids that left the catalog (their files deleted after the new catalog was published); in a dry run or a
    /// refused night, the ids that would leave it.
    package var removed: [String]
    /// True when the catalog was published; false in a dry run and when the night was refused.
    package var published: Bool
    /// Every reason the night was refused (errors) or published with a caveat (warnings), errors first:
    /// rejected sources, regions that cannot be built or would be removed, broken guards (docs/regions.md).
    package var findings: [PublishFinding]
    /// Records read per input layer, and rejected before any region (by code).
    package var inputs: [ConvertReport.Input]
    package var warnings: [ReasonCode: Int]
    /// With `--max-zoom auto` only: the max zoom chosen for every region, and why (as `convert`'s report).
    package var maxZoomChosen: MaxZoomChoice?
    /// What a published night changed for a tablet (regions added, rebuilt, unchanged, removed; bytes to
    /// download); nil when nothing was published.
    package var night: Night?
    package var seconds: Double
    package var exitCode: Int32
}

extension RegionPackageOptions {
    /// The options of a package run of the pipeline `spec`: its conversion (inputs, filters, stylesheet, tiles,
    /// format) and, for the fingerprints, its canonical text and the stylesheet's digest. A pipeline `clip` is
    /// refused: each region is the clip. With `readsSources` false (a merge of shard parts, which reads no source)
    /// the sources need not be there.
    package static func from(
        spec: PipelineSpec, regionsPath: String, idField: String, outputFolder: String, readsSources: Bool = true
    ) throws -> RegionPackageOptions {
        let (compiled, problems) = PipelineRunner.compileIssues(spec)
        guard var convert = compiled else { throw PipelineSpecError(file: spec.file, issues: problems) }
        // The pipeline's output path is not written (the packages go to OUTDIR): its folder need not exist. The
        // regions section is not part of what a package is built from (its values are checked by the command, which
        // may override them, and added to the fingerprint one by one), so it is left out of the pipeline's text:
        // the same run from flags or from the section gives the same fingerprints.
        var base = spec
        base.regions = nil
        var checked = base
        if !readsSources { checked.sources = [] }
        let missing = checked.missingFiles(forPackage: true)
        guard missing.isEmpty else { throw PipelineSpecError(file: spec.file, issues: missing, exitCode: .noInput) }
        if spec.clip != nil {
            throw PipelineSpecError(
                file: spec.file,
                issues: [
                    PipelineSpecIssue(
                        path: JSONPath.root.appending("clip"),
                        message: "a pipeline packaged by region must not clip: each region is the clip (remove clip)")
                ])
        }
        convert.force = true
        var o = RegionPackageOptions(
            convert: convert, regionsPath: regionsPath, idField: idField, outputFolder: outputFolder)
        o.settings = ["pipeline " + base.canonicalJSON]
        o.policy = spec.onInputError
        o.expectations = spec.expectations
        if let style = spec.style {
            o.settings.append("style " + ((try? FileDigest.sha256(path: style).sha256) ?? "?"))
        }
        return o
    }
}
