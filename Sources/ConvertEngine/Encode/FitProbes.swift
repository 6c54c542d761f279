/// The compressed sizes a tile's cut-off search found (`ThinPass.fittingCutoff`), by probe (the number of distinct
/// drop positions kept; nil: over the feature limit), and a guess at the probe its binary search takes next.
///
/// A binary search takes one probe after another; a spare core can try the next one while this one runs, if it
/// knows which: the probe on the side this one is likely to fall, read off the sizes found at the probes around it
/// (a tile's size grows about linearly with what it keeps). A wrong guess costs one trial, never the answer: the
/// search asks the same probes in the same order, and those found ahead are only looked up.
struct FitProbes {
    var limit: Int
    var sizes: [Int: Int?] = [:]

    /// The probe after `mid` in a search between `lo` (fits) and `hi` (does not), when `mid` is expected to fit
    /// or not from the sizes at `lo` and `hi` (nil when there is none, or when it is known already).
    func likelyNext(lo: Int, mid: Int, hi: Int) -> Int? {
        var fits = false
        if let low = sizes[lo] ?? nil, let high = sizes[hi] ?? nil, hi > lo {
            let expected = Double(low) + Double(high - low) * Double(mid - lo) / Double(hi - lo)
            fits = expected <= Double(limit)
        }
        let next = fits ? (mid + hi) / 2 : (lo + mid) / 2
        guard next != mid, next != lo, next != hi, sizes[next] == nil else { return nil }
        return next
    }
}
