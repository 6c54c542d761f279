import Testing

@testable import VectorTile

/// `MVTValueTable`'s lookup (the stored hash, then the bytes eight at a time): one entry per distinct body, whatever
/// the lengths and the bytes that differ.
@Suite struct MVTValueTableLookupTests {
    @Test func equalComparesEveryByteAtAnyLength() {
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for _ in 0..<2000 {
            let a = (0..<next(40)).map { _ in UInt8(next(3)) }
            var b = a
            if !b.isEmpty, next(2) == 0 { b[next(b.count)] ^= UInt8(1 << next(8)) }
            if next(5) == 0 { b.append(0) }
            let same = a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { MVTValueTable.equal(pa, $0) } }
            #expect(same == (a == b), "\(a) \(b)")
        }
    }

    @Test func eachDistinctBodyIsOneEntryInFirstUseOrder() {
        var table = MVTValueTable()
        // Bodies of one length that differ in one byte (the same length, many near neighbours in the slots).
        let bodies = (0..<300).map { i in [UInt8](repeating: 7, count: 9) + [UInt8(i % 256), UInt8(i / 256)] }
        for (i, body) in bodies.enumerated() {
            #expect(table.index { $0.writeRaw(body) } == UInt32(i))
        }
        for (i, body) in bodies.enumerated().reversed() {
            #expect(table.index { $0.writeRaw(body) } == UInt32(i))
        }
        #expect(table.count == 300)
        #expect(Array(table.body(299)) == bodies[299])
    }
}
