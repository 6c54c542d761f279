internal import CProj
public import KartpackCore

/// Transforms coordinates from a layer's CRS to WGS 84 or Web Mercator.
///
/// Each transformer owns its own PROJ context and operation and must stay on the thread that uses it (it is not
/// `Sendable`): make one per worker thread and source CRS, from the `Sendable` `CRSInfo`, and reuse it (building
/// one costs milliseconds; transforming costs about 0.3 µs per point).
///
/// How it works:
/// - The source CRS is rebuilt from `CRSInfo.definition`: `EPSG:NNNN` from `proj.db`, an override (`origin`
///   "option") through `proj_create`, anything else as an untrusted `.prj` (sanitized again, then
///   `proj_create_from_wkt`).
/// - PROJ builds source → EPSG:4326 (`proj_create_crs_to_crs_from_pj`), always followed by
///   `proj_normalize_for_visualization`, so input and output are (easting, northing) / (longitude, latitude)
///   whatever the EPSG axis order says.
/// - For Web Mercator the latitude is clamped to ±85.05112878° in geographic coordinates and then projected
///   (EPSG method 1024, `SphericalMercator`). PROJ itself does not clamp: latitude 90 gives y ≈ 2.4e8 m. An
///   EPSG:3857 source is passed through with y clamped to ±20037508.342789244.
/// - Antimeridian: longitudes are not wrapped. For a geographic source they are passed through as PROJ returns
///   them (179.9 and 180.1 stay neighbours); the Tiler handles features that cross ±180.
/// - Failures: a point PROJ cannot transform comes back as ±infinity in both coordinates, as does a latitude
///   beyond ±90°. `transform` returns how many such points there were; callers must drop or report them.
public final class CoordinateTransformer {
    private let context: ProjContext
    /// Source → EPSG:4326 (lon, lat); nil for the EPSG:3857 → EPSG:3857 pass-through.
    private let operation: ProjObject?
    /// The target CRS.
    public let target: TargetCRS
    /// The source CRS.
    public let source: CRSInfo
    /// Description of the chosen operation and its accuracy, for logs and a `ballpark_transform` warning.
    public let operationDescription: String
    /// True when PROJ could only find a ballpark operation (no datum shift known or its grid is missing), which
    /// can be off by metres to hundreds of metres.
    public let isBallpark: Bool
    /// The accuracy PROJ states for the chosen operation, in metres; nil when unknown.
    public let accuracy: Double?

    /// Builds the transform from `source` to `target`.
    public init(from source: CRSInfo, to target: TargetCRS) throws(ProjectionError) {
        self.source = source
        self.target = target
        let context = try ProjContext()
        self.context = context
        if target == .webMercator, source.definition.uppercased() == "EPSG:3857" {
            operation = nil
            operationDescription = "none (the source is already EPSG:3857; latitude clamped), accuracy 0 m"
            isBallpark = false
            accuracy = 0
            return
        }
        let src = try Self.buildSource(source, in: context)
        guard let dst = context.crsFromEPSG(4326) else {
            throw .projDatabaseMissing(detail: context.logText(or: "EPSG:4326 is not in proj.db"))
        }
        context.clearMessages()
        guard let rawOp = proj_create_crs_to_crs_from_pj(context.raw, src.raw, dst.raw, nil, nil) else {
            throw .cannotCreateTransform(
                source: source.label, target: target.label,
                detail: context.logText(or: "PROJ found no coordinate operation"))
        }
        let created = ProjObject(rawOp, context: context)
        guard let normalized = proj_normalize_for_visualization(context.raw, created.raw) else {
            throw .cannotCreateTransform(
                source: source.label, target: target.label,
                detail: context.logText(or: "proj_normalize_for_visualization failed"))
        }
        let op = ProjObject(normalized, context: context)
        operation = op
        let chosen = Self.describe(op, source: src, target: dst, in: context)
        var description = chosen.name
        if target == .webMercator { description += " + Popular Visualisation Pseudo-Mercator" }
        if let acc = chosen.accuracy {
            description += ", accuracy \(Self.format(acc)) m"
        } else {
            description += ", accuracy unknown"
        }
        if let note = chosen.note { description += " (\(note))" }
        operationDescription = description
        isBallpark = chosen.isBallpark
        accuracy = chosen.accuracy
        context.clearMessages()
    }

