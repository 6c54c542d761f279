import Foundation
import KartpackCore
import Nightly
import ConvertEngine
import PipelineFiles
import Publishing
import Reprojection
import Styling
import TileArchive

/// Options shared by `convert` and `import`: output, zooms, tiling, limits, metadata, style, report.
enum PackageOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "output", kind: .value, help: "output package (.pmtiles or .mbtiles)", valueName: "OUT", short: "o"),
        OptionSpec(name: "min-zoom", kind: .value, help: "lowest zoom level (default 0)", valueName: "N"),
        OptionSpec(
            name: "max-zoom", kind: .value,
            help: "highest zoom level (default 14); auto: chosen from the data's vertex and point spacing",
            valueName: "N|auto"),
        OptionSpec(
            name: "source-crs", kind: .value,
            help:
                "CRS of the inputs instead of their .prj: EPSG:3006 (or 3006), a PROJ string, WKT or an exact CRS name",
            valueName: "CRS"),
        OptionSpec(
            name: "encoding", kind: .value, help: "attribute encoding; overrides .cpg and the DBF code page",
            valueName: "NAME"),
        OptionSpec(
            name: "simplify", kind: .value,
            help: "simplification tolerance in tile pixels of the 4096 grid (default 1)", valueName: "PIXELS"),
        OptionSpec(
            name: "buffer", kind: .value, help: "clip buffer around tiles in tile pixels of the 4096 grid (default 80)",
            valueName: "PIXELS"),
        OptionSpec(
            name: "threads", kind: .value, help: "worker threads (default: the number of cores)", valueName: "N"),
        OptionSpec(
            name: "id-field", kind: .value,
            help: "attribute whose value is the feature id: integers as they are, text hashed (default: record number)",
            valueName: "FIELD"),
        OptionSpec(
            name: "id-policy", kind: .value,
            help:
                "a missing or repeated id: reject the file, skip the feature, or use its record number (default "
                + "reject)",
            valueName: "reject|skip|record"),
        OptionSpec(
            name: "max-tile-bytes", kind: .value, help: "largest compressed tile (default 500000)", valueName: "BYTES"),
        OptionSpec(
            name: "max-tile-features", kind: .value, help: "most features per tile (default 200000)", valueName: "N"),
        OptionSpec(
            name: "no-shared-borders", kind: .flag,
            help:
                "simplify each polygon on its own instead of each layer's polygons per tile together (borders shared "
                + "by neighbours stay shared only with the default)"
        ),
        OptionSpec(
            name: "no-small-features", kind: .flag,
            help:
                "keep every polygon and line piece the tile grid leaves instead of replacing those under the small-"
                + "feature size by squares that keep their area per tile (what vanishes on the grid is then lost)"),
        OptionSpec(
            name: "small-feature-size", kind: .value,
            help: "side of the small-feature squares and threshold, in tile units of the 4096 grid (default 2)",
            valueName: "UNITS"),
        OptionSpec(
            name: "thinning", kind: .value,
            help:
                "how zooms over the tile limits are thinned: spacing (default: densest areas first, even across "
                + "tiles), smallest, priority, random (old uniform cut)",
            valueName: "MODE"),
        OptionSpec(
            name: "thin-priority", kind: .value,
            help:
                "numeric attribute kept longest by thinning and --max-points, highest first (FIELD:asc: lowest first)",
            valueName: "FIELD[:asc]"),
        OptionSpec(
            name: "coalesce", kind: .flag,
            help:
                "merge the polygons and lines thinning leaves out of a tile into a kept neighbour they share a "
                + "border or end point with (keeping its attributes), so a thinned mosaic keeps no holes"),
        OptionSpec(
            name: "max-points", kind: .repeatable,
            help:
                "at most N points per tile below the max zoom, spread evenly and nested across zooms; N for every "
                + "point layer, LAYER=N for one (repeatable)",
            valueName: "[LAYER=]N"),
        OptionSpec(name: "name", kind: .value, help: "package name (default: output file name)", valueName: "TEXT"),
        OptionSpec(name: "description", kind: .value, help: "package description", valueName: "TEXT"),
        OptionSpec(name: "attribution", kind: .value, help: "package attribution", valueName: "TEXT"),
        OptionSpec(
            name: "style", kind: .value, help: "stylesheet: class names, zoom ranges, layers, kept attributes",
            valueName: "STYLE.kss"),
        OptionSpec(name: "report", kind: .value, help: "write the run report as JSON", valueName: "FILE.json"),
        OptionSpec(
            name: "temp-dir", kind: .value, help: "folder for temporary files (default: the output's folder)",
            valueName: "DIR"),
        OptionSpec(
            name: "clip", kind: .value,
            help:
                "clip every feature to the polygons of a Shapefile (optionally those matching FILTER, e.g. [KOMMUNKOD "
                + "= \"2404\"]) before tiling",
            valueName: "REGIONS.shp[:FILTER]"),
        OptionSpec(
            name: "bbox", kind: .value, help: "clip every feature to this box in degrees before tiling",
            valueName: "W,S,E,N"),
        OptionSpec(
            name: "clip-buffer", kind: .value, help: "grow the --clip or --bbox area by this many metres (default 0)",
            valueName: "METRES"),
        OptionSpec(
            name: "memory-budget", kind: .value,
            help:
                "memory for tile pieces and finished tiles before they go to scratch files on disk, e.g. 512M, 2G "
                + "(default 256M)",
            valueName: "SIZE"),
        OptionSpec(
            name: "scratch", kind: .value,
            help: "folder for those scratch files (default: --temp-dir, else the output's folder)", valueName: "DIR"),
        OptionSpec(name: "force", kind: .flag, help: "replace an existing output"),
        OptionSpec(
            name: "allow-partial", kind: .flag,
            help: "publish the other layers when an input is rejected (metadata kartpack_missing_layers lists it)"),
        OptionSpec(name: "quiet", kind: .flag, help: "no progress line and no summary"),
    ]

    /// Conversion options from the parsed shared options (inputs left to the caller).
    static func options(_ p: ParsedArguments, inputs: [ConvertInput]) throws(UsageError) -> ConvertOptions {
        guard let output = p.value("output") else { throw UsageError(message: "needs -o OUT.pmtiles or OUT.mbtiles") }
        guard let format = ArchiveFormat.from(path: output) else {
            throw UsageError(message: "output '\(output)' must end in .pmtiles or .mbtiles")
        }
        var o = ConvertOptions(inputs: inputs, output: output, format: format)
        o.minZoom = try p.int("min-zoom", in: 0...24) ?? 0
        if p.value("max-zoom") == "auto" {
            // Chosen by the converter from the data (MaxZoomGuess); until then the highest it may choose.
            o.maxZoomAuto = true
            o.maxZoom = max(MaxZoomGuess.cap, o.minZoom)
        } else {
            o.maxZoom = try p.int("max-zoom", in: 0...24) ?? 14
        }
        guard o.minZoom <= o.maxZoom else {
            throw UsageError(message: "--min-zoom \(o.minZoom) is above --max-zoom \(o.maxZoom)")
        }
        o.simplify = try p.double("simplify", in: 0...1000) ?? 1
        o.buffer = try p.double("buffer", in: 0...2048) ?? 80
        o.threads = try p.int("threads", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        o.idField = p.value("id-field")
        if let policy = p.value("id-policy") {
            guard let parsed = FeatureIDScheme.Policy(rawValue: policy) else {
                throw UsageError(message: "--id-policy must be reject, skip or record, not '\(policy)'")
            }
            guard o.idField != nil else { throw UsageError(message: "--id-policy needs --id-field") }
            o.idPolicy = parsed
        }
        o.maxTileBytes = try p.int("max-tile-bytes", in: 1024...1_000_000_000) ?? 500_000
        o.maxTileFeatures = try p.int("max-tile-features", in: 1...100_000_000) ?? 200_000
        o.sharedBorders = !p.flag("no-shared-borders")
        o.smallFeatures = !p.flag("no-small-features")
        o.smallFeatureSize = try p.double("small-feature-size", in: 0.5...256) ?? 2
        if o.smallFeatures == false, p.value("small-feature-size") != nil {
            throw UsageError(message: "--small-feature-size has no effect with --no-small-features")
        }
        if let mode = p.value("thinning") {
            guard let m = ThinningMode(rawValue: mode) else {
                throw UsageError(
                    message:
                        "--thinning must be one of \(ThinningMode.allCases.map(\.rawValue).joined(separator: ", ")), "
                        + "not '\(mode)'"
                )
            }
            o.thinning.mode = m
        }
        if let text = p.value("thin-priority") {
            guard let (field, ascending) = ThinningOptions.priority(text) else {
                throw UsageError(message: "--thin-priority needs FIELD, FIELD:asc or FIELD:desc, not '\(text)'")
            }
            o.thinning.priorityField = field
            o.thinning.priorityAscending = ascending
        }
        o.thinning.coalesce = p.flag("coalesce")
        for text in p.values("max-points") {
            o.maxPoints.append(try maxPoints(text))
        }
        o.name = p.value("name")
        o.description = p.value("description")
        o.attribution = p.value("attribution")
        o.temporaryDirectory = p.value("temp-dir")
        o.memoryBudget = try memoryBudget(p) ?? MemoryBudget.defaultBytes
        o.scratchDirectory = p.value("scratch")
        o.force = p.flag("force")
        o.clip = try clip(p)
        return o
    }

    /// One `--max-points` value: `N` or `LAYER=N` (N from 1 to 1,000,000).
    static func maxPoints(_ text: String) throws(UsageError) -> (layer: String?, limit: Int) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let layer = parts.count == 2 ? String(parts[0]) : nil
        guard let n = Int(parts.last ?? ""), (1...1_000_000).contains(n), layer.map({ !$0.isEmpty }) ?? true else {
            throw UsageError(message: "--max-points needs N or LAYER=N with N from 1 to 1000000, not '\(text)'")
        }
        return (layer, n)
    }

    /// `--memory-budget SIZE`, nil when not given.
    static func memoryBudget(_ p: ParsedArguments) throws(UsageError) -> Int? {
        guard let text = p.value("memory-budget") else { return nil }
        guard let n = MemoryBudget.parse(text) else {
            throw UsageError(message: "--memory-budget '\(text)' is not a size from 64K to 1T (e.g. 512M, 2G, 1.5GiB)")
        }
        return n
    }

    /// `--clip REGIONS.shp[:FILTER]` or `--bbox W,S,E,N`, grown by `--clip-buffer`.
    static func clip(_ p: ParsedArguments) throws(UsageError) -> ClipOptions? {
        let buffer = try p.double("clip-buffer", in: 0...1_000_000)
        switch (p.value("clip"), p.value("bbox")) {
        case (nil, nil):
            if buffer != nil { throw UsageError(message: "--clip-buffer needs --clip or --bbox") }
            return nil
        case (.some, .some):
            throw UsageError(message: "give --clip or --bbox, not both")
        case (nil, let box?):
            return ClipOptions(
                source: .bbox(try ExtractCommand.bbox(box, option: "--bbox", crossing: true)), buffer: buffer ?? 0)
        case (let text?, nil):
            // A filter starts with `[`: `regions.shp:[ID = "12"]`. A path may hold colons of its own.
            var path = text
            var filter: AttributeFilterList?
            if let r = text.range(of: ":[") {
                path = String(text[..<r.lowerBound])
                let source = String(text[text.index(after: r.lowerBound)...])
                let (parsed, problems) = AttributeFilterList.parse(source, file: "--clip")
                if let bad = problems.first(where: { $0.severity == .error }) {
                    throw UsageError(message: "--clip filter: \(bad.message) (column \(bad.column))")
                }
                filter = parsed
            }
            guard !path.isEmpty else { throw UsageError(message: "--clip needs REGIONS.shp[:FILTER]") }
            return ClipOptions(source: .polygons(path: path, filter: filter, sourceCRS: nil), buffer: buffer ?? 0)
        }
    }

    /// Loads `--style` into the options (warnings printed unless quiet).
    static func loadStyle(_ path: String?, into o: inout ConvertOptions, quiet: Bool) throws {
        guard let path else { return }
        let (sheet, warnings) = try StyleLoader.load(path: path)
        if !quiet { for w in warnings { Console.error(w.description) } }
        o.style = sheet
    }

    /// A diagnostics sink that prints warnings (unless quiet or ordinary, see `DiagnosticTail`) and errors; notes
    /// go to the report only. With `json`, each line on stderr is one JSON object (`--log-format json`). Run the
    /// command's work through `DiagnosticTail.around` so the counts and "…and N more" lines follow.
    static func sink(quiet: Bool, json: Bool = false) -> DiagnosticSink {
        let formatter = JSONLogFormatter()
        return DiagnosticSink(sampleLimit: 20) { d in
            // Notes stay in the report, except the one that says which max zoom `--max-zoom auto` chose.
            let shown = (d.severity == .warning && DiagnosticTail.printsEach(d)) || d.code == .maxZoomChosen
            guard d.severity == .error || (!quiet && shown) else { return }
            if json {
                Console.errRaw(formatter.line(for: d) + "\n")
            } else {
                Console.error("\(d.severity.rawValue): \(d.formatted)")
            }
        }
    }

    /// A `--source-crs` PROJ cannot use is a usage error (64) said once, before any input is opened (in the same
    /// isolated child process as `.prj` files).
    static func checkSourceCRS(_ text: String?) throws(UsageError) {
        guard let text else { return }
        do throws(ProjectionError) {
            _ = try IsolatedCRS.resolve(prjText: nil, override: text, prjFile: nil)
        } catch {
            throw UsageError(message: error.description)
        }
    }

    /// `--allow-partial` as a policy.
    static func policy(_ p: ParsedArguments) -> InputErrorPolicy { p.flag("allow-partial") ? .skip : .fail }

    /// Prints why a build was (not) published: one line per finding on stderr (errors even when quiet).
    static func printFindings(_ findings: [PublishFinding], quiet: Bool) {
        for f in findings where f.severity == .error || !quiet {
            Console.error("\(f.severity.rawValue): \(f.description)")
        }
    }

    /// Writes a report as sorted, pretty JSON, atomically; false (with a message) when it cannot be written. A FIFO
    /// or device at the path is refused, never written through (the path was checked before the run, too).
    static func writeReport(_ report: some Encodable, to path: String) -> Bool {
        do {
            let text = try InspectRendering.json(report)
            try RegularFile.write(text, to: path)
            return true
        } catch let error as FileAccessError {
            Console.error("cannot write report \(error)")
            return false
        } catch {
            Console.error("cannot write report \(path): \(error)")
            return false
        }
    }

    /// The signal trap of a packaging command: SIGINT, SIGTERM and SIGHUP set the process's cancellation flag
    /// (`CancellationFlag.process`), which the geometry loops poll, so one heavy feature cannot delay the stop.
    static func signalTrap() -> SignalTrap {
        SignalTrap(signals: [SIGINT, SIGTERM, SIGHUP], cancels: .process)
    }

    /// 74 when an input was rejected because of the machine, not the data (EMFILE, an I/O error).
    static func environmentFailure(in report: ConvertReport) -> ExitCode? {
        let codes: Set<ReasonCode> = [.ioError, .tooManyOpenFiles]
        return report.inputs.contains { $0.errorCode.map(codes.contains) ?? false } ? .ioError : nil
    }
}
