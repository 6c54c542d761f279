import Glibc
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing

extension PipelineSpec {
    /// The largest pipeline file read (a pipeline is a few kilobytes; this only stops accidents).
    package static let maxFileBytes = 4 << 20

    /// How pipeline files are read: strict JSON, a UTF-8 byte-order mark tolerated (editors on Windows write one),
    /// 64 nesting levels, `maxFileBytes`. Repeated keys are kept: the decoder reports them with their path.
    static let jsonOptions = JSONParseOptions(
        maxDepth: 64, maxBytes: maxFileBytes, allowsByteOrderMark: true, loneSurrogates: .reject, duplicateKeys: .keep,
        emptyDocumentMessage: "the file is empty; expected a JSON object")

    /// Reads, overrides and validates the pipeline file at `path` (relative paths in it resolve against its
    /// folder).
    ///
    /// - Parameter overrides: `--set` texts (`tiles.maxZoom=12`), applied in order before validation.
    /// - Throws: every problem at once; exit code `.noInput` when the file cannot be read, `.config` otherwise.
    package static func load(path: String, overrides: [String] = []) throws(PipelineSpecError) -> PipelineSpec {
        let bytes = try readFile(path)
        return try parse(bytes, file: path, overrides: overrides)
    }

    /// Parses pipeline text as if read from `file` (whose folder anchors relative paths; a relative `file` is
    /// resolved against the working folder). See `load(path:overrides:)`.
    package static func parse(_ bytes: [UInt8], file: String, overrides: [String] = []) throws(PipelineSpecError)
        -> PipelineSpec
    {
        let document: JSONParsedDocument
        do throws(JSONParseError) {
            document = try JSONParser.parseDocument(bytes, options: jsonOptions)
        } catch {
            throw PipelineSpecError(
                file: file,
                issues: [PipelineSpecIssue(path: .root, message: error.message, line: error.line, column: error.column)]
            )
        }
        var (overridden, overrideIssues, setPaths) = SpecOverride.apply(overrides, to: document.value)
        overridden = SpecOverride.formatFollowingPath(overridden, setPaths: setPaths)
        let locations = SpecLocations(document: document, overridden: setPaths)
        let absolute = SpecPaths.absolute(file, base: SpecPaths.currentDirectory())
        var decoder = SpecDecoder(file: absolute)
        let spec = decoder.decode(overridden)
        let issues = overrideIssues + decoder.reader.issues.map(locations.locate)
        guard var spec, issues.isEmpty else {
            throw PipelineSpecError(
                file: file,
                issues: issues.isEmpty ? [PipelineSpecIssue(path: .root, message: "invalid pipeline")] : issues)
        }
        spec.locations = locations
        return spec
    }

    /// Problems with files the pipeline names (a missing source `.shp`, stylesheet or clip file, an output folder
    /// that does not exist), for `validate` and before a run. Empty when everything is there.
    ///
    /// - Parameter forPackage: check what `kartpack package` needs instead of `run`: the `regions` section's
    ///   files (region Shapefile, signing key and password file) and the parent of its package folder, not the
    ///   folder of `output.path` (which `package` does not write).
    package func missingFiles(forPackage: Bool = false) -> [PipelineSpecIssue] {
        var out: [PipelineSpecIssue] = []
        func check(_ path: String, _ at: JSONPath) {
            var st = stat()
            if stat(path, &st) != 0 {
                out.append(
                    PipelineSpecIssue(path: at, message: "\(relativePath(path)): \(String(cString: strerror(errno)))"))
            } else if (st.st_mode & S_IFMT) != S_IFREG {
                out.append(PipelineSpecIssue(path: at, message: "\(relativePath(path)): not a regular file"))
            }
        }
        for (i, s) in sources.enumerated() {
            check(s.path, JSONPath.root.appending("sources").appending(i).appending("path"))
        }
        if let style { check(style, JSONPath.root.appending("style")) }
        if let clip, case .file(let p, _) = clip.area { check(p, JSONPath.root.appending("clip").appending("path")) }
        func checkFolder(of path: String, _ at: JSONPath) {
            let folder = SpecPaths.folder(of: path)
            var st = stat()
            if stat(folder, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
                out.append(PipelineSpecIssue(path: at, message: "the folder \(relativePath(folder)) does not exist"))
            }
        }
        if forPackage {
            if let r = regions {
                let at = JSONPath.root.appending("regions")
                check(r.path, at.appending("path"))
                if let key = r.sign { check(key, at.appending("sign")) }
                if let file = r.signPasswordFile { check(file, at.appending("signPasswordFile")) }
                checkFolder(of: r.output, at.appending("output"))
            }
        } else {
            checkFolder(of: output.path, JSONPath.root.appending("output").appending("path"))
        }
        return out.map(locations.locate)
    }

