import Foundation
public import KartpackCore

/// Resolves the CRS of a layer.
///
/// `override` (the text the user typed for `--source-crs`: "EPSG:3006", a PROJ string, WKT…) wins; it is trusted
/// and goes through `proj_create`. Otherwise the `.prj` text (ESRI or OGC WKT1, or WKT2) is used; it is untrusted,
/// so it is checked and cleaned by `WKTSanitizer` and parsed only with `proj_create_from_wkt`. A missing `.prj`
/// without an override is an error that tells the user to pass `--source-crs`.
///
/// The CRS is then identified against EPSG (`proj_identify`): `epsg` is set at confidence 90 or more, the best
/// match winning, and at 100 the definition becomes `EPSG:NNNN` (with its name, such as "SWEREF99 TM" for ESRI's
/// `SWEREF99_TM`), except for a bound CRS (WKT1 with `TOWGS84`), whose own datum shift is kept. A datum without a
/// name on the WGS 84 ellipsoid (ESRI's `D_unknown`, which PROJ matches at 60 because of the name alone) is taken as
/// WGS 84 when everything else equals the match, as GDAL does: a UTM zone 18N file becomes EPSG:32618, with
/// `confidence` and `identification` saying so. Each call makes its own short-lived PROJ context, so it may run on
/// any thread.
public enum CRSResolver {
    /// A resolved CRS plus notes about what was changed on the way.
    public struct Resolution: Sendable, Hashable {
        /// The resolved CRS.
        public var crs: CRSInfo
        /// The identification confidence (0…100) of `crs.epsg`, or nil when no EPSG match was found.
        public var confidence: Int?
        /// What the `.prj` sanitizer removed (upper-case keywords such as `EXTENSION`, `BBOX`, `VERTCS`, one per
        /// node, in document order); empty for an override.
        public var removedNodes: [String]
    }

    /// The lowest `proj_identify` confidence at which `CRSInfo.epsg` is set.
    public static let minimumConfidence = 90
    /// The lowest confidence accepted for a CRS whose datum has no name but sits on the WGS 84 ellipsoid, when its
    /// PROJ string equals the match's (PROJ gives 60 for the datum name alone; GDAL takes such matches too).
    public static let minimumUnnamedDatumConfidence = 50

    /// Resolves the CRS: `override` first, then `prjText`; `prjFile` is the `.prj` name used in messages.
    public static func resolve(prjText: String?, override: String?, prjFile: String?) throws(ProjectionError)
        -> CRSInfo
    {
        try resolveDetailed(prjText: prjText, override: override, prjFile: prjFile).crs
    }

    /// Like `resolve`, also returning the confidence and what the sanitizer removed (for a diagnostic).
    public static func resolveDetailed(prjText: String?, override: String?, prjFile: String?)
        throws(ProjectionError) -> Resolution
    {
        let context = try ProjContext()
        let crs: ProjObject
        let definition: String
        let origin: String
        var removed: [String] = []
        if let override {
            (crs, definition) = try context.crsFromOverride(override)
            origin = "option"
        } else {
            guard let prjText else {
                if let prjFile, let size = oversizedPrj(prjFile) {
                    throw .prjTooLarge(file: prjFile, size: size, limit: WKTSanitizer.maxBytes)
                }
                throw .missingPrj(file: prjFile)
            }
            let (parsed, sanitized) = try context.crsFromPrj(prjText, file: prjFile)
            crs = parsed
            definition = sanitized.wkt
            removed = sanitized.removed
            origin = "prj"
        }
        let match = context.identify(crs)
        var info = CRSInfo(
            name: crs.name ?? "unknown", epsg: nil, definition: definition, origin: origin,
            isGeographic: crs.isGeographic)
        if let match, match.confidence >= minimumConfidence {
            info.epsg = match.code
            info.confidence = match.confidence
            if match.confidence == 100, !match.isBound, let epsgCRS = context.crsFromEPSG(match.code) {
                info.definition = "EPSG:\(match.code)"
                info.name = epsgCRS.name ?? match.name ?? info.name
                info.isGeographic = epsgCRS.isGeographic
            }
        } else if let match, match.confidence >= minimumUnnamedDatumConfidence, !match.isBound,
            context.hasUnnamedDatumOnWGS84(crs), let epsgCRS = context.crsFromEPSG(match.code),
            context.matchesExceptDatumName(crs, epsgCRS)
        {
            // ESRI's D_unknown on the WGS 84 ellipsoid (a UTM zone 18N file): PROJ finds the WGS 84 CRS at a low
            // confidence because of the datum name only; GDAL reports the same code.
            info.epsg = match.code
            info.confidence = match.confidence
            info.definition = "EPSG:\(match.code)"
            info.name = epsgCRS.name ?? match.name ?? info.name
            info.isGeographic = epsgCRS.isGeographic
            info.identification =
                "the datum has no name (\(context.datumName(crs) ?? "unknown")) but the WGS 84 ellipsoid, and "
                + "everything else matches EPSG:\(match.code) (\(info.name)); taken as WGS 84 (PROJ's confidence "
                + "\(match.confidence)%)"
        }
        return Resolution(crs: info, confidence: match?.confidence, removedNodes: removed)
    }

    /// The size of `path` when it names a `.prj` (any case) that is a regular file larger than the sanitizer's limit:
    /// the Shapefile reader does not read such files (`prj_too_large`), so no text arriving for an existing `.prj`
    /// means it was too large, not missing.
    static func oversizedPrj(_ path: String) -> Int? {
        guard path.lowercased().hasSuffix(".prj"),
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue, size > WKTSanitizer.maxBytes
        else { return nil }
        return size
    }
}
