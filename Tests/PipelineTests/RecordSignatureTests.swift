import KartpackCore
import Testing

@testable import ConvertEngine

/// `StoredRecord.addProperties(atZoom:to:)`, the tile signature's way from a coded record to its attributes' hash,
/// adds the same words as hashing the record's `properties(atZoom:)`: a changed signature would make every tile
/// of the next night re-encoded, and a signature that missed an attribute would copy a stale tile.
@Suite struct RecordSignatureTests {
    /// Every value kind, a repeated key, classes and flags at some zooms and not at others.
    private var records: [FeatureRecord] {
        let values: [(String, PropertyValue)] = [
            ("AVDNR", .uint(UInt64.max)), ("ALDER", .int(-42)), ("low", .int(Int64.min)), ("NAMN", .string("Ödmården")),
            ("note", .string("a text longer than one word of eight bytes")), ("blank", .string("")),
            ("AREAL", .double(-0.0)), ("yes", .bool(true)), ("no", .bool(false)), ("none", .null),
            ("NAMN", .string("twice")),
        ]
        return [
            FeatureRecord(id: 11, properties: Properties(values), rank: 5),
            FeatureRecord(
                id: nil, properties: Properties(Array(values.prefix(4))), rank: 6,
                classes: ["forest", nil, "mire"], flags: [[], ["protected"]], classBaseZoom: 4),
            FeatureRecord(id: 13, properties: Properties([]), rank: 7, flags: [["edge"], []], classBaseZoom: 1),
            FeatureRecord(
                id: 14, properties: Properties(Array(values.suffix(5))), rank: 8, classes: [nil, nil, "late"],
                flags: [[], []], classBaseZoom: 6),
        ]
    }

    @Test func sameWordsAsThePropertiesAtEveryZoom() throws {
        let table = RecordTable(records)
        for z in 0...9 {
            for i in table.indices {
                let stored = try table.record(i)
                // Words before and after, as in a signature.
                var decoded = TileHasher()
                decoded.add(99)
                decoded.add(stored.properties(atZoom: z))
                decoded.add(7)
                var direct = TileHasher()
                direct.add(99)
                stored.addProperties(atZoom: z, to: &direct)
                direct.add(7)
                #expect(direct.finish() == decoded.finish(), "record \(i), zoom \(z)")
            }
        }
    }

    @Test func anotherValueGivesAnotherHash() throws {
        let a = RecordTable([FeatureRecord(id: 1, properties: Properties([("ALDER", .string("1"))]), rank: 0)])
        let b = RecordTable([FeatureRecord(id: 1, properties: Properties([("ALDER", .string("2"))]), rank: 0)])
        var ha = TileHasher()
        var hb = TileHasher()
        try a.record(0).addProperties(atZoom: 5, to: &ha)
        try b.record(0).addProperties(atZoom: 5, to: &hb)
        #expect(ha.finish() != hb.finish())
    }
}