    static func readFile(_ path: String) throws(PipelineSpecError) -> [UInt8] {
        func failure(_ message: String) -> PipelineSpecError {
            PipelineSpecError(
                file: path, issues: [PipelineSpecIssue(path: .root, message: message)], exitCode: .noInput)
        }
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            // Out of descriptors is the machine's fault (74, naming the limit), not a missing pipeline.
            if OpenFileLimit.isExhausted(e) {
                throw PipelineSpecError(
                    file: path,
                    issues: [
                        PipelineSpecIssue(
                            path: .root, message: "cannot open the pipeline file: \(OpenFileLimit.message(errno: e))")
                    ],
                    exitCode: .ioError)
            }
            throw failure("cannot open the pipeline file: \(String(cString: strerror(e)))")
        }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw failure("cannot read the pipeline file: \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw failure("not a regular file (a \(RegularFile.describe(st.st_mode)))")
        }
        guard st.st_size <= maxFileBytes else {
            throw PipelineSpecError(
                file: path,
                issues: [
                    PipelineSpecIssue(path: .root, message: "the pipeline file is larger than \(maxFileBytes) bytes")
                ])
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read the pipeline file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[..<n])
            if out.count > maxFileBytes {
                throw PipelineSpecError(
                    file: path,
                    issues: [
                        PipelineSpecIssue(
                            path: .root, message: "the pipeline file is larger than \(maxFileBytes) bytes")
                    ])
            }
        }
        return out
    }
}

