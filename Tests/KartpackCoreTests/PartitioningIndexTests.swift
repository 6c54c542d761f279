import KartpackCore
import Testing

/// `partitioningIndex(where:)` is the one binary search of the engine (lower and upper bounds of sorted arrays):
/// compared with a linear scan on every length and value of small sorted arrays with repeats, and on slices.
@Suite struct PartitioningIndexTests {
    @Test func givesTheFirstElementOfTheSecondPartition() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...40 {
            let sorted = (0..<length).map { _ in Int.random(in: 0...12, using: &generator) }.sorted()
            for value in -1...13 {
                let lower = sorted.firstIndex { $0 >= value } ?? sorted.endIndex
                let upper = sorted.firstIndex { $0 > value } ?? sorted.endIndex
                #expect(sorted.partitioningIndex { $0 >= value } == lower)
                #expect(sorted.partitioningIndex { $0 > value } == upper)
            }
        }
    }

    @Test func searchesASliceByItsOwnIndices() {
        let values = [9, 1, 3, 3, 5, 8, 0]
        let slice = values[1..<6]
        #expect(slice.partitioningIndex { $0 >= 3 } == 2)
        #expect(slice.partitioningIndex { $0 > 3 } == 4)
        #expect(slice.partitioningIndex { $0 > 100 } == 6)
        #expect(slice.partitioningIndex { _ in true } == 1)
        #expect(values[3..<3].partitioningIndex { _ in true } == 3)
    }

    @Test func comparesTuplesForTwoWordKeys() {
        let keys: [(high: UInt64, low: UInt64)] = [(1, 5), (1, 9), (2, 0), (2, 0), (7, 1)]
        #expect(keys.partitioningIndex { ($0.high, $0.low) >= (2, 0) } == 2)
        #expect(keys.partitioningIndex { ($0.high, $0.low) >= (1, 6) } == 1)
        #expect(keys.partitioningIndex { ($0.high, $0.low) >= (9, 9) } == 5)
    }
}
