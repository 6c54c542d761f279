import ConvertEngine
import KartpackCore
import Shapefile

extension PipelineRunner {
    /// For `validate`: a warning when a Shapefile source's stored record boxes cannot be trusted (a record whose box
    /// does not hold its vertices, a `.shx` out of file order: `ShapefileRecordDigest.digestAuditingBoxes`, the
    /// audit a shard plan makes), naming the file and the first record. One machine reads every record whatever
    /// its box; a shard plan lists the file under `recordBoxesNotTrusted` and every shard reads it whole.
    static func recordBoxDoubt(_ input: ConvertInput) -> String? {
        guard let set = input.files else { return nil }
        let audit = ShapefileRecordDigest.digestAuditingBoxes(shp: set.shp, dbf: set.dbf, shx: set.shx)
        guard audit.digest != nil, let why = audit.boxDoubt else { return nil }
        return "\(set.shp): \(why): its stored record boxes cannot be trusted, so every shard of a plan reads it "
            + "whole [\(ReasonCode.recordBoxUntrusted.rawValue)]"
    }
}