/// Turns a parsed (and overridden) document into a `PipelineSpec`, collecting every problem.
package struct SpecDecoder {
    package var reader = SpecReader()
    package let file: String
    package let directory: String

    package init(file: String) {
        self.file = file
        self.directory = SpecPaths.folder(of: file)
    }

    private func resolve(_ path: String) -> String { SpecPaths.absolute(path, base: directory) }

    /// The spec, or nil when a required part is missing or unusable (the problems are in `reader.issues`).
    package mutating func decode(_ document: JSONValue) -> PipelineSpec? {
        let root = JSONPath.root
        guard case .object = document else {
            reader.report(root, "expected a JSON object with \"version\": 1, got \(SpecReader.describe(document))")
            return nil
        }
        // The version decides how everything else is read: check it before reporting unknown keys.
        guard checkVersion(document) else { return nil }
        guard let top = reader.object(document, at: root, known: PipelineSpec.keys) else { return nil }

        let tiles = decodeTiles(top)
        let sources = decodeSources(top, tiles: tiles)
        var style: String?
        if let s = reader.string(top, "style") { style = resolve(s) }
        let clip = decodeClip(top)
        let output = decodeOutput(top)

        let onInputError = reader.choice(top, "onInputError", InputErrorPolicy.allCases.map(\.rawValue))
        let maxShrink = reader.double(top, "maxShrink", in: 0...1)
        let memoryBudget = decodeMemoryBudget(top)
        let regions = decodeRegions(top, tiles: tiles)

        guard let sources, let output else { return nil }
        var spec = PipelineSpec(file: file, sources: sources, style: style, clip: clip, tiles: tiles, output: output)
        spec.version = PipelineSpec.supportedVersion
        spec.onInputError = onInputError.flatMap(InputErrorPolicy.init(rawValue:)) ?? .fail
        spec.maxShrink = maxShrink
        spec.memoryBudget = memoryBudget
        spec.regions = regions
        return spec
    }

    /// `"memoryBudget"`: a byte count or a size text (`MemoryBudget.parse`).
    private mutating func decodeMemoryBudget(_ top: SpecObject) -> Int? {
        guard let v = top.value("memoryBudget") else { return nil }
        if case .string(let text) = v {
            if let n = MemoryBudget.parse(text) { return n }
            reader.report(
                top.path.appending("memoryBudget"),
                "expected a size from 64K to 1T such as \"512M\" or \"2G\", got \"\(text)\"")
            return nil
        }
        return reader.int(top, "memoryBudget", in: MemoryBudget.minimumBytes...(1 << 40))
    }

    private mutating func checkVersion(_ document: JSONValue) -> Bool {
        let path = JSONPath.root.appending("version")
        guard let v = document["version"] else {
            reader.report(path, "missing required key (this build reads \"version\": \(PipelineSpec.supportedVersion))")
            return true  // keep checking the rest as version 1
        }
        let number: JSONValue
        if case .double = v, let n = v.intValue { number = .int(n) } else { number = v }
        switch number {
        case .int(let n) where n > Int64(PipelineSpec.supportedVersion):
            reader.report(
                path,
                "version \(n) is newer than this build of Kartpack \(Kartpack.version) reads "
                    + "(\(PipelineSpec.supportedVersion)); upgrade Kartpack"
            )
            return false
        case .int(let n) where n == Int64(PipelineSpec.supportedVersion):
            return true
        case .int(let n):
            reader.report(path, "unknown version \(n); this build reads version \(PipelineSpec.supportedVersion)")
            return false
        default:
            reader.report(path, "expected an integer, got \(SpecReader.describe(v))")
            return true
        }
    }

    // MARK: tiles

    private mutating func decodeTiles(_ top: SpecObject) -> TileSpec {
        var t = TileSpec()
        guard let v = top.value("tiles") else { return t }
        let path = JSONPath.root.appending("tiles")
        guard let o = reader.object(v, at: path, known: TileSpec.keys) else { return t }
        if let z = reader.int(o, "minZoom", in: 0...24) { t.minZoom = z }
        if case .string(let text) = o.value("maxZoom") {
            if text == "auto" {
                t.maxZoomAuto = true
                t.maxZoom = max(MaxZoomGuess.cap, t.minZoom)
            } else {
                reader.report(path.appending("maxZoom"), "expected an integer or \"auto\", got \"\(text)\"")
            }
        } else if let z = reader.int(o, "maxZoom", in: 0...24) {
            t.maxZoom = z
        }
        if t.minZoom > t.maxZoom {
            reader.report(path.appending("minZoom"), "\(t.minZoom) is above tiles.maxZoom \(t.maxZoom)")
            t.maxZoom = t.minZoom
        }
        if let d = reader.double(o, "simplify", in: 0...1000) { t.simplify = d }
        if let d = reader.double(o, "buffer", in: 0...2048) { t.buffer = d }
        if let n = reader.int(o, "maxTileBytes", in: 1024...1_000_000_000) { t.maxTileBytes = n }
        if let n = reader.int(o, "maxTileFeatures", in: 1...100_000_000) { t.maxTileFeatures = n }
        if let b = reader.bool(o, "sharedBorders") { t.sharedBorders = b }
        if let b = reader.bool(o, "smallFeatures") { t.smallFeatures = b }
        if let b = reader.bool(o, "coalesce") { t.coalesce = b }
        if let d = reader.double(o, "smallFeatureSize", in: 0.5...256) { t.smallFeatureSize = d }
        if let m = reader.choice(o, "thinning", ThinningMode.allCases.map(\.rawValue)) {
            t.thinning = ThinningMode(rawValue: m) ?? .spacing
        }
        if let text = reader.string(o, "thinPriority") {
            if ThinningOptions.priority(text) == nil {
                reader.report(
                    path.appending("thinPriority"),
                    "expected FIELD, FIELD:asc or FIELD:desc, got \(JSONWriter.quoted(text))")
            } else {
                t.thinPriority = text
            }
        }
        if let n = reader.int(o, "extent", in: 256...16384) {
            if n & (n - 1) == 0 {
                t.extent = n
            } else {
                reader.report(path.appending("extent"), "must be a power of two (256, 512, … 16384), got \(n)")
            }
        }
        return t
    }

    // MARK: sources

    private mutating func decodeSources(_ top: SpecObject, tiles: TileSpec) -> [SourceSpec]? {
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

    private mutating func decodeSource(_ o: SpecObject, tiles: TileSpec) -> SourceSpec? {
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

    // MARK: clip

    private mutating func decodeClip(_ top: SpecObject) -> ClipSpec? {
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

    private mutating func decodeBBox(_ o: SpecObject) -> Bounds? {
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

    private mutating func decodeRegions(_ top: SpecObject, tiles: TileSpec) -> RegionsSpec? {
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

    private mutating func decodeOutput(_ top: SpecObject) -> OutputSpec? {
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
