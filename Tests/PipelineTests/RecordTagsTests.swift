import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// `StoredRecord.addTags(atZoom:to:)`, the encoder's way from a coded record to a feature's MVT tags, writes the
/// same layer bytes as the record's `properties(atZoom:)` through `MVTLayerBuilder.addFeature(properties:)`.
@Suite struct RecordTagsTests {
    private let records = [
        FeatureRecord(
            id: 1,
            properties: Properties([
                ("name", .string("Göteborg")), ("admin1", .string("Västra Götaland, a long value past 15 bytes")),
                ("pop", .int(-7)), ("n", .uint(9)), ("area", .double(-0.0)), ("ok", .bool(true)), ("gone", .null),
                ("name", .string("repeated key")), ("empty", .string("")),
            ]), rank: 0),
        // A class at zooms 3 and 5 over an attribute named `class`, flags at zoom 4.
        FeatureRecord(
            id: nil,
            properties: Properties([("class", .string("from the data")), ("name", .string("Göteborg")), ("x", .int(5))]
            ),
            rank: 1, classes: ["road", nil, "path"], flags: [[], ["bridge", "x"]], classBaseZoom: 3),
        FeatureRecord(id: 3, properties: Properties(), rank: 2, flags: [["tunnel"]], classBaseZoom: 0),
        FeatureRecord(
            id: 4, properties: Properties([("pop", .uint(7)), ("ok", .bool(false)), ("area", .double(0.5))]), rank: 3),
    ]

    @Test func sameBytesAsThePropertiesAtEveryZoom() throws {
        let table = RecordTable(records)
        for z in 0...8 {
            var viaProperties = MVTLayerBuilder(name: "l")
            var viaTags = MVTLayerBuilder(name: "l")
            for round in 0..<2 {
                for i in table.indices {
                    let stored = try table.record(i)
                    let geometry: [UInt32] = [9, UInt32(2 * i), UInt32(2 * round)]
                    viaProperties.addFeature(
                        id: stored.id, type: .point, geometry: geometry, properties: stored.properties(atZoom: z))
                    viaTags.addFeature(id: stored.id, type: .point, geometry: geometry) { tags in
                        stored.addTags(atZoom: z, to: &tags)
                    }
                }
            }
            #expect(try encodeTile([viaTags]) == encodeTile([viaProperties]), "zoom \(z)")
            #expect(viaTags.valueCount == viaProperties.valueCount)
            #expect(viaTags.nullsOmitted == viaProperties.nullsOmitted && viaTags.nullsOmitted > 0)
            #expect(viaTags.duplicateKeysOmitted == viaProperties.duplicateKeysOmitted)
        }
    }

    /// Only a record with a class or a flag at some zoom is marked decorated; classes and flags that are all empty
    /// (a stylesheet that matched nothing) leave it plain, written with its attributes as read at every zoom.
    @Test func onlyARecordWithAClassOrAFlagIsDecorated() throws {
        let empty = FeatureRecord(
            id: 5, properties: Properties([("a", .int(1))]), rank: 4, classes: [nil, nil], flags: [[], []],
            classBaseZoom: 2)
        let table = RecordTable(records + [empty])
        #expect(try table.indices.map { try table.record($0).decorated } == [false, true, true, false, false])
        let plain = try table.record(4)
        for z in 0...5 { #expect(plain.properties(atZoom: z) == empty.properties) }
    }
}
