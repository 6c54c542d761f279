import GeometryOps
import KartpackCore
/// One feature handed to a worker.
package struct FeatureJob: Sendable {
    package var context: SetContext
    package var feature: Feature
    /// The feature's MVT id (`FeatureIDScheme`), given in file order by the read phase.
    package var id: UInt64
    /// `FeatureKey.content` of the feature as read (before projection): a region package's pre-projected features
    /// keep it, so their keys — and bytes — are those of the `convert --clip` build.
    package var content: UInt64

    package init(context: SetContext, feature: Feature, id: UInt64, content: UInt64? = nil) {
        self.context = context
        self.feature = feature
        self.id = id
        self.content = content ?? FeatureKey.content(feature.geometry, feature.properties)
    }
}

/// The per-worker chain of the feature phase, in this order:
///
/// 1. `ReprojectStage`: source CRS → Web Mercator (PROJ), polar check;
/// 2. `AntimeridianStage`: unwrap features crossing ±180° into copies on each side;
/// 3. `RepairStage`: into GEOS once per copy, polygons made valid;
/// 4. `ClipStage`: cut to the clip region (when there is one);
/// 5. `ClassifyStage`: the stylesheet's class, zooms, layer and kept attributes;
/// 6. `TileStage`: pieces per tile and zoom.
///
/// Created on its worker's thread and never shared: it owns that worker's GEOS engine and PROJ transformers.
package final class FeatureChain {
    private let engine = GeometryEngine()
    private let reproject = ReprojectStage()
    private let repair: RepairStage
    private let clip: ClipStage
    private let classify: ClassifyStage
    private let tiles: TileStage
    private let footprint: ShardFootprint?

    /// A chain for one worker; with `assistance`, a giant polygon's subtrees are offered to the team's `helpers`
    /// other workers (`TileStage.fork`), and this chain cuts theirs when it takes an offer.
    /// `board`: the team's open forks, shared by its chains (`SubtreeBoard`).
    package init(
        parameters: TilingParameters, assistance: WorkerAssistance<FeatureChain>? = nil, helpers: Int = 0,
        board: SubtreeBoard? = nil
    ) {
        footprint = parameters.shardFootprint
        repair = RepairStage(engine: engine)
        clip = ClipStage(engine: engine)
        classify = ClassifyStage(engine: engine)
        tiles = TileStage(engine: engine, parameters: parameters)
        if let assistance, helpers > 0 {
            let board = board ?? SubtreeBoard()
            tiles.board = board
            tiles.offerSubtrees = { group in
                board.post(group)
                for _ in 0..<helpers { assistance.offer { chain in chain.tiles.help(group) } }
            }
        }
    }

    /// Runs one feature through every stage. With `projected` (the repairs of an earlier `project`), the
    /// feature's geometry is already in Web Mercator and stage 1 is skipped.
    package func process(_ job: FeatureJob, projected: Set<ReasonCode>? = nil) -> TiledFeature {
        var inside = false
        do throws(FeatureIssue) {
            return .tiled(try run(job, projected: projected, inside: &inside))
        } catch {
            var issue = error
            issue.insideClip = inside
            return .rejected(issue)
        }
    }

    /// Stages 1–3 only, for a read-once region package (`RegionSource`): the geometry in Web Mercator, the
    /// repairs so far and whether stage 3 had to make it valid, or the issue a clipped run would reject the
    /// feature with before its clip stage.
    package func project(_ job: FeatureJob) -> Result<(Geometry, Set<ReasonCode>, madeValid: Bool), FeatureIssue> {
        do throws(FeatureIssue) {
            var repairs = Set<ReasonCode>()
            var g = job.feature.geometry
            try reproject.apply(&g, from: job.context.crs, repairs: &repairs)
            var scratch = repairs
            if g.kind.family == .point {
                _ = try repair.apply(g, repairs: &scratch)
            } else {
                for part in AntimeridianStage.apply(g, repairs: &scratch) where part.bounds != nil {
                    _ = try repair.apply(part, repairs: &scratch)
                }
            }
            return .success((g, repairs, scratch.contains(.makeValid)))
        } catch {
            return .failure(error)
        }
    }

    /// Stage 5 alone, for the piece store (`PieceReuse`): the style decisions (nil without a stylesheet) and their
    /// warnings, as `process` makes them when the feature's point on surface is `surface` (stored with its pieces);
    /// nil when a descendant selector asks for a point that was not stored.
    package func style(
        _ job: FeatureJob, surface: SurfacePoint
    ) throws(FeatureIssue) -> (styled: StyledFeature?, warnings: [FeatureIssue])? {
        guard let matcher = job.context.matcher else { return (nil, []) }
        let memo = SurfacePointMemo { () throws(GeometryError) in
            switch surface {
            case .point(let x, let y): return (x, y)
            case .noPoint: return nil
            case .notAsked, .failed: throw GeometryError.invalidArgument("no point on surface was stored")
            }
        }
        var warnings: [FeatureIssue] = []
        let styled = try classify.apply(
            job.feature, context: job.context, matcher: matcher, pointOnSurface: memo.get, warnings: &warnings)
        return memo.answer == surface ? (styled, warnings) : nil
    }

    /// One antimeridian copy inside GEOS, clipped, with its extent.
    private struct Copy {
        var handle: EngineGeometry
        var bounds: Bounds
    }

    /// `inside` becomes true once the clip stage of a clipped run left something of the feature.
    private func run(
        _ job: FeatureJob, projected: Set<ReasonCode>?, inside: inout Bool
    ) throws(FeatureIssue) -> TiledFeature.Tiling {
        let ctx = job.context
        let family = job.feature.geometry.kind.family
        var tiling = TiledFeature.Tiling(zooms: ctx.zooms)
        var g = job.feature.geometry
        if let projected {
            tiling.repairs = projected
        } else {
            try reproject.apply(&g, from: ctx.crs, repairs: &tiling.repairs)
        }
        if let footprint, !footprint.touches(g.bounds) {
            throw FeatureIssue(code: ShardFootprint.code, message: "no piece in this shard's tiles")
        }
        let unwrapped = AntimeridianStage.apply(g, repairs: &tiling.repairs)

        // Points stay in Swift unless a region clips them.
        if family == .point {
            var points = g
            if let region = ctx.clip {
                guard let b = g.bounds,
                    let (clipped, _) = try clip.apply(
                        repair.apply(g, repairs: &tiling.repairs), bounds: b, family: .point, region: region),
                    let kept = try swiftGeometry(clipped, family: .point)
                else { throw FeatureIssue(code: .outsideRegion, message: "feature lies outside the clip region") }
                points = kept
                inside = true
            }
            tiling.bounds = points.bounds ?? .empty
            if let matcher = ctx.matcher {
                let surface = SurfacePointMemo { () throws(GeometryError) in
                    try self.engine.pointOnSurface(self.engine.prepare(points))
                }
                let styled = try classify.apply(
                    job.feature, context: ctx, matcher: matcher, pointOnSurface: surface.get,
                    warnings: &tiling.warnings)
                tiling.surfacePoint = surface.answer
                tiling.zooms = styled.zooms
                tiling.styled = styled
            }
            tiles.tilePoints(points, zooms: tiling.zooms, into: &tiling)
            tiling.collapsedAt.sort()
            return tiling
        }

        var copies: [Copy] = []
        for part in unwrapped {
            guard let b = part.bounds else { continue }
            let handle = try repair.apply(part, repairs: &tiling.repairs)
            if let region = ctx.clip {
                guard let (clipped, cb) = try clip.apply(handle, bounds: b, family: family, region: region) else {
                    continue
                }
                copies.append(Copy(handle: clipped, bounds: cb))
            } else {
                copies.append(Copy(handle: handle, bounds: b))
            }
        }
        guard let first = copies.first else {
            if ctx.clip != nil {
                throw FeatureIssue(code: .outsideRegion, message: "feature lies outside the clip region")
            }
            throw FeatureIssue(code: .emptyGeometry, message: "geometry has no coordinates")
        }
        inside = ctx.clip != nil
        for c in copies { tiling.bounds.include(c.bounds) }
        if let matcher = ctx.matcher {
            let surface = SurfacePointMemo { () throws(GeometryError) in try self.engine.pointOnSurface(first.handle) }
            let styled = try classify.apply(
                job.feature, context: ctx, matcher: matcher, pointOnSurface: surface.get, warnings: &tiling.warnings)
            tiling.surfacePoint = surface.answer
            tiling.zooms = styled.zooms
            tiling.styled = styled
        }
        // Collapsed at a zoom only when no copy has anything there.
        var collapsed: Set<Int>?
        for c in copies {
            let here = try tiles.tileShape(
                c.handle, bounds: c.bounds, family: family, zooms: tiling.zooms, into: &tiling)
            collapsed = collapsed.map { $0.intersection(here) } ?? here
        }
        tiling.collapsedAt = (collapsed ?? []).sorted()
        if unwrapped.count > 1 { tiling.pieces.sort { $0.tile < $1.tile } }
        if family == .polygon, let labelled = tiling.styled?.labelled, !labelled.isEmpty {
            tiling.labelPieces = try labelPieces(copies.map(\.handle), zooms: tiling.zooms, labelled: labelled)
        }
        return tiling
    }

    /// One point piece per labelled zoom at the polygon's label point (the first copy whose point lies in the
    /// world), in the tile that contains it.
    private func labelPieces(
        _ handles: [EngineGeometry], zooms: ClosedRange<Int>, labelled: [Bool]
    ) throws(FeatureIssue) -> [TilePiece] {
        do throws(GeometryError) {
            let h = SphericalMercator.halfWorld
            for handle in handles {
                guard let p = try engine.labelPoint(handle), abs(p.x) < h, abs(p.y) < h else { continue }
                return zooms.compactMap { z in
                    guard labelled[z - zooms.lowerBound] else { return nil }
                    return tiles.pointPiece(x: p.x, y: p.y, zoom: z)
                }
            }
            return []
        } catch {
            throw FeatureIssue(code: error.diagnosticCode, message: error.description)
        }
    }

    private func swiftGeometry(_ h: EngineGeometry, family: GeometryFamily) throws(FeatureIssue) -> Geometry? {
        do throws(GeometryError) {
            return try engine.geometry(h, family: family)
        } catch {
            throw FeatureIssue(code: error.diagnosticCode, message: error.description)
        }
    }
}
