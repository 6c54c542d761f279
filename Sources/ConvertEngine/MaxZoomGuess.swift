import Foundation
import KartpackCore
import Reprojection
import Shapefile

/// The max zoom `--max-zoom auto` chose, and why (the report's `maxZoomChosen`).
package struct MaxZoomChoice: Codable, Sendable, Hashable {
    /// The chosen max zoom.
    package var zoom: Int
    /// One line saying why, as the log shows it.
    package var reason: String
    /// The spacing the zoom was chosen from, in Web Mercator metres (nil when the inputs had no two distinct
    /// vertices).
    package var spacingMetres: Double?
    /// What `spacingMetres` measures: `vertices` (median spacing of consecutive vertices of lines and polygons),
    /// `points` (10th percentile of the spacing of point features) or `none`.
    package var basis: String
    /// Distances the statistic was computed from (after sampling).
    package var samples: Int
}

/// `--max-zoom auto` (as tippecanoe's `-zg`): the lowest zoom that keeps the source's precision, chosen from a
/// pre-pass over the inputs before the feature phase (which needs the max zoom to cut tiles).
///
/// The pre-pass reads every input's geometry once (its filter applied), projects it to Web Mercator as the
/// feature phase does, and measures two spacings in Web Mercator metres:
/// - **vertices**: the median distance between consecutive distinct vertices of line and polygon parts; the zoom
///   must give that spacing at least `vertexUnits` (8) tile units: rounding a vertex to the tile grid then turns a
///   segment by at most about 7°, and simplification at one unit keeps the shape (tippecanoe's `-zg` uses the
///   same ratio for the spacing within features);
/// - **points**: the 10th percentile of the distances between consecutive distinct point locations in Z (Morton)
///   order, a cheap stand-in for nearest-neighbour distances; the zoom must give it `pointUnits` (2) tile units,
///   so nearby points stay apart.
///
/// The higher of the two zooms is chosen, at least the min zoom and at most `cap` (16). A tile unit at zoom z is
/// 40,075,016.7 m / 2^z / extent. Memory is bounded: at most `sampleLimit` distances and point locations are kept;
/// beyond that every k-th one is (k doubling, deterministic), and point spacing is scaled by 1/√k to make up for
/// the sparser sample. Single-threaded and in input order, so the choice never depends on `--threads`.
package struct MaxZoomGuess {
    static let vertexUnits = 8.0
    static let pointUnits = 2.0
    package static let cap = 16
    package static let sampleLimit = 1 << 20

    package let options: ConvertOptions

    /// The choice for `options` (its `minZoom`, `extent`, inputs and filters).
    package func choose() throws -> MaxZoomChoice {
        var vertex = Sample()
        var points = Sample()
        let quiet = DiagnosticSink(sampleLimit: 0)
        for input in options.inputs {
            // An input that cannot be opened or projected is left to the read phase, which rejects it with its reason.
            guard let sets = try? input.inputSets() else { continue }
            for set in sets {
                // Read as the features will be (`IntakeReader`); what cannot be projected is the read phase's to count.
                guard
                    var intake = try? IntakeReader(
                        set: set, sourceCRS: input.sourceCRS, encoding: input.encoding, diagnostics: quiet)
                else { continue }
                while let r = try? intake.next() {
                    if let filter = input.filter, !filter.matches(r.feature.properties) { continue }
                    guard case .success(let g) = r.projected else { continue }
                    Self.measure(g, vertex: &vertex, points: &points)
                }
            }
        }
        return decide(vertex: vertex, points: points)
    }

    /// Adds a projected geometry's vertex spacings (lines, polygons) or locations (points).
    static func measure(_ g: Geometry, vertex: inout Sample, points: inout Sample) {
        let xy = g.xy
        if g.kind == .point || g.kind == .multiPoint {
            var i = 0
            while i + 1 < xy.count {
                points.add(location: xy[i], xy[i + 1])
                i += 2
            }
            return
        }
        for p in 0..<g.partCount {
            let start = Int(g.partStarts[p])
            let end = p + 1 < g.partCount ? Int(g.partStarts[p + 1]) : g.pointCount
            guard end - start >= 2 else { continue }
            for k in start + 1..<end {
                let dx = xy[2 * k] - xy[2 * k - 2]
                let dy = xy[2 * k + 1] - xy[2 * k - 1]
                let d = (dx * dx + dy * dy).squareRoot()
                if d > 0, d.isFinite { vertex.add(d) }
            }
        }
    }

    /// The zoom from the two samples (see the type).
    func decide(vertex: Sample, points: Sample) -> MaxZoomChoice {
        let floor = options.minZoom
        var candidates: [(zoom: Int, spacing: Double, basis: String, text: String, units: Double, n: Int)] = []
        if let median = vertex.quantile(0.5) {
            candidates.append(
                (
                    needed(median, units: Self.vertexUnits), median, "vertices", "median vertex spacing",
                    Self.vertexUnits, vertex.values.count
                ))
        }
        if let spacing = points.pointSpacing() {
            candidates.append(
                (
                    needed(spacing, units: Self.pointUnits), spacing, "points",
                    "point spacing (10th percentile)", Self.pointUnits, points.locations.count
                ))
        }
        guard let best = candidates.max(by: { $0.zoom < $1.zoom }) else {
            return MaxZoomChoice(
                zoom: floor, reason: "no two distinct vertices or points in the inputs: the min zoom \(floor)",
                spacingMetres: nil, basis: "none", samples: 0)
        }
        let zoom = min(max(best.zoom, floor), max(Self.cap, floor))
        let metres = Self.format(best.spacing)
        let units = String(Int(best.units))
        var reason: String
        if best.zoom > zoom {
            reason = "\(best.text) \(metres) m needs z\(best.zoom) for \(units) tile units; capped at z\(Self.cap)"
        } else if best.zoom < zoom {
            reason =
                "\(best.text) \(metres) m is \(units) tile units already at z\(best.zoom); the min zoom is \(floor)"
        } else {
            let unit = Self.format(best.units * tileUnit(zoom))
            reason = "\(best.text) \(metres) m ≥ \(units) tile units (\(unit) m) at z\(zoom)"
        }
        if best.basis == "points", points.stride > 1 { reason += ", sampled 1 in \(points.stride)" }
        if best.basis == "vertices", vertex.stride > 1 { reason += ", sampled 1 in \(vertex.stride)" }
        return MaxZoomChoice(
            zoom: zoom, reason: reason, spacingMetres: best.spacing, basis: best.basis, samples: best.n)
    }

    /// One tile unit at zoom `z`, in Web Mercator metres.
    func tileUnit(_ z: Int) -> Double { 2 * SphericalMercator.halfWorld / Double(1 << z) / Double(options.extent) }

    /// The lowest zoom (≥ 0) at which `spacing` is at least `units` tile units.
    package func needed(_ spacing: Double, units: Double) -> Int {
        var z = 0
        while z < 30, spacing < units * tileUnit(z) { z += 1 }
        return z
    }

    package static func format(_ v: Double) -> String {
        v >= 100 ? String(Int(v.rounded())) : String(format: v >= 10 ? "%.1f" : "%.2f", v)
    }

    /// A bounded, deterministic sample: every `stride`-th value offered is kept; when `sampleLimit` are kept,
    /// every other one is dropped and the stride doubles.
    package struct Sample {
        private(set) var values: [Double] = []
        private(set) var locations: [UInt64] = []
        private(set) var stride = 1
        private var offered = 0

        package mutating func add(_ d: Double) {
            offered += 1
            guard offered % stride == 0 else { return }
            values.append(d)
            if values.count >= MaxZoomGuess.sampleLimit {
                values = Swift.stride(from: 1, to: values.count, by: 2).map { values[$0] }
                stride *= 2
            }
        }

        /// A Web Mercator location, kept as its cell of the 2³⁰ world grid (Morton code; about 4 cm).
        package mutating func add(location x: Double, _ y: Double) {
            offered += 1
            guard offered % stride == 0 else { return }
            let h = SphericalMercator.halfWorld
            let n = Double(1 << FeatureAnchor.bits)
            func cell(_ v: Double) -> UInt32 { UInt32(min(max((v + h) / (2 * h) * n, 0), n - 1)) }
            locations.append(FeatureAnchor(x: cell(x), y: cell(-y)).morton)
            if locations.count >= MaxZoomGuess.sampleLimit {
                locations = Swift.stride(from: 1, to: locations.count, by: 2).map { locations[$0] }
                stride *= 2
            }
        }

        /// The `q` quantile of `values` (nil when empty).
        func quantile(_ q: Double) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            return sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
        }

        /// The 10th percentile of the distances between consecutive distinct locations in Morton order, in metres,
        /// scaled by 1/√stride (nil with fewer than two distinct locations).
        func pointSpacing() -> Double? {
            let sorted = locations.sorted()
            let metresPerCell = 2 * SphericalMercator.halfWorld / Double(1 << FeatureAnchor.bits)
            var gaps = Sample()
            for (a, b) in zip(sorted, sorted.dropFirst()) where a != b {
                let (ax, ay) = Self.unspread(a)
                let (bx, by) = Self.unspread(b)
                let dx = Double(ax) - Double(bx)
                let dy = Double(ay) - Double(by)
                gaps.add((dx * dx + dy * dy).squareRoot() * metresPerCell)
            }
            return gaps.quantile(0.1).map { $0 / Double(stride).squareRoot() }
        }

        /// The two coordinates of a Morton code (x in the even bits).
        static func unspread(_ m: UInt64) -> (UInt32, UInt32) {
            func compact(_ v: UInt64) -> UInt32 {
                var x = v & 0x5555_5555_5555_5555
                x = (x | x >> 1) & 0x3333_3333_3333_3333
                x = (x | x >> 2) & 0x0F0F_0F0F_0F0F_0F0F
                x = (x | x >> 4) & 0x00FF_00FF_00FF_00FF
                x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF
                x = (x | x >> 16) & 0x0000_0000_FFFF_FFFF
                return UInt32(x)
            }
            return (compact(m), compact(m >> 1))
        }
    }

    /// Creates a value from each of its stored properties.
    package init(options: ConvertOptions) {
        self.options = options
    }
}
