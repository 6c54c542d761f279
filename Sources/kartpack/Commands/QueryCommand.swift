import Foundation
import KartpackCore
import KartpackKit

/// `kartpack query`: the features of a region at a zoom through KartpackKit, what an app gets from
/// `KartpackPackage.features(in:zoom:…)`.
struct QueryCommand: Command {
    static let name = "query"
    static let summary = "list the features of a region at a zoom (at most N, evenly spread) as GeoJSON or text"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "bbox", kind: .value, help: "the region in WGS84 degrees (W ≤ E, S ≤ N)", valueName: "W,S,E,N"),
        OptionSpec(
            name: "zoom", kind: .value, help: "the map zoom (0-31; above the package's highest, its tiles)",
            valueName: "Z"),
        OptionSpec(
            name: "layer", kind: .repeatable, help: "only this layer (repeatable; default: all)", valueName: "L"),
        OptionSpec(
            name: "max", kind: .value, help: "at most N features, evenly spread over the region", valueName: "N"),
        OptionSpec(
            name: "spread", kind: .value, help: "how --max chooses: even (default) or rank", valueName: "even|rank"),
        OptionSpec(
            name: "priority", kind: .value, help: "a numeric attribute: higher values are chosen first",
            valueName: "FIELD"),
        OptionSpec(name: "whole", kind: .flag, help: "geometry of the covering tiles, not cut to the region"),
        OptionSpec(name: "format", kind: .value, help: "geojson (default) or text", valueName: "geojson|text"),
        OptionSpec(
            name: "style", kind: .value, help: "a style folder (kartpack style): add each feature's look (geojson)",
            valueName: "DIR"),
    ]
    static var help: String {
        helpText(
            usage:
                "kartpack query PACKAGE.pmtiles --bbox W,S,E,N --zoom Z [--layer L] [--max N] [--format geojson|text]",
            summary: """
                Reads the tiles at zoom Z that cover the region, decodes them to WGS84 and prints each feature once
                (pieces from several tiles joined by feature id), cut to the region unless --whole. With --max N at
                most N features, spread evenly: a fixed quadtree per tile ranks them, so the choice is the same on
                every run and a feature chosen in a region stays chosen in any smaller region that holds it.
                geojson prints a FeatureCollection (properties carry `layer`); text prints one tab-separated line
                per feature: layer, id, class, geometry type, parts, positions, first position. --style DIR (the folder
                `kartpack style` wrote) adds to each GeoJSON feature a `look` member: what that style draws for it at
                zoom Z (KartpackKit's ClientStyle). Exit 64 for a bad request, 65 for a
                damaged package, 66 when it cannot be opened.
                """,
            options: options, footer: "See docs/kartpack-kit.md.")
    }

    let package: String
    let region: GeoRegion
    let zoom: Int
    let layers: [String]?
    let limit: Int?
    let spread: Spread
    let priority: String?
    let whole: Bool
    let format: String
    let style: String?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "query needs exactly one package") }
        package = p.positionals[0]
        guard let b = p.value("bbox") else { throw UsageError(message: "query needs --bbox W,S,E,N") }
        let parts = b.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3] else {
            throw UsageError(message: "--bbox needs four numbers W,S,E,N, got '\(b)'")
        }
        region = GeoRegion(west: w, south: s, east: e, north: n)
        guard region.isValid else {
            throw UsageError(message: "--bbox needs W ≤ E within ±180 and S ≤ N within ±90, got '\(b)'")
        }
        guard let z = try p.int("zoom", in: 0...31) else { throw UsageError(message: "query needs --zoom Z") }
        zoom = z
        let l = p.values("layer")
        layers = l.isEmpty ? nil : l
        limit = try p.int("max", in: 0...Int(Int32.max))
        spread = try p.choice("spread", ["even", "rank"], default: "even") == "rank" ? .rank : .even
        priority = p.value("priority")
        whole = p.flag("whole")
        format = try p.choice("format", ["geojson", "text"], default: "geojson")
        style = p.value("style")
        if style != nil && format != "geojson" { throw UsageError(message: "--style needs --format geojson") }
    }

    func run() throws -> ExitCode {
        do throws(KartpackKitError) {
            let pkg = try KartpackPackage(contentsOf: URL(fileURLWithPath: package))
            let found = try pkg.features(
                in: region, zoom: zoom, layers: layers, limit: limit, spread: spread, priority: priority,
                geometry: whole ? .whole : .clipped)
            if let style {
                let client = try ClientStyle(contentsOf: URL(fileURLWithPath: style, isDirectory: true))
                Console.out(GeoJSON.featureCollection(found, style: client, zoom: Double(zoom)))
            } else if format == "geojson" {
                Console.out(GeoJSON.featureCollection(found))
            } else {
                for f in found { Console.out(Self.line(f)) }
            }
            return .success
        } catch {
            Console.error(error.description)
            switch error {
            case .cannotOpen: return .noInput
            case .invalidRequest, .invalidStyle: return .usage
            default: return .dataError
            }
        }
    }

    /// `layer id class type positions lon,lat` (`-` for a missing id or class).
    static func line(_ f: MapFeature) -> String {
        let (type, count): (String, Int) =
            switch f.geometry {
            case .points(let p): ("point", p.count)
            case .lines(let l): ("line", l.count)
            case .polygons(let p): ("polygon", p.count)
            }
        let first = f.geometry.coordinates.first.map { "\($0.longitude),\($0.latitude)" } ?? "-"
        let id = f.id.map(String.init) ?? "-"
        // Layer and class names come from the package: escaped, so neither a tab nor a terminal escape gets through.
        let layer = TerminalText.escaped(f.layer)
        let featureClass = TerminalText.escaped(f.featureClass ?? "-")
        return "\(layer)\t\(id)\t\(featureClass)\t\(type)\t\(count)\t\(f.geometry.coordinates.count)\t\(first)"
    }
}
