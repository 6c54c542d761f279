import KartpackCore
import Foundation
import ConvertEngine

/// The short end-of-run summary printed by `convert`.
enum ConvertSummary {
    static func text(_ r: ConvertReport) -> String {
        var s = "wrote \(r.output): \(r.tiles) tiles (\(r.tileContents) distinct), \(bytes(r.bytes))\n"
        s += "features: \(r.featuresRead) read, \(r.featuresWritten) written"
        let rejected = r.rejected.values.reduce(0, +)
        if rejected > 0 { s += ", \(rejected) rejected (\(list(r.rejected)))" }
        s += "\n"
        if !r.repaired.isEmpty { s += "repaired: \(list(r.repaired))\n" }
        for i in r.inputs where i.error != nil { s += "rejected file \(i.path): \(i.error ?? "")\n" }
        s += "zoom  tiles      bytes    largest  dropped\n"
        for z in r.zooms {
            s +=
                pad(String(z.zoom), 4) + pad(String(z.tiles), 7) + pad(bytes(z.bytes), 11)
                + pad(bytes(z.largestTileBytes), 11)
            s += "  " + (z.dropped.isEmpty ? "-" : list(z.dropped)) + "\n"
        }
        s += String(format: "time: %.2f s", r.seconds)
        if let peak = r.peakRSSBytes { s += ", peak memory \(bytes(peak))" }
        if let sort = r.sort, sort.spilledRuns > 0 {
            s += ", \(sort.spilledRuns) sort runs (\(bytes(sort.scratchBytes)) of scratch)"
        }
        s += "\n"
        return s
    }

    static func list<Key: Comparable & CustomStringConvertible>(_ d: [Key: Int]) -> String {
        d.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    static func bytes(_ n: Int) -> String {
        if n < 10_000 { return "\(n) B" }
        if n < 10_000_000 { return String(format: "%.1f kB", Double(n) / 1000) }
        return String(format: "%.1f MB", Double(n) / 1_000_000)
    }

    static func pad(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
}
