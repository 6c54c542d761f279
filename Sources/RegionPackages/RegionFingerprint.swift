import Foundation
import KartpackCore
import Checksum
import ConvertEngine
import Nightly
import PipelineFiles

/// The fingerprint of one region's package: SHA-256 over everything its bytes depend on — a format tag, the Kartpack
/// version and its output format (`OutputFormat.version`), the package settings (pipeline text, stylesheet bytes,
/// buffer, zooms, format), the region (id, name, polygon), per input its layer (name, fields, zooms) and every feature
/// routed to the region (`RegionRouting`: those touching its polygon) in any order (feature id, attributes, projected
/// geometry, repairs: each feature hashed alone, the digests summed, so a re-export in another record order keeps the
/// fingerprint), and the ancestor polygons of descendant selectors that touch the region (they can change its classes).
/// Nothing else of an input counts: a clipped package's metadata counts only the records inside its clip
/// (`ConvertReport.Input.insideClip`), so adding, deleting or changing a record changes only the regions whose polygons
/// it touches. Record numbers are left out (a deleted record renumbers the later ones); they reach the package only as
/// feature ids when the layer has no id field.
package struct RegionFingerprint {
    private var hash = SHA256()

    /// Starts with the settings shared by every region of a run (`outputFormat`: the bytes this build writes).
    package init(settings: [String], outputFormat: Int = OutputFormat.version) {
        add("kartpack-region-fingerprint 5")
        add(Kartpack.version)
        add("output format \(outputFormat)")
        for s in settings { add(s) }
    }

    package mutating func add(_ s: String) {
        hash.update(String(s.utf8.count) + ":")
        hash.update(s)
    }

    package mutating func add(_ d: Double) { add(String(d.bitPattern, radix: 16)) }

    package mutating func add(_ g: Geometry) {
        add(g.kind.rawValue)
        add(String(g.xy.count))
        g.xy.withUnsafeBytes { hash.update($0) }
        add(g.partStarts.map(String.init).joined(separator: ","))
        add(g.polygonStarts.map(String.init).joined(separator: ","))
    }

    package mutating func add(_ p: Properties) {
        add(String(p.count))
        for (k, v) in zip(p.keys, p.values) {
            add(k)
            switch v {
            case .string(let s): add("s" + s)
            case .int(let i): add("i\(i)")
            case .uint(let u): add("u\(u)")
            case .double(let d): add("d" + String(d.bitPattern, radix: 16))
            case .bool(let b): add(b ? "bt" : "bf")
            case .null: add("n")
            }
        }
    }

    package mutating func add<Key: Comparable & CustomStringConvertible>(_ counts: [Key: Int]) {
        for (k, v) in counts.sorted(by: { $0.key < $1.key }) { add("\(k)=\(v)") }
    }

    /// The fingerprint of one region.
    package static func region(
        _ region: RegionRecord, routed: [[Int]], ancestors: [RegionRouting.AncestorPolygon], source: RegionSource,
        settings: [String]
    ) -> String {
        var f = RegionFingerprint(settings: settings)
        f.add(region.id)
        f.add(region.name)
        for g in region.polygons { f.add(g) }
        var layer = 0
        for entry in source.entries {
            switch entry {
            case .rejected(let r):
                f.add("rejected \(r.path) \(r.errorCode?.rawValue ?? "") \(r.error ?? "")")
            case .layer(let pre):
                let context = pre.layer.context
                f.add("layer \(pre.layer.name) zooms \(context.zooms.lowerBound)-\(context.zooms.upperBound)")
                f.add(pre.layer.fields.map { "\($0.name) \($0.type)" }.joined(separator: ","))
                f.add(String(routed[layer].count))
                // Each feature hashed on its own and the digests added up: the record order falls out.
                var lanes = [UInt64](repeating: 0, count: 4)
                for i in routed[layer] {
                    let p = pre.features[i]
                    var one = RegionFingerprint(settings: [])
                    one.add(String(p.job.id))
                    one.add(p.job.feature.properties)
                    one.add(p.job.feature.geometry)
                    one.add(p.repairs.sorted().map(\.rawValue).joined(separator: ","))
                    one.addDigest(to: &lanes)
                }
                f.add(lanes.map { String($0, radix: 16) }.joined(separator: ","))
                layer += 1
            }
        }
        if !ancestors.isEmpty {
            f.add("ancestors \(ancestors.count)")
            var lanes = [UInt64](repeating: 0, count: 4)
            for a in ancestors {
                guard let g = source.regions.ancestors[a.selector]?.geometries[a.polygon] else { continue }
                var one = RegionFingerprint(settings: [])
                one.add(String(a.selector))
                one.add(g)
                one.addDigest(to: &lanes)
            }
            f.add(lanes.map { String($0, radix: 16) }.joined(separator: ","))
        }
        return f.hash.finalizeHex()
    }

    /// The digest of what was added so far (hex).
    package var hex: String {
        var copy = hash
        return copy.finalizeHex()
    }

    /// Adds this hash's digest to `lanes` (four 64-bit sums): a digest of a set, whatever its order.
    private mutating func addDigest(to lanes: inout [UInt64]) {
        let digest = hash.finalize()
        for k in 0..<4 { lanes[k] &+= digest[(8 * k)..<(8 * k + 8)].reduce(0) { $0 << 8 | UInt64($1) } }
    }
}
