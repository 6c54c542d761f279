import Foundation

/// `--memory-budget SIZE` and the pipeline key `memoryBudget`: how much memory the tile pieces of a conversion may
/// hold before they are sorted into runs on disk.
package enum MemoryBudget {
    /// 256 MiB: with the feature records, one zoom level's pieces at the encode phase and the encoded tiles, a
    /// country-sized build stays within a 2 GiB machine.
    package static let defaultBytes = 256 << 20
    /// The smallest budget accepted (tests use it to force many runs).
    package static let minimumBytes = 64 << 10

    /// Parses `512M`, `2G`, `1.5GiB`, `300MB`, `65536` (bytes); units are powers of 1024, case-insensitive, an
    /// optional `i`/`iB`/`B`. Nil for anything else, or below `minimumBytes` or above 1 TiB.
    package static func parse(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var digits = Substring(t)
        var unit = ""
        while let last = digits.last, last.isLetter {
            unit = String(last) + unit
            digits = digits.dropLast()
        }
        let k = 1024.0
        let scales: [String: Double] = [
            "": 1, "b": 1, "k": k, "kb": k, "kib": k, "m": k * k, "mb": k * k, "mib": k * k,
            "g": k * k * k, "gb": k * k * k, "gib": k * k * k, "t": k * k * k * k, "tb": k * k * k * k,
            "tib": k * k * k * k,
        ]
        guard let scale = scales[unit], let n = Double(digits.trimmingCharacters(in: .whitespaces)), n.isFinite,
            n >= 0
        else { return nil }
        let bytes = (n * scale).rounded()
        guard bytes >= Double(minimumBytes), bytes <= k * k * k * k else { return nil }
        return Int(bytes)
    }
}
