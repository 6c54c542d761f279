import ConvertEngine
import KartpackCore
import Nightly
import Shapefile

extension PipelineSpec {
    /// What the nightly fingerprint hashes, in order: a format tag, the Kartpack version and its output format
    /// (`OutputFormat.version`: a build whose bytes would differ is not up to date), the canonical spec
    /// (paths relative to the pipeline file, so moving the checkout keeps the hash), the stylesheet's bytes, then
    /// for each source (and then the clip file) the files of its Shapefile set as `convert` reads them
    /// (`ShapefileGrouping`): the records in any order (`ShapefileRecordDigest`; `.shp`, `.shx` and `.dbf` are
    /// only listed for the report), `.prj`, `.cpg` and the memo file (`.dbt`/`.fpt`, tag `memo`) where present,
    /// each tagged by its extension; a set whose records cannot be split has its files hashed as they are.
    package func fingerprintItems(
        kartpackVersion: String = Kartpack.version, outputFormat: Int = OutputFormat.version
    ) -> [Fingerprint.Item] {
        var items: [Fingerprint.Item] = [
            .bytes(tag: "kartpack-fingerprint", Array("3".utf8)), .bytes(tag: "version", Array(kartpackVersion.utf8)),
            .bytes(tag: "output-format", Array(String(outputFormat).utf8)),
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
    /// The sets' `.shp`, `.shx` and `.dbf` are hashed whole (for the report) on a second thread while their records
    /// are digested (`Fingerprint.compute(listing:_:)`).
    package func fingerprint(kartpackVersion: String = Kartpack.version) throws(NightlyError) -> Fingerprint {
        try Fingerprint.compute(listing: listedFiles()) { fingerprintItems(kartpackVersion: kartpackVersion) }
    }

    /// The files `fingerprintItems` lists for the report rather than hashes (`.listed`): each source's and the clip
    /// file's `.shp`, `.shx` and `.dbf`, as far as their sets can be found.
    func listedFiles() -> [String] {
        var paths = sources.map(\.path)
        if let clip, case .file(let path, _) = clip.area { paths.append(path) }
        return paths.flatMap { path -> [String] in
            guard let set = try? ShapefileLocator.shapefiles(at: path).first else { return [] }
            return [set.shp, set.shx, set.dbf].compactMap { $0 }
        }
    }

    /// The files of the set at `shpPath`; just the `.shp` when it cannot be found (hashing it then reports that).
    /// With `boxDoubt` (a shard plan), the records' stored boxes are audited in the same pass
    /// (`ShapefileRecordDigest.digestAuditingBoxes`) and `boxDoubt` is told the `.shp` and the reason when they
    /// cannot be trusted.
    static func shapefileItems(_ shpPath: String, boxDoubt: ((String, String) -> Void)? = nil) -> [Fingerprint.Item] {
        guard let set = try? ShapefileLocator.shapefiles(at: shpPath).first else {
            boxDoubt?(shpPath, "its Shapefile set cannot be found")
            return [.file(tag: "shp", path: shpPath)]
        }
        let parts: [(String, String?)] = [
            ("shp", set.shp), ("shx", set.shx), ("dbf", set.dbf), ("prj", set.prj), ("cpg", set.cpg),
            ("memo", set.memo),
        ]
        let files = parts.compactMap { tag, path in path.map { Fingerprint.Item.file(tag: tag, path: $0) } }
        // The records in any order (`ShapefileRecordDigest`): a re-export in another order keeps the fingerprint.
        let records: [UInt8]?
        if let boxDoubt {
            let audited = ShapefileRecordDigest.digestAuditingBoxes(shp: set.shp, dbf: set.dbf, shx: set.shx)
            if let why = audited.boxDoubt { boxDoubt(set.shp, why) }
            records = audited.digest
        } else {
            records = ShapefileRecordDigest.digest(shp: set.shp, dbf: set.dbf)
        }
        guard let records else { return files }
        let ordered: Set<String> = ["shp", "shx", "dbf"]
        var items: [Fingerprint.Item] = []
        for (tag, path) in parts {
            guard let path else { continue }
            items.append(ordered.contains(tag) ? .listed(path: path) : .file(tag: tag, path: path))
        }
        return items + [.bytes(tag: "records", records)]
    }
}