    /// Transforms interleaved `x0, y0, x1, y1, …` in place (one batched `proj_trans_generic` call, stride 16).
    /// A trailing odd value is left alone. Returns the number of points whose result is not finite; those points
    /// are set to ±infinity.
    public func transform(_ xy: inout [Double]) -> Int {
        let n = xy.count / 2
        guard n > 0 else { return 0 }
        return xy.withUnsafeMutableBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            if let operation {
                proj_errno_reset(operation.raw)
                _ = proj_trans_generic(
                    operation.raw, PJ_FWD, base, 16, n, base + 1, 16, n, nil, 0, 0, nil, 0, 0)
                return Self.finish(base, count: n, target: target)
            }
            // EPSG:3857 pass-through: only clamp y.
            var failures = 0
            for i in 0..<n {
                let x = base[2 * i]
                let y = base[2 * i + 1]
                if x.isFinite, y.isFinite {
                    base[2 * i + 1] = min(max(y, -SphericalMercator.halfWorld), SphericalMercator.halfWorld)
                } else {
                    base[2 * i] = .infinity
                    base[2 * i + 1] = .infinity
                    failures += 1
                }
            }
            return failures
        }
    }

    /// Transforms a geometry's coordinates in place (Z and M are kept as they are). Returns the number of points
    /// whose result is not finite.
    public func transform(_ geometry: inout Geometry) -> Int {
        transform(&geometry.xy)
    }

    /// Transforms a box with its edges densified (21 points per edge, `proj_trans_bounds`), so curved edges are
    /// covered. Returns nil when the box is empty or any result is not finite. When the result crosses the
    /// antimeridian (PROJ returns west > east), `maxX` is moved past 180° (longitudes are not wrapped).
    public func transformBounds(_ b: Bounds) -> Bounds? {
        guard !b.isEmpty, b.minX.isFinite, b.minY.isFinite, b.maxX.isFinite, b.maxY.isFinite else { return nil }
        guard let operation else {
            let h = SphericalMercator.halfWorld
            return Bounds(minX: b.minX, minY: max(b.minY, -h), maxX: b.maxX, maxY: min(b.maxY, h))
        }
        var west = 0.0
        var south = 0.0
        var east = 0.0
        var north = 0.0
        proj_errno_reset(operation.raw)
        let ok = proj_trans_bounds(
            context.raw, operation.raw, PJ_FWD, b.minX, b.minY, b.maxX, b.maxY, &west, &south, &east, &north, 21)
        context.clearMessages()
        guard ok == 1, west.isFinite, south.isFinite, east.isFinite, north.isFinite else { return nil }
        guard south >= -90 - Self.latitudeSlack, north <= 90 + Self.latitudeSlack, south <= north else { return nil }
        if west > east { east += 360 }
        south = max(south, -90)
        north = min(north, 90)
        switch target {
        case .wgs84:
            return Bounds(minX: west, minY: south, maxX: east, maxY: north)
        case .webMercator:
            let sw = SphericalMercator.project(lon: west, lat: south)
            let ne = SphericalMercator.project(lon: east, lat: north)
            return Bounds(minX: sw.x, minY: sw.y, maxX: ne.x, maxY: ne.y)
        }
    }

    // MARK: - Internals

    /// How far past ±90° a latitude may come back from PROJ (rounding) before it counts as a failure.
    private static let latitudeSlack = 1e-9

    /// Checks the (lon, lat) results, projects them for Web Mercator, and counts failures.
    private static func finish(_ base: UnsafeMutablePointer<Double>, count n: Int, target: TargetCRS) -> Int {
        var failures = 0
        for i in 0..<n {
            let lon = base[2 * i]
            let lat = base[2 * i + 1]
            guard lon.isFinite, lat.isFinite, abs(lat) <= 90 + latitudeSlack else {
                base[2 * i] = .infinity
                base[2 * i + 1] = .infinity
                failures += 1
                continue
            }
            if target == .webMercator {
                let p = SphericalMercator.project(lon: lon, lat: lat)
                base[2 * i] = p.x
                base[2 * i + 1] = p.y
            }
        }
        return failures
    }

    /// Rebuilds the source CRS from its definition; see the type's documentation.
    private static func buildSource(_ source: CRSInfo, in context: ProjContext) throws(ProjectionError) -> ProjObject {
        let definition = source.definition.trimmedWhitespace
        let upper = definition.uppercased()
        if upper.hasPrefix("EPSG:"), let code = Int(upper.dropFirst(5)), code > 0 {
            guard let crs = context.crsFromEPSG(code) else {
                throw .cannotCreateTransform(
                    source: source.label, target: "EPSG:4326",
                    detail: context.logText(or: "EPSG:\(code) is not in proj.db"))
            }
            return crs
        }
        if source.origin == "option" {
            return try context.crsFromOverride(definition).0
        }
        return try context.crsFromPrj(definition, file: nil).0
    }

    private struct Chosen {
        var name: String
        var accuracy: Double?
        var isBallpark: Bool
        var note: String?
    }

    /// Names the operation PROJ chose. When PROJ kept several candidates (it then picks one per point by area of
    /// use), the first of `proj_create_operations` (PROJ's preferred one) is described.
    private static func describe(_ op: ProjObject, source: ProjObject, target: ProjObject, in context: ProjContext)
        -> Chosen
    {
        context.clearMessages()
        if let name = op.name {
            let acc = proj_coordoperation_get_accuracy(context.raw, op.raw)
            let ballpark = proj_coordoperation_has_ballpark_transformation(context.raw, op.raw) == 1
            return Chosen(name: cleanName(name), accuracy: acc >= 0 ? acc : nil, isBallpark: ballpark, note: nil)
        }
        guard let factory = proj_create_operation_factory_context(context.raw, nil) else {
            return Chosen(name: "several candidate operations", accuracy: nil, isBallpark: false, note: nil)
        }
        defer { proj_operation_factory_context_destroy(factory) }
        proj_operation_factory_context_set_spatial_criterion(
            context.raw, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        proj_operation_factory_context_set_grid_availability_use(
            context.raw, factory, PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID)
        guard let list = proj_create_operations(context.raw, source.raw, target.raw, factory) else {
            return Chosen(name: "several candidate operations", accuracy: nil, isBallpark: false, note: nil)
        }
        defer { proj_list_destroy(list) }
        let count = Int(proj_list_get_count(list))
        guard count > 0, let first = proj_list_get(context.raw, list, 0) else {
            return Chosen(name: "several candidate operations", accuracy: nil, isBallpark: false, note: nil)
        }
        let best = ProjObject(first, context: context)
        let acc = proj_coordoperation_get_accuracy(context.raw, best.raw)
        let ballpark = proj_coordoperation_has_ballpark_transformation(context.raw, best.raw) == 1
        return Chosen(
            name: cleanName(best.name ?? "unnamed operation"), accuracy: acc >= 0 ? acc : nil, isBallpark: ballpark,
            note: count > 1 ? "best of \(count) candidates; PROJ picks one per point by area of use" : nil)
    }

    /// Drops the "axis order change (2D)" steps that normalization adds: they say nothing useful.
    private static func cleanName(_ name: String) -> String {
        let steps = name.split(separator: " + ", omittingEmptySubsequences: true).map(String.init)
        let kept = steps.filter { !$0.hasPrefix("axis order change") }
        return kept.isEmpty ? "axis order change only" : kept.joined(separator: " + ")
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
