import Glibc
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing

/// `"clip"`, `"regions"` and `"output"`: where the package is cut and written.
extension SpecDecoder {
    mutating func decodeClip(_ top: SpecObject) -> ClipSpec? {
        guard let v = top.value("clip") else { return nil }
        let p = JSONPath.root.appending("clip")
        guard let o = reader.object(v, at: p, known: ClipSpec.keys) else { return nil }
        let buffer = reader.double(o, "buffer", in: 0...1_000_000) ?? 0
        let hasPath = o.has("path")
        let hasBBox = o.has("bbox")
        if hasPath && hasBBox {
            reader.report(p, "give either path or bbox, not both")
            return nil
        }
        if !hasPath && !hasBBox {
            reader.report(p, "needs either path (a polygon Shapefile) or bbox ([minLon, minLat, maxLon, maxLat])")
            return nil
        }
        if hasPath {
            var path: String?
            if let raw = reader.string(o, "path") {
                if raw.lowercased().hasSuffix(".shp") || raw.lowercased().hasSuffix(".gpkg") {
                    path = resolve(raw)
                } else {
                    reader.report(p.appending("path"), "expected a .shp or .gpkg file, got \(JSONWriter.quoted(raw))")
                }
            }
            let filter = reader.string(o, "filter")
            guard let path else { return nil }
            return ClipSpec(area: .file(path: path, filter: filter), buffer: buffer)
        }
        if o.has("filter") {
            reader.report(p.appending("filter"), "only allowed with clip.path (a bbox has no attributes)")
        }
        guard let bbox = decodeBBox(o) else { return nil }
        return ClipSpec(area: .bbox(bbox), buffer: buffer)
    }

    mutating func decodeBBox(_ o: SpecObject) -> Bounds? {
        let p = o.path.appending("bbox")
        guard let list = reader.array(o, "bbox") else { return nil }
        guard list.count == 4 else {
            reader.report(p, "expected [minLon, minLat, maxLon, maxLat], got \(list.count) values")
            return nil
        }
        var values: [Double] = []
        for (i, v) in list.enumerated() {
            guard let d = v.doubleValue else {
                reader.report(p.appending(i), "expected a number, got \(SpecReader.describe(v))")
                continue
            }
            let isLon = i % 2 == 0
            let limit = isLon ? 180.0 : 90.0
            guard abs(d) <= limit else {
                let name = ["minLon", "minLat", "maxLon", "maxLat"][i]
                reader.report(
                    p.appending(i),
                    "\(name) must be between -\(Int(limit)) and \(Int(limit)), got \(JSONWriter.canonicalNumber(d)) "
                        + "(the order is [minLon, minLat, maxLon, maxLat])"
                )
                continue
            }
            values.append(d)
        }
        guard values.count == 4 else { return nil }
        var ok = true
        if !(values[0] < values[2]) {
            reader.report(
                p,
                "minLon \(JSONWriter.canonicalNumber(values[0])) must be below maxLon "
                    + "\(JSONWriter.canonicalNumber(values[2])) (the order is [minLon, minLat, maxLon, maxLat])"
            )
            ok = false
        }
        if !(values[1] < values[3]) {
            reader.report(
                p,
                "minLat \(JSONWriter.canonicalNumber(values[1])) must be below maxLat "
                    + "\(JSONWriter.canonicalNumber(values[3])) (the order is [minLon, minLat, maxLon, maxLat])"
            )
            ok = false
        }
        return ok ? Bounds(minX: values[0], minY: values[1], maxX: values[2], maxY: values[3]) : nil
    }

    // MARK: regions

