import KartpackCore
import Nightly
import Shapefile

extension PipelineSpec {
    /// What the nightly fingerprint hashes, in order: a format tag, the Kartpack version, the canonical spec
    /// (paths relative to the pipeline file, so moving the checkout keeps the hash), the stylesheet's bytes, then
    /// for each source (and then the clip file) the files of its Shapefile set as `convert` reads them
    /// (`ShapefileGrouping`): `.shp`, `.shx`, `.dbf`, `.prj`, `.cpg` and the memo file (`.dbt`/`.fpt`, tag `memo`)
    /// where present, each tagged by its extension.
    package func fingerprintItems(kartpackVersion: String = Kartpack.version) -> [Fingerprint.Item] {
        var items: [Fingerprint.Item] = [
            .bytes(tag: "kartpack-fingerprint", Array("1".utf8)), .bytes(tag: "version", Array(kartpackVersion.utf8)),
            .bytes(tag: "spec", Array(canonicalJSON.utf8)),
        ]
        items.append(style.map { .file(tag: "style", path: $0) } ?? .bytes(tag: "style-none", []))
        for source in sources {
            items.append(.bytes(tag: "source", Array(source.layer.utf8)))
            items += Self.shapefileItems(source.path)
        }
        if let clip, case .file(let path, _) = clip.area {
            items.append(.bytes(tag: "clip", []))
            items += Self.shapefileItems(path)
        }
        return items
    }

    /// The fingerprint of this pipeline's output.
    package func fingerprint(kartpackVersion: String = Kartpack.version) throws(NightlyError) -> Fingerprint {
        try Fingerprint.compute(fingerprintItems(kartpackVersion: kartpackVersion))
    }

    /// The files of the set at `shpPath`; just the `.shp` when it cannot be found (hashing it then reports that).
    static func shapefileItems(_ shpPath: String) -> [Fingerprint.Item] {
        guard let set = try? ShapefileLocator.shapefiles(at: shpPath).first else {
            return [.file(tag: "shp", path: shpPath)]
        }
        let parts: [(String, String?)] = [
            ("shp", set.shp), ("shx", set.shx), ("dbf", set.dbf), ("prj", set.prj), ("cpg", set.cpg),
            ("memo", set.memo),
        ]
        return parts.compactMap { tag, path in path.map { .file(tag: tag, path: $0) } }
    }
}
