import KartpackJSON

extension PipelineSpec {
    /// The resolved spec as stable JSON text, for fingerprints and `validate --print`: every default filled in,
    /// keys sorted, no whitespace, paths written relative to the pipeline's folder (so moving the whole checkout
    /// does not change it), absent optional keys left out. Parsing it back (as the same file) gives this spec.
    package var canonicalJSON: String { canonicalValue.text(.canonical) }

    /// The canonical form as a JSON tree.
    var canonicalValue: JSONValue {
        var top: [(key: String, value: JSONValue)] = [("version", .int(Int64(version)))]
        top.append(("sources", .array(sources.map(canonical))))
        if let style { top.append(("style", .string(relativePath(style)))) }
        if let clip {
            var c: [(key: String, value: JSONValue)] = [("buffer", .double(clip.buffer))]
            switch clip.area {
            case .file(let path, let filter):
                c.append(("path", .string(relativePath(path))))
                if let filter { c.append(("filter", .string(filter))) }
            case .bbox(let b):
                c.append(("bbox", .array([.double(b.minX), .double(b.minY), .double(b.maxX), .double(b.maxY)])))
            }
            top.append(("clip", .object(c)))
        }
        top.append(
            (
                "tiles",
                .object(
                    [
                        ("minZoom", .int(Int64(tiles.minZoom))),
                        ("maxZoom", tiles.maxZoomAuto ? .string("auto") : .int(Int64(tiles.maxZoom))),
                        ("simplify", .double(tiles.simplify)), ("buffer", .double(tiles.buffer)),
                        ("maxTileBytes", .int(Int64(tiles.maxTileBytes))),
                        ("maxTileFeatures", .int(Int64(tiles.maxTileFeatures))), ("extent", .int(Int64(tiles.extent))),
                    ] + tilesAddedLater)
            ))
        var o: [(key: String, value: JSONValue)] = [
            ("format", .string(output.format.rawValue)), ("path", .string(relativePath(output.path))),
        ]
        if let v = output.name { o.append(("name", .string(v))) }
        if let v = output.description { o.append(("description", .string(v))) }
        if let v = output.attribution { o.append(("attribution", .string(v))) }
        top.append(("output", .object(o)))
        // Keys added after the first release are written only when set, so older canonical forms stay as they were.
        if onInputError != .fail { top.append(("onInputError", .string(onInputError.rawValue))) }
        if let v = maxShrink { top.append(("maxShrink", .double(v))) }
        if let r = regions { top.append(("regions", canonical(r))) }
        return .object(top)
    }

    /// `tiles` keys added after the first release, written only when not the default.
    private var tilesAddedLater: [(key: String, value: JSONValue)] {
        var m: [(key: String, value: JSONValue)] = []
        if !tiles.sharedBorders { m.append(("sharedBorders", .bool(false))) }
        if tiles.thinning != .spacing { m.append(("thinning", .string(tiles.thinning.rawValue))) }
        if let v = tiles.thinPriority { m.append(("thinPriority", .string(v))) }
        if tiles.coalesce { m.append(("coalesce", .bool(true))) }
        if !tiles.smallFeatures { m.append(("smallFeatures", .bool(false))) }
        if tiles.smallFeatureSize != 2 { m.append(("smallFeatureSize", .double(tiles.smallFeatureSize))) }
        return m
    }

    private func canonical(_ r: RegionsSpec) -> JSONValue {
        var m: [(key: String, value: JSONValue)] = [
            ("path", .string(relativePath(r.path))), ("idField", .string(r.idField)),
        ]
        if let v = r.nameField { m.append(("nameField", .string(v))) }
        if let v = r.filter { m.append(("filter", .string(v))) }
        m.append(("buffer", .double(r.buffer)))
        if let v = r.maxZoom { m.append(("maxZoom", .int(Int64(v)))) }
        if r.maxZoomAuto { m.append(("maxZoom", .string("auto"))) }
        m.append(("output", .string(relativePath(r.output))))
        if let v = r.sign { m.append(("sign", .string(relativePath(v)))) }
        if let v = r.signPasswordFile { m.append(("signPasswordFile", .string(relativePath(v)))) }
        if r.allowRemovals { m.append(("allowRemovals", .bool(true))) }
        return .object(m)
    }

    private func canonical(_ s: SourceSpec) -> JSONValue {
        var m: [(key: String, value: JSONValue)] = [
            ("path", .string(relativePath(s.path))), ("layer", .string(s.layer)),
        ]
        if let v = s.crs { m.append(("crs", .string(v))) }
        if let v = s.encoding { m.append(("encoding", .string(v))) }
        if let v = s.filter { m.append(("filter", .string(v))) }
        if let keep = s.keep { m.append(("keep", .array(keep.map { .string($0) }))) }
        if !s.rename.isEmpty { m.append(("rename", .object(s.rename.map { ($0.from, .string($0.to)) }))) }
        if let v = s.minZoom { m.append(("minZoom", .int(Int64(v)))) }
        if let v = s.maxZoom { m.append(("maxZoom", .int(Int64(v)))) }
        if let v = s.idField {
            m.append(("idField", .string(v)))
            m.append(("idPolicy", .string((s.idPolicy ?? .reject).rawValue)))
        }
        if let v = s.minFeatures { m.append(("minFeatures", .int(Int64(v)))) }
        if let v = s.maxShrink { m.append(("maxShrink", .double(v))) }
        if s.requireFeatures { m.append(("requireFeatures", .bool(true))) }
        if let v = s.maxPoints { m.append(("maxPoints", .int(Int64(v)))) }
        if let v = s.thinning { m.append(("thinning", .string(v))) }
        if let v = s.identity { m.append(("identity", .array(v.map { .string($0) }))) }
        return .object(m)
    }
}
