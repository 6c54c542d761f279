import Foundation
import KartpackCore
import ConvertEngine
import RegionPackages

/// `kartpack extract BIG.pmtiles (--bbox W,S,E,N | --region REGIONS.shp:FIELD=VALUE) -o PART.pmtiles`.
struct ExtractCommand: Command {
    static let name = "extract"
    static let summary = "copy the tiles of a package that touch a box or region into a smaller package"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "bbox", kind: .value, help: "the area as west,south,east,north in degrees", valueName: "W,S,E,N"),
        OptionSpec(
            name: "region", kind: .value, help: "the area as the polygon of the record with FIELD=VALUE",
            valueName: "REGIONS.shp:FIELD=VALUE"),
        OptionSpec(
            name: "output", kind: .value, help: "the part (.pmtiles or .mbtiles)", valueName: "PART", short: "o"),
        OptionSpec(name: "max-zoom", kind: .value, help: "leave out tiles above this zoom", valueName: "N"),
        OptionSpec(name: "force", kind: .flag, help: "replace an existing output"),
        OptionSpec(name: "quiet", kind: .flag, help: "no summary"),
    ]
    static var help: String {
        helpText(
            usage:
                "kartpack extract BIG.pmtiles (--bbox W,S,E,N | --region REGIONS.shp:FIELD=VALUE) -o PART.pmtiles "
                + "[--max-zoom N]",
            summary: """
                Copies every tile of BIG that touches the area (a box, or the outline of one region polygon), at
                every zoom up to --max-zoom, byte for byte into a new clustered package, like `pmtiles extract`.
                Tiles are not re-tiled and not clipped to the area: features reach as far as their tiles do. Use
                `kartpack package` (or `convert --clip`) for packages clipped to a region's outline. The metadata
                is BIG's, with the part's bounds, centre and zooms. BIG may be PMTiles or MBTiles; a .pmtiles part
                keeps BIG's tile compression (none, gzip, even brotli or zstd: tiles are not decoded), an
                .mbtiles part holds gzip tiles (uncompressed ones are gzip-compressed, brotli and zstd are
                refused). Only vector tile (MVT) packages are extracted. Published atomically.
                """,
            options: options,
            footer: "See docs/regions.md.")
    }

    let input: String
    let output: String
    let area: TileExtractor.Area
    let maxZoom: Int?
    let force: Bool
    let quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "extract needs exactly one input package") }
        input = p.positionals[0]
        guard let output = p.value("output") else { throw UsageError(message: "extract needs -o PART.pmtiles") }
        self.output = output
        switch (p.value("bbox"), p.value("region")) {
        case (let b?, nil): area = .bbox(try Self.bbox(b, option: "--bbox"))
        case (nil, let r?):
            let (path, field, value) = try Self.region(r)
            area = .polygons(path: path, field: field, value: value)
        default: throw UsageError(message: "extract needs one of --bbox W,S,E,N or --region REGIONS.shp:FIELD=VALUE")
        }
        maxZoom = try p.int("max-zoom", in: 0...24)
        force = p.flag("force")
        quiet = p.flag("quiet")
    }

    /// W,S,E,N in degrees. With `crossing`, W > E is a box across the antimeridian (kept as given: minX > maxX).
    static func bbox(_ text: String, option: String, crossing: Bool = false) throws(UsageError) -> Bounds {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3],
            [w, s, e, n].allSatisfy(\.isFinite), w < e || (crossing && w > e), s < n, w >= -180, w <= 180,
            e >= -180, e <= 180, s >= -90, n <= 90
        else {
            let order = crossing ? "W ≠ E (W > E crosses the antimeridian)" : "W < E"
            throw UsageError(message: "\(option) '\(text)' must be W,S,E,N in degrees with \(order) and S < N")
        }
        return Bounds(minX: w, minY: s, maxX: e, maxY: n)
    }

    /// REGIONS.shp:FIELD=VALUE.
    static func region(_ text: String) throws(UsageError) -> (String, String, String) {
        guard let colon = text.range(of: ":", options: .backwards),
            let eq = text[colon.upperBound...].firstIndex(of: "=")
        else { throw UsageError(message: "--region '\(text)' must be REGIONS.shp:FIELD=VALUE") }
        let path = String(text[..<colon.lowerBound])
        let field = String(text[colon.upperBound..<eq])
        let value = String(text[text.index(after: eq)...])
        guard !path.isEmpty, !field.isEmpty else {
            throw UsageError(message: "--region '\(text)' must be REGIONS.shp:FIELD=VALUE")
        }
        return (path, field, value)
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: input) else {
            Console.error("\(input): no such file")
            return .noInput
        }
        var x = TileExtractor(input: input, output: output, area: area, maxZoom: maxZoom)
        x.force = force
        do {
            let s = try x.run()
            for w in s.warnings { Console.error("warning: \(w.message) [\(w.code)]") }
            if !quiet {
                let note = s.gzipped > 0 ? " (\(s.gzipped) uncompressed tiles gzip-compressed)" : ""
                Console.out("\(output): \(s.tiles) tiles, \(s.bytes) bytes, \(s.compression) tiles\(note)")
            }
        } catch PipelineError.nothingToWrite(let reasons, _) {
            Console.error("nothing to write: " + reasons.joined(separator: "; "))
            return .dataError
        }
        return .success
    }
}
