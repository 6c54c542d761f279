import Foundation
import KartpackCore
import ConvertEngine
import PipelineFiles
import RegionPackages
import Styling

/// `kartpack package PIPELINE.json --regions REGIONS.shp --id-field FIELD -o OUTDIR`: one package per region.
struct PackageCommand: Command {
    static let name = "package"
    static let summary = "build one package per region (property, municipality) and a signed catalog"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "regions", kind: .value, help: "Shapefile of region polygons (one region per record)",
            valueName: "REGIONS.shp"),
        OptionSpec(
            name: "id-field", kind: .value,
            help: "field holding each region's id (letters, digits, - and _ only; the file name)", valueName: "FIELD"),
        OptionSpec(
            name: "name-field", kind: .value, help: "field holding each region's display name (default: the id)",
            valueName: "FIELD"),
        OptionSpec(
            name: "where", kind: .value,
            help: "only regions whose record matches this filter, e.g. \"[kommun='Uppsala']\"", valueName: "FILTER"),
        OptionSpec(
            name: "buffer", kind: .value, help: "buffer around each region in metres (default 0)", valueName: "METRES"),
        OptionSpec(
            name: "max-zoom", kind: .value,
            help: "highest zoom level (default: the pipeline's); auto: one for every region, chosen from the data",
            valueName: "N|auto"),
        OptionSpec(
            name: "output", kind: .value, help: "the package folder (catalog.json and <id>.pmtiles)",
            valueName: "OUTDIR", short: "o"),
        OptionSpec(
            name: "sign", kind: .value,
            help: "sign catalog.json with this minisign secret key (writes catalog.json.minisig)", valueName: "KEY"),
        OptionSpec(
            name: "sign-password-file", kind: .value,
            help: "file holding the secret key's password (else the key must have none: minisign -G -W)",
            valueName: "FILE"),
        OptionSpec(
            name: "set", kind: .repeatable, help: "override a pipeline value, e.g. tiles.maxZoom=12",
            valueName: "KEY=VALUE"),
        OptionSpec(
            name: "threads", kind: .value,
            help: "regions built at once (default: the number of "
                + "cores)", valueName: "N"),
        OptionSpec(name: "force", kind: .flag, help: "rebuild every region, even those up to date"),
        OptionSpec(
            name: "allow-removals", kind: .flag,
            help: "let regions of the previous catalog leave it (gone from REGIONS, or empty); else exit 65"),
        OptionSpec(
            name: "dry-run", kind: .flag,
            help: "read, route and fingerprint; say which regions would be built; write nothing"),
        OptionSpec(name: "report", kind: .value, help: "write the run report as JSON", valueName: "FILE.json"),
        OptionSpec(name: "quiet", kind: .flag, help: "no progress line and no summary"),
        OptionSpec(
            name: "plan", kind: .value,
            help: "build one shard of a plan (`kartpack plan --package`): the pipeline and options come from the "
                + "plan, -o is the shard's part folder", valueName: "PLAN.json"),
        OptionSpec(name: "shard", kind: .value, help: "the shard of --plan to build, 0 <= I < N", valueName: "I/N"),
        OptionSpec(
            name: "merge", kind: .flag,
            help: "with --plan: publish the plan's folder from the shards' part folders given as arguments"),
    ]
    static var help: String {
        helpText(
            usage: """
                kartpack package PIPELINE.json --regions REGIONS.shp --id-field FIELD [--name-field FIELD]
                       [--where FILTER] [--buffer METRES] [--max-zoom N|auto] [--sign KEY] [--allow-removals]
                       -o OUTDIR
                       kartpack package PIPELINE.json [OPTIONS]   (with a "regions" section in the pipeline)
                """,
            summary: """
                Reads the pipeline's sources once, routes each feature to the regions whose polygon it touches (not
                just their bounding box) and writes one package per region into OUTDIR/<id>.pmtiles (or .mbtiles, as
                the pipeline's output): the features inside the region polygon plus buffer, clipped at full
                precision before tiling, exactly the package a `convert --clip REGIONS.shp:[FIELD=ID]` run writes.
                Regions are built in parallel; a region whose fingerprint (its features, the pipeline, stylesheet
                and Kartpack version) did not change is not rebuilt, and one rebuilt into last night's bytes keeps
                its file and catalog entry, `built` included (status identical). The summary and the report's
                "night" say what a tablet downloads. When every package is in place, OUTDIR/catalog.json lists them
                with size, SHA-256, bounds, zooms and layers (docs/catalog.md), published atomically; --sign adds
                catalog.json.minisig. Regions that left REGIONS (with --allow-removals) lose their file only after
                the new catalog is published. A region id that is not a safe file name, or is used twice, is refused
                (exit 65) naming the record; a new region without any feature is left out of the catalog with a
                warning. A catalog is complete or not published: a rejected source, a region whose polygon is null,
                non-finite, without area or not valid, a region of the previous catalog that is gone or empty
                (unless --allow-removals), or a source's guard (minFeatures, maxShrink, requireFeatures) stops the
                night with exit 65, naming every cause on stderr and in the report; the previous catalog and
                packages stay byte-identical. If any region fails, nothing is published. The pipeline's "regions"
                section (Pipelines/README.md) gives the same values as --regions, --id-field, --name-field, --where,
                --buffer, --max-zoom, -o, --sign, --sign-password-file and --allow-removals; a flag overrides the
                section. --dry-run lists each region as new, changed, up-to-date or removed.
                With --max-zoom auto (or "maxZoom": "auto" in the pipeline's tiles or regions section)
                one max zoom is chosen for all regions from all the sources, as `convert --max-zoom auto` chooses it
                (so each package is still the one a `convert --clip --max-zoom auto` run writes); the log and the
                report (maxZoomChosen) say which and why. With SOURCE_DATE_EPOCH set (whole seconds since 1970),
                the catalog's times and its signature's are that time, so equal nights give equal bytes.
                """,
            options: options,
            footer: "See docs/regions.md (package, verify, extract) and docs/catalog.md.")
    }

    let pipeline: String
    let regionsFlag: String?
    let idFieldFlag: String?
    let nameFieldFlag: String?
    let whereFlag: String?
    let bufferFlag: Double?
    let maxZoomFlag: Int?
    let maxZoomAutoFlag: Bool
    let outputFlag: String?
    let signFlag: String?
    let passwordFileFlag: String?
    let overrides: [String]
    let threads: Int
    let force: Bool
    let allowRemovals: Bool
    let dryRun: Bool
    let reportPath: String?
    let quiet: Bool
    /// `--plan`/`--shard`: this run builds one shard of a plan (the other fields are unused).
    var shardRequest: PackageShardRequest?
    /// Set by a shard: only these regions are built, and the part is not signed.
    var shardRegions: Set<String>?
    /// Set by a shard: sources the plan found with untrustworthy record boxes, read whole.
    var shardReadWhole: Set<String> = []
    /// Set by a merge: each region's package comes from its shard's part.
    var partsByRegion: [String: RegionPackager.Part]?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        if p.value("plan") != nil || p.value("shard") != nil || p.flag("merge") {
            shardRequest = try PackageShardRequest(p, arguments: arguments)
        }
        guard shardRequest != nil || p.positionals.count == 1 else {
            throw UsageError(message: "package needs exactly one PIPELINE.json")
        }
        pipeline = p.positionals.first ?? ""
        regionsFlag = p.value("regions")
        idFieldFlag = p.value("id-field")
        outputFlag = p.value("output")
        nameFieldFlag = p.value("name-field")
        whereFlag = p.value("where")
        bufferFlag = try p.double("buffer", in: 0...1_000_000)
        maxZoomAutoFlag = p.value("max-zoom") == "auto"
        maxZoomFlag = maxZoomAutoFlag ? nil : try p.int("max-zoom", in: 0...24)
        signFlag = p.value("sign")
        passwordFileFlag = p.value("sign-password-file")
        overrides = p.values("set")
        threads = try p.int("threads", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        force = p.flag("force")
        allowRemovals = p.flag("allow-removals")
        dryRun = p.flag("dry-run")
        reportPath = p.value("report")
        quiet = p.flag("quiet")
    }

    func run() throws -> ExitCode {
        if let shardRequest { return try shardRequest.run() }
        guard FileManager.default.fileExists(atPath: pipeline) else {
            Console.error("\(pipeline): no such file (pipeline)")
            return .noInput
        }
        let spec: PipelineSpec
        do {
            spec = try PipelineSpec.load(path: pipeline, overrides: overrides)
        } catch {
            for line in error.lines { Console.error("\(pipeline): \(line)") }
            return error.exitCode
        }
        // Each value from its flag, else from the pipeline's regions section.
        let section = spec.regions
        func required(_ flag: String?, _ fromSection: String?, _ option: String) throws(UsageError) -> String {
            guard let v = flag ?? fromSection else {
                throw UsageError(
                    message: "package needs \(option), or a regions section in \(pipeline) (Pipelines/README.md)")
            }
            return v
        }
        let regions = try required(regionsFlag, section?.path, "--regions REGIONS.shp")
        let idField = try required(idFieldFlag, section?.idField, "--id-field FIELD")
        let output = try required(outputFlag, section?.output, "-o OUTDIR")
        let sign = signFlag ?? section?.sign
        // The section's password file belongs to the section's key.
        let passwordFile = passwordFileFlag ?? (signFlag == nil ? section?.signPasswordFile : nil)
        if passwordFile != nil, sign == nil { throw UsageError(message: "--sign-password-file needs --sign KEY") }
        let files = [(regions, "--regions"), (sign, "--sign key"), (passwordFile, "--sign-password-file")]
        for case (let path?, let what) in files where !FileManager.default.fileExists(atPath: path) {
            Console.error("\(path): no such file (\(what))")
            return .noInput
        }
        var o = try RegionPackageOptions.from(
            spec: spec, regionsPath: regions, idField: idField, outputFolder: output,
            readsSources: partsByRegion == nil)
        if let reportPath {
            let inputs =
                [pipeline] + RegionPackager.shapefileSet(regions)
                + o.convert.inputs.flatMap { RegionPackager.shapefileSet($0.path) }
                + [sign, passwordFile].compactMap { $0 }
            if let why = RegionPackager.reportConflict(reportPath, inputs: inputs, folder: output) {
                Console.error("--report \(reportPath): \(why); refusing to overwrite it")
                return .usage
            }
        }
        // The flag, else the section, else the pipeline's tiles.maxZoom (a number or auto).
        let fixedZoom = maxZoomAutoFlag ? nil : maxZoomFlag ?? section?.maxZoom
        if let maxZoom = fixedZoom {
            guard maxZoom >= o.convert.minZoom else {
                Console.error("--max-zoom \(maxZoom) is below the pipeline's minZoom \(o.convert.minZoom)")
                return .usage
            }
            o.convert.maxZoom = maxZoom
            o.convert.maxZoomAuto = false
        } else if maxZoomAutoFlag || section?.maxZoomAuto == true {
            // Chosen by the packager from all the sources (MaxZoomGuess); until then the highest it may choose.
            o.convert.maxZoomAuto = true
            o.convert.maxZoom = max(MaxZoomGuess.cap, o.convert.minZoom)
        }
        o.nameField = nameFieldFlag ?? section?.nameField
        if let whereText = whereFlag ?? section?.filter {
            let what = whereFlag != nil ? "--where" : "\(pipeline): regions.filter"
            let (filter, problems) = AttributeFilterList.parse(whereText, file: what)
            if let bad = problems.first(where: { $0.severity == .error }) {
                Console.error("\(what): \(bad.message) (column \(bad.column))")
                return whereFlag != nil ? .usage : .config
            }
            o.filter = filter
        }
        o.buffer = bufferFlag ?? section?.buffer ?? 0
        o.signKey = sign
        o.signPasswordFile = passwordFile
        if let shardRegions {
            o.onlyRegions = shardRegions
            o.readWhole = shardReadWhole
            o.signKey = nil
            o.signPasswordFile = nil
        }
        o.parts = partsByRegion
        o.rebuildAll = force
        o.allowRemovals = allowRemovals || section?.allowRemovals == true
        // A shard's part folder is scratch for the merge, which alone decides tonight's removals: a part folder
        // reused from another plan (last night's, other groups) drops the regions its shard no longer builds.
        if shardRegions != nil { o.allowRemovals = true }
        o.dryRun = dryRun
        o.threads = threads
        o.convert.threads = threads
        let signals = PackageOptions.signalTrap()
        defer { signals.uninstall() }
        let report: RegionPackageReport
        let started = Date()
        do {
            report = try DiagnosticTail.around(PackageOptions.sink(quiet: quiet), quiet: quiet) { sink in
                try RegionPackager(options: o).run(
                    diagnostics: sink, progress: ProgressReporter.forStandardError(enabled: !quiet),
                    isCancelled: { signals.cancelled })
            }
        } catch {
            // Every exit path leaves a report of the night (a cron job's record), then says why on stderr.
            let interrupted = signals.cancelled || PipelineError.isInterruption(error)
            let exit =
                interrupted
                ? (signals.exitCode ?? .interrupted) : ((error as? any KartpackError)?.exitCode ?? .software)
            let message =
                interrupted
                ? "interrupted; nothing was published" : ((error as? any KartpackError)?.description ?? "\(error)")
            if let reportPath {
                let failed = RegionPackageReport.failure(
                    o, code: interrupted ? .interrupted : .runFailed, message: message, exitCode: exit,
                    started: started)
                _ = PackageOptions.writeReport(failed, to: reportPath)
            }
            if interrupted {
                Console.error(message)
                return exit
            }
            throw error
        }
        PackageOptions.printFindings(report.findings, quiet: quiet)
        if let reportPath, !PackageOptions.writeReport(report, to: reportPath) { return .ioError }
        let exit = ExitCode(rawValue: report.exitCode) ?? .dataError
        if !report.published, !dryRun {
            let errors = report.findings.filter { $0.severity == .error }.count
            Console.error(
                "\(report.catalog): the night \(exit == .dataError ? "was refused" : "failed") (\(errors) errors); "
                    + "nothing was published, the previous "
                    + "catalog and packages are unchanged")
            return exit
        }
        if !quiet {
            let count = { (s: String) in report.regions.filter { $0.status == s }.count }
            if dryRun {
                Console.out(
                    "dry run: \(count("new") + count("changed")) regions would be built (\(count("new")) new, "
                        + "\(count("changed")) changed), \(count("up-to-date")) are up to date, "
                        + "\(report.removed.count) would be removed; nothing was written"
                )
                for r in report.regions { Console.out("  \(r.id)\t\(r.status)\t\(r.features) features") }
                for id in report.removed { Console.out("  \(id)\tremoved") }
            } else {
                var line =
                    "\(report.catalog): \(report.regions.count - count("empty")) regions (\(count("built")) built, "
                    + "\(count("up-to-date") + count("identical")) up to date, \(count("empty")) empty, "
                    + "\(report.removed.count) removed)\(report.signed ? ", signed" : "")"
                if let n = report.night {
                    line +=
                        "; tonight \(n.added) added, \(n.rebuilt) rebuilt, \(n.unchanged) unchanged, \(n.removed) "
                        + "removed: a tablet downloads \(ConvertSummary.bytes(Int(n.downloadBytes)))"
                }
                Console.out(line)
            }
        }
        return exit
    }
}
