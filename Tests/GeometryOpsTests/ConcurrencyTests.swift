import Dispatch
import KartpackCore
import Synchronization
import Testing

@testable import GeometryOps

@Suite struct ConcurrencyTests {
    /// A fixed workload through every operation; returns a summary that must not depend on the thread.
    static func workload() throws(GeometryError) -> [Double] {
        let engine = GeometryEngine()
        var out: [Double] = []
        let clipper = try TileClipper(engine: engine, rect: Bounds(minX: -50, minY: -50, maxX: 50, maxY: 50))
        for i in 0..<150 {
            let s = 1 + Double(i % 7)
            let fixed = try engine.makeValid(engine.prepare(TestShapes.bowtie(scale: s)), family: .polygon)
            if let fixed { out.append(try engine.area(fixed)) }
            let disc = try engine.prepare(TestShapes.discWithHoles())
            if let grown = try engine.buffer(disc, distance: s),
                let clipped = try clipper.clip(grown),
                let snapped = try engine.snapToGrid(clipped, gridSize: 1),
                let g = try engine.geometry(snapped)
            {
                out.append(Double(g.pointCount))
                out.append(TestShapes.area(g))
            }
        }
        return out
    }

    @Test func twoEnginesOnTwoThreads() throws {
        let expected = try Self.workload()
        let results = Mutex<[Int: [Double]]>([:])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do {
                let r = try Self.workload()
                results.withLock { $0[i] = r }
            } catch let error as GeometryError {
                failures.withLock { $0.append(error.description) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let all = results.withLock { $0 }
        #expect(all[0] == expected)
        #expect(all[1] == expected)
        #expect(expected.count == 150 * 3)
    }
}
