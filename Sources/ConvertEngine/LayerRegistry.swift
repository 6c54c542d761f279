import Foundation
import GeoPackage
import KartpackCore
import Shapefile
import Styling

/// The output layer names of one run, claimed once before any work: every input set claims its layer name
/// (`--layer` / the pipeline's `layer`, else the file's base name), and a polygon set claims `<name>_labels` too
/// when the stylesheet declares `label` (the label points go there). Two claims of one name are refused, naming
/// both files and how to rename one (issue 33: two files `a/x.shp` and `b/x.shp` merged silently into one layer
/// `x`; an input `kommuner_labels.shp` merged into the label layer of `kommuner.shp`).
///
/// Several inputs feed one layer only when the stylesheet says so (`layer:`); such layers are not claimed here.
package struct LayerRegistry {
    /// One claim: the layer name, the file that claims it, and whether it is that file's label layer.
    package struct Claim: Equatable {
        package var name: String
        package var path: String
        var isLabels: Bool
    }

    /// Every claim of the run's inputs, in input order. A set that cannot be listed claims nothing here (the read
    /// phase rejects it with its reason).
    static func claims(_ options: ConvertOptions) -> [Claim] {
        let labels = options.style.map(declaresLabels) ?? false
        var out: [Claim] = []
        for input in options.inputs {
            guard let sets = try? input.inputSets() else { continue }
            for set in sets {
                let name = input.layerName(for: set, setCount: sets.count)
                let path = set.table.map { "\(set.path) table \($0)" } ?? set.path
                out.append(Claim(name: name, path: path, isLabels: false))
                if labels, isPolygonLayer(set) {
                    out.append(Claim(name: name + "_labels", path: path, isLabels: true))
                }
            }
        }
        return out
    }

    /// The output layers of a run in a fixed order, numbered before any feature is read (`TiledLayers.number`):
    /// per input set in input order, its own name, then every `layer:` value of the rules whose subject is that
    /// layer (by name, any case) or any layer, in sheet order; each followed by its `_labels` layer when the sheet
    /// declares `label`. A layer no feature reaches stays out of the package. Numbered on first use instead, a
    /// stylesheet that routes one input to several layers made their order in every tile and in the metadata
    /// follow the record order (issue 37).
    package static func outputNames(_ options: ConvertOptions) -> [String] {
        let sheet = options.style
        let labels = sheet.map(declaresLabels) ?? false
        var out: [String] = []
        var seen = Set<[UInt8]>()
        func add(_ name: String) {
            for n in labels ? [name, name + "_labels"] : [name] where seen.insert(Array(n.utf8)).inserted {
                out.append(n)
            }
        }
        for claim in claims(options) where !claim.isLabels {
            add(claim.name)
            let lower = claim.name.lowercased()
            for rule in sheet?.rules ?? [] {
                guard let target = rule.value(of: .layer)?.textValue,
                    rule.selectors.contains(where: { $0.subject.layer.map { $0.lowercased() == lower } ?? true })
                else { continue }
                add(target)
            }
        }
        return out
    }

    /// Refuses two claims of one name (exit 64), before anything is read.
    package static func check(_ options: ConvertOptions) throws(PipelineError) {
        var first: [[UInt8]: Claim] = [:]
        for claim in claims(options) {
            // Layer names are compared byte for byte, as MVT readers do.
            let key = Array(claim.name.utf8)
            guard let earlier = first[key] else {
                first[key] = claim
                continue
            }
            throw PipelineError.layerNameClash(
                name: claim.name, first: describe(earlier), second: describe(claim))
        }
    }

    /// "x.shp's label layer" or "x.shp".
    private static func describe(_ c: Claim) -> String {
        c.isLabels ? "the label layer of \(c.path)" : c.path
    }

    /// True when any rule of the sheet declares `label`.
    static func declaresLabels(_ sheet: Stylesheet) -> Bool {
        sheet.rules.contains { $0.value(of: .label) != nil }
    }

    /// True when the layer holds polygons: a GeoPackage table whose column is `POLYGON`, `MULTIPOLYGON` or a
    /// generic type (`GEOMETRY`: it may), or a Shapefile by `isPolygonFile`.
    static func isPolygonLayer(_ layer: InputSet) -> Bool {
        guard case .geoPackage(let path, let table) = layer else { return isPolygonFile(layer.path) }
        guard let file = try? GeoPackageFile(path: path), let t = try? file.layer(named: table) else { return false }
        return t.geometryKind?.family ?? .polygon == .polygon
    }

    /// True when the `.shp` header's shape type is a polygon type (Polygon, PolygonZ, PolygonM, MultiPatch); false
    /// when it cannot be read (the read phase says why).
    static func isPolygonFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        var header = [UInt8](repeating: 0, count: 36)
        guard pread(fd, &header, 36, 0) == 36 else { return false }
        let type = Int32(header[32]) | Int32(header[33]) << 8 | Int32(header[34]) << 16 | Int32(header[35]) << 24
        return [5, 15, 25, 31].contains(type)
    }
}