    mutating func decodeRegions(_ top: SpecObject, tiles: TileSpec) -> RegionsSpec? {
        guard let v = top.value("regions") else { return nil }
        let p = JSONPath.root.appending("regions")
        guard let o = reader.object(v, at: p, known: RegionsSpec.keys) else { return nil }
        var path: String?
        if !o.has("path") {
            reader.report(p.appending("path"), "missing required key (the polygon .shp, one region per record)")
        } else if let raw = reader.string(o, "path") {
            if raw.lowercased().hasSuffix(".shp") || raw.lowercased().hasSuffix(".gpkg") {
                path = resolve(raw)
            } else {
                reader.report(p.appending("path"), "expected a .shp or .gpkg file, got \(JSONWriter.quoted(raw))")
            }
        }
        if !o.has("idField") {
            reader.report(p.appending("idField"), "missing required key (the field holding each region's id)")
        }
        let idField = reader.string(o, "idField")
        let nameField = reader.string(o, "nameField")
        let filter = reader.string(o, "filter")
        let buffer = reader.double(o, "buffer", in: 0...1_000_000) ?? 0
        var maxZoom: Int?
        var maxZoomAuto = false
        if case .string(let text) = o.value("maxZoom") {
            if text == "auto" {
                maxZoomAuto = true
            } else {
                reader.report(p.appending("maxZoom"), "expected an integer or \"auto\", got \"\(text)\"")
            }
        } else {
            maxZoom = reader.int(o, "maxZoom", in: 0...24)
        }
        if let maxZoom, maxZoom < tiles.minZoom {
            reader.report(p.appending("maxZoom"), "\(maxZoom) is below tiles.minZoom \(tiles.minZoom)")
        }
        var output: String?
        if !o.has("output") {
            reader.report(p.appending("output"), "missing required key (the package folder)")
        } else if let raw = reader.string(o, "output") {
            output = resolve(raw)
        }
        let sign = reader.string(o, "sign").map(resolve)
        let passwordFile = reader.string(o, "signPasswordFile").map(resolve)
        if passwordFile != nil, !o.has("sign") {
            reader.report(p.appending("signPasswordFile"), "only allowed with sign (the key it unlocks)")
        }
        guard let path, let idField, let output else { return nil }
        var spec = RegionsSpec(
            path: path, idField: idField, nameField: nameField, filter: filter, buffer: buffer, maxZoom: maxZoom,
            output: output, sign: sign, signPasswordFile: passwordFile)
        spec.maxZoomAuto = maxZoomAuto
        spec.allowRemovals = reader.bool(o, "allowRemovals") ?? false
        return spec
    }

    // MARK: output

    mutating func decodeOutput(_ top: SpecObject) -> OutputSpec? {
        let p = JSONPath.root.appending("output")
        guard let v = top.value("output") else {
            reader.report(p, "missing required key (an object with at least \"path\")")
            return nil
        }
        guard let o = reader.object(v, at: p, known: OutputSpec.keys) else { return nil }
        var format: ArchiveFormat?
        if let f = reader.string(o, "format") {
            if let known = ArchiveFormat(rawValue: f.lowercased()) {
                format = known
            } else {
                reader.report(p.appending("format"), "expected \"pmtiles\" or \"mbtiles\", got \(JSONWriter.quoted(f))")
            }
        }
        var path: String?
        if !o.has("path") {
            reader.report(p.appending("path"), "missing required key (the .pmtiles or .mbtiles file to write)")
        } else if let raw = reader.string(o, "path") {
            if raw.utf8.contains(0) {
                // No file system name holds a NUL: caught here (exit 78), not as "File exists" at publish.
                reader.report(p.appending("path"), "holds a NUL byte (\\u0000), which no file name can contain")
            } else if let implied = ArchiveFormat.from(path: raw) {
                if let format, format != implied {
                    reader.report(
                        p.appending("format"),
                        "\"\(format.rawValue)\" does not match output.path, which ends in .\(implied.rawValue)")
                }
                if format == nil { format = implied }
                if SpecPaths.fileName(raw).count <= implied.rawValue.count + 1 || raw.hasSuffix("/") {
                    reader.report(p.appending("path"), "needs a file name before .\(implied.rawValue)")
                } else {
                    path = resolve(raw)
                }
            } else {
                reader.report(p.appending("path"), "must end in .pmtiles or .mbtiles, got \(JSONWriter.quoted(raw))")
            }
        }
        let name = reader.string(o, "name")
        let description = reader.string(o, "description", nonEmpty: false)
        let attribution = reader.string(o, "attribution", nonEmpty: false)
        guard let path else { return nil }
        return OutputSpec(
            format: format ?? .pmtiles, path: path, name: name, description: description, attribution: attribution)
    }
}
