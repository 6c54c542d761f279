import Glibc
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing

/// `"sources"`: each input file with its layer, ids, zooms and attribute choices.
extension SpecDecoder {
    mutating func decodeSources(_ top: SpecObject, tiles: TileSpec) -> [SourceSpec]? {
        let path = JSONPath.root.appending("sources")
        guard top.has("sources") else {
            reader.report(path, "missing required key (a list of Shapefiles)")
            return nil
        }
        guard let list = reader.array(top, "sources") else { return nil }
        guard !list.isEmpty else {
            reader.report(path, "must list at least one source")
            return nil
        }
        var out: [SourceSpec] = []
        var complete = true
        var layerOwners: [(name: String, index: Int)] = []
        for (i, v) in list.enumerated() {
            let p = path.appending(i)
            guard let o = reader.object(v, at: p, known: SourceSpec.keys), let s = decodeSource(o, tiles: tiles) else {
                complete = false
                continue
            }
            if let owner = layerOwners.first(where: { $0.name == s.layer }) {
                let how = o.has("layer") ? "" : " (from the file name)"
                reader.report(
                    p.appending("layer"), "layer name \"\(s.layer)\"\(how) is already used by sources[\(owner.index)]")
            } else {
                layerOwners.append((s.layer, i))
            }
            out.append(s)
        }
        return complete ? out : nil
    }

    mutating func decodeSource(_ o: SpecObject, tiles: TileSpec) -> SourceSpec? {
        let p = o.path
        var path: String?
        if !o.has("path") {
            reader.report(p.appending("path"), "missing required key (the .shp or .gpkg file)")
        } else if let raw = reader.string(o, "path") {
            if raw.lowercased().hasSuffix(".shp") || raw.lowercased().hasSuffix(".gpkg") {
                path = resolve(raw)
            } else {
                reader.report(p.appending("path"), "expected a .shp or .gpkg file, got \(JSONWriter.quoted(raw))")
            }
        }
        var layer: String?
        if o.has("layer") {
            if let l = reader.string(o, "layer") {
                if l.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                    reader.report(p.appending("layer"), "must not contain control characters")
                } else {
                    layer = l
                }
            }
        } else if let path {
            // The file's base name: for a .gpkg, the table of that name (what ogr2ogr names a single layer).
            let name = SpecPaths.fileName(path)
            layer = String(name.dropLast(name.lowercased().hasSuffix(".gpkg") ? 5 : 4))
        }
        let crs = reader.string(o, "crs")
        let encoding = reader.string(o, "encoding")
        let filter = reader.string(o, "filter")

        let keep = nameList(o, "keep")
        let identity = nameList(o, "identity")
        let thinning = reader.string(o, "thinning")

        var rename: [AttributeRename] = []
        if let v = o.value("rename") {
            let rp = p.appending("rename")
            if case .object(let members) = v {
                for m in members {
                    let at = rp.appending(m.key)
                    if m.key.isEmpty {
                        reader.report(at, "the attribute name must not be empty")
                        continue
                    }
                    if rename.contains(where: { $0.from == m.key }) {
                        reader.report(at, "duplicate key")
                        continue
                    }
                    guard let to = reader.string(m.value, at: at) else { continue }
                    if let keep, !keep.contains(m.key) {
                        reader.report(
                            at,
                            "\(m.key) is not listed in keep, so it is not written; add it to keep or remove the rename")
                        continue
                    }
                    if let other = rename.first(where: { $0.to == to }) {
                        reader.report(at, "\(JSONWriter.quoted(to)) is already the new name of \(other.from)")
                        continue
                    }
                    rename.append(AttributeRename(from: m.key, to: to))
                }
                // With a keep list the written names are known: two attributes must not end up with one name.
                if let keep {
                    for r in rename
                    where r.to != r.from && keep.contains(r.to) && !rename.contains(where: { $0.from == r.to }) {
                        reader.report(
                            rp.appending(r.from),
                            "\(JSONWriter.quoted(r.to)) is also the name of a kept attribute; the names would clash")
                    }
                }
            } else {
                reader.report(rp, "expected an object of old name → new name, got \(SpecReader.describe(v))")
            }
        }

        let minZoom = reader.int(o, "minZoom", in: 0...24)
        let maxZoom = reader.int(o, "maxZoom", in: 0...24)
        if let minZoom, let maxZoom, minZoom > maxZoom {
            reader.report(p.appending("minZoom"), "\(minZoom) is above maxZoom \(maxZoom)")
        } else if (minZoom ?? tiles.minZoom) > tiles.maxZoom || (maxZoom ?? tiles.maxZoom) < tiles.minZoom {
            let lo = minZoom ?? tiles.minZoom
            let hi = maxZoom ?? tiles.maxZoom
            reader.report(
                p.appending(minZoom != nil && lo > tiles.maxZoom ? "minZoom" : "maxZoom"),
                "the layer's zooms \(lo)–\(hi) are outside tiles.minZoom–tiles.maxZoom "
                    + "(\(tiles.minZoom)–\(tiles.maxZoom)); the layer would be empty"
            )
        }

        let idField = reader.string(o, "idField")
        let idPolicy = reader.choice(o, "idPolicy", FeatureIDScheme.Policy.allCases.map(\.rawValue))
        if idPolicy != nil && !o.has("idField") {
            reader.report(
                p.appending("idPolicy"), "only allowed with idField (record numbers are never missing or repeated)")
        }
        let minFeatures = reader.int(o, "minFeatures", in: 0...Int(Int32.max))
        let maxShrink = reader.double(o, "maxShrink", in: 0...1)
        let requireFeatures = reader.bool(o, "requireFeatures") ?? false
        let maxPoints = reader.int(o, "maxPoints", in: 1...1_000_000)

        guard let path, let layer else { return nil }
        // Renames do not depend on their order: keep them sorted so that equal files give equal specs.
        rename.sort { Array($0.from.utf8).lexicographicallyPrecedes(Array($1.from.utf8)) }
        var source = SourceSpec(
            path: path, layer: layer, crs: crs, encoding: encoding, filter: filter, keep: keep, rename: rename,
            minZoom: minZoom, maxZoom: maxZoom)
        source.idField = idField
        source.idPolicy = idField == nil ? nil : idPolicy.flatMap(FeatureIDScheme.Policy.init(rawValue:)) ?? .reject
        source.minFeatures = minFeatures
        source.maxShrink = maxShrink
        source.requireFeatures = requireFeatures
        source.maxPoints = maxPoints
        source.thinning = thinning
        source.identity = identity
        return source
    }
}
