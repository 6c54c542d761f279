import ConvertEngine
import Foundation
import KartpackCore
import Nightly
import Shapefile

extension ShardPlanner {
    /// Every file the fingerprint hashes, in its order: the other files, each input's Shapefile sets (`.shp`,
    /// `.shx`, `.dbf`, `.prj`, `.cpg`, memo) or GeoPackage, the clip's Shapefile set. Which files these are depends
    /// only on the command line and the folders' listings, so the same list means the same items were hashed.
    package func files() -> [String] {
        var out = otherFiles
        for input in options.inputs {
            guard let layers = try? input.inputSets() else {
                out.append(input.path)
                continue
            }
            for layer in layers {
                switch layer {
                case .shapefile(let set): out += Self.shapefileFiles(set.shp)
                case .geoPackage(let path, _): out.append(path)
                }
            }
        }
        if case .polygons(let path, _, _)? = options.clip?.source { out += Self.shapefileFiles(path) }
        return out
    }

    /// The files of the Shapefile set of `shpPath` (the `.shp` alone when the set cannot be found).
    static func shapefileFiles(_ shpPath: String) -> [String] {
        guard let set = try? ShapefileLocator.shapefiles(at: shpPath).first else { return [shpPath] }
        return [set.shp, set.shx, set.dbf, set.prj, set.cpg, set.memo].compactMap { $0 }
    }

    /// The fingerprint and untrusted boxes (`audit`) with the stamps of the files hashed, for the plan: nil stamps
    /// when a file changed while it was hashed or too recently (`InputStamps.settled`).
    package func stampedAudit() throws(NightlyError) -> (
        fingerprint: String, untrustedBoxes: UntrustedRecordBoxes, stamps: InputStamps?
    ) {
        let paths = files()
        let before = InputStamps.take(paths)
        let (fingerprint, untrusted) = try audit()
        return (fingerprint, untrusted, InputStamps.settled(before: before, after: InputStamps.take(paths)))
    }

    /// The inputs' fingerprint now, as a shard checks it against its plan's: `planned` itself when the plan
    /// recorded `stamps` and every file the fingerprint would hash still has them (`InputStamps`), else computed
    /// by hashing every file (`fingerprint()`).
    package func currentFingerprint(planned: String, stamps: InputStamps?) throws(NightlyError) -> String {
        if let stamps, InputStamps.take(files()) == stamps { return planned }
        return try fingerprint()
    }
}
