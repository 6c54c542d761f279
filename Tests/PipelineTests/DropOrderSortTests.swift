import KartpackCore
import KartpackTestSupport
import Testing

@testable import ConvertEngine

/// `FeatureOrder.dropOrder` and `levels` on packed keys (issue 34) against the closure sorts they replaced, copied
/// here as they were: the same order for every mode, with tied priorities, −∞, −0 and +0, tiers, repeated anchors,
/// on one thread and on two (past `ParallelSort.minimum`).
@Suite struct DropOrderSortTests {
    private struct Input {
        var priority: [Double]
        var ranks: [UInt64]
        var tiers: [Int16]
        var morton: [UInt64]
    }

    private func makeInput(_ n: Int, seed: UInt64, tiered: Bool) -> Input {
        var rng = SplitMix64(seed: seed)
        var input = Input(priority: [], ranks: [], tiers: [], morton: [])
        for _ in 0..<n {
            let choices: [Double] = [-.infinity, -0.0, 0.0, 1.5, -2.25, 7, 1e300, -1e-300]
            input.priority.append(
                rng.next() % 3 == 0 ? choices[Int(rng.next() % 8)] : Double(Int64(rng.next() % 2000) - 1000) / 8)
            // Repeated ranks now and then (label copies share one; the sorts must still tell them apart).
            input.ranks.append(rng.next() % 5 == 0 ? rng.next() % 64 : rng.next())
            input.tiers.append(tiered ? Int16(Int64(rng.next() % 5) - 2) : 0)
            // A dense cluster, a spread, and repeated points.
            let anchor: FeatureAnchor
            switch rng.next() % 3 {
            case 0: anchor = FeatureAnchor(x: UInt32(rng.next() % 8), y: UInt32(rng.next() % 8))
            case 1: anchor = FeatureAnchor(x: (1 << 28) + UInt32(rng.next() % (1 << 16)), y: 1 << 28)
            default: anchor = FeatureAnchor(x: UInt32(rng.next() % (1 << 30)), y: UInt32(rng.next() % (1 << 30)))
            }
            input.morton.append(anchor.morton)
        }
        return input
    }

    /// The order as `FeatureOrder.init` made it before the packed keys (its closures, verbatim but for the names).
    private func reference(_ input: Input, mode: ThinningMode) -> [Int] {
        let (priority, tier) = (input.priority, input.tiers)
        let rank = input.ranks
        let byImportance = priority.indices.sorted { a, b in
            if priority[a] != priority[b] { return priority[a] > priority[b] }
            let ra = rank[a]
            let rb = rank[b]
            return ra != rb ? ra < rb : a < b
        }
        var importance = [Int32](repeating: 0, count: priority.count)
        for (k, i) in byImportance.enumerated() { importance[i] = Int32(k) }
        var order = byImportance
        if mode == .spacing {
            let levels = referenceLevels(input.morton, importance: importance, tiers: tier)
            let shuffle = rank.map { FeatureRank.mix($0) }
            order = priority.indices.sorted { a, b in
                if tier[a] != tier[b] { return tier[a] > tier[b] }
                if levels[a] != levels[b] { return levels[a] < levels[b] }
                return shuffle[a] != shuffle[b] ? shuffle[a] < shuffle[b] : importance[a] < importance[b]
            }
        } else if mode == .random {
            order = priority.indices.sorted { a, b in
                if tier[a] != tier[b] { return tier[a] > tier[b] }
                let ra = rank[a]
                let rb = rank[b]
                return ra != rb ? ra < rb : a < b
            }
        } else if tier.contains(where: { $0 != 0 }) {
            order = byImportance.enumerated().sorted { a, b in
                tier[a.element] != tier[b.element] ? tier[a.element] > tier[b.element] : a.offset < b.offset
            }.map(\.element)
        }
        return order
    }

