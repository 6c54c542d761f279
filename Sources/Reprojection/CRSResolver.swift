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
/// `SWEREF99_TM`), except for a bound CRS (WKT1 with `TOWGS84`), whose own datum shift is kept. Each call makes
/// its own short-lived PROJ context, so it may run on any thread.
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
            guard let prjText else { throw .missingPrj(file: prjFile) }
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
            if match.confidence == 100, !match.isBound, let epsgCRS = context.crsFromEPSG(match.code) {
                info.definition = "EPSG:\(match.code)"
                info.name = epsgCRS.name ?? match.name ?? info.name
                info.isGeographic = epsgCRS.isGeographic
            }
        }
        return Resolution(crs: info, confidence: match?.confidence, removedNodes: removed)
    }
}
