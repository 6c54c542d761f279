/// Finds the known key closest to a misspelt one, for `unknown key; did you mean minZoom?`.
package enum KeySuggestion {
    /// The closest key by case-insensitive edit distance (insertions, deletions, substitutions and swaps of
    /// neighbours), when it is close enough: at most a third of the key's length, and at least 1. Ties go to the
    /// earlier key in `known`.
    package static func closest(to key: String, among known: [String]) -> String? {
        let k = Array(key.lowercased())
        var best: (key: String, distance: Int)?
        for candidate in known {
            let d = distance(k, Array(candidate.lowercased()))
            if d < (best?.distance ?? Int.max) { best = (candidate, d) }
        }
        guard let best, best.distance <= max(1, k.count / 3) else { return nil }
        return best.key
    }

    /// Optimal-string-alignment distance (Damerau–Levenshtein without repeated edits of one substring).
    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { v = min(v, previous2[j - 2] + 1) }
                current[j] = v
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