    private func referenceLevels(_ morton: [UInt64], importance: [Int32], tiers: [Int16] = []) -> [UInt8] {
        let sorted = morton.indices.sorted { a, b in
            if !tiers.isEmpty, tiers[a] != tiers[b] { return tiers[a] > tiers[b] }
            return morton[a] != morton[b] ? morton[a] < morton[b] : a < b
        }
        let never = UInt8(FeatureAnchor.bits + 1)
        var level = [UInt8](repeating: never, count: morton.count)
        for k in 0...FeatureAnchor.bits {
            let shift = UInt64(2 * (FeatureAnchor.bits - k))
            var start = 0
            while start < sorted.count {
                let cell = morton[sorted[start]] >> shift
                var best = sorted[start]
                var end = start + 1
                while end < sorted.count, morton[sorted[end]] >> shift == cell,
                    tiers.isEmpty || tiers[sorted[end]] == tiers[sorted[start]]
                {
                    if importance[sorted[end]] < importance[best] { best = sorted[end] }
                    end += 1
                }
                if level[best] == never { level[best] = UInt8(k) }
                start = end
            }
        }
        return level
    }

    @Test(arguments: ThinningMode.allCases, [false, true])
    func packedKeysGiveTheOrderOfTheClosureSorts(mode: ThinningMode, tiered: Bool) {
        for (n, seed) in [(0, 1 as UInt64), (1, 2), (700, 3), (ParallelSort.minimum * 2 + 5, 4)] {
            let input = makeInput(n, seed: seed, tiered: tiered)
            let expected = reference(input, mode: mode)
            for threads in [1, 2] {
                let got = FeatureOrder.dropOrder(
                    priority: input.priority, ranks: input.ranks, tiers: input.tiers,
                    morton: mode == .spacing ? input.morton : [], mode: mode, threads: threads)
                #expect(got.order == expected, "\(mode) tiered \(tiered) n \(n) threads \(threads)")
            }
        }
    }

    @Test func levelsWithRepeatedImportanceKeepTheFirstInMortonOrder() {
        var rng = SplitMix64(seed: 9)
        let morton = (0..<3000).map { _ in rng.next() % (1 << 20) }
        let importance = (0..<3000).map { _ in Int32(rng.next() % 40) }
        let tiers = (0..<3000).map { _ in Int16(rng.next() % 3) }
        #expect(FeatureOrder.levels(morton, importance: importance) == referenceLevels(morton, importance: importance))
        #expect(
            FeatureOrder.levels(morton, importance: importance, tiers: tiers, threads: 2)
                == referenceLevels(morton, importance: importance, tiers: tiers))
    }

    @Test func twoThreadSortsGiveTheOneThreadOrder() {
        var rng = SplitMix64(seed: 5)
        for n in [ParallelSort.minimum, ParallelSort.minimum + 1, ParallelSort.minimum * 3 + 7] {
            let keys = (0..<n).map { i in PackedKey(first: rng.next() % 4, second: rng.next() % 100, index: i) }
            var one = keys
            var two = keys
            ParallelSort.sort(&one, threads: 1)
            ParallelSort.sort(&two, threads: 2)
            #expect(one == two)
            #expect(one == keys.sorted())
        }
    }
}

/// `RecordKeys` with the position hint: numbers in first-seen order, keys told apart by their bytes (a precomposed
/// and a decomposed "é" are two keys), a wrong or out-of-range hint only costs the lookup.
@Suite struct RecordKeysTests {
    @Test func hintsNeverChangeANumber() {
        let precomposed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let sequence = ["name", precomposed, "pop", decomposed, "name", "pop", precomposed, decomposed, "", "name"]
        var plain = RecordKeys()
        var hinted = RecordKeys()
        var numbers: [Int] = []
        for (n, key) in sequence.enumerated() {
            let number = plain.number(key)
            numbers.append(number)
            #expect(hinted.number(key, hint: n % 5) == number, "\(key) with hint \(n % 5)")
            #expect(hinted.number(key, hint: number) == number)
            #expect(hinted.number(key, hint: -1) == number)
        }
        #expect(numbers == [0, 1, 2, 3, 0, 2, 1, 3, 4, 0])
        #expect(plain.names == hinted.names)
        #expect(hinted.names == ["name", precomposed, "pop", decomposed, ""])
    }
}
