import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

@Suite struct MVTEncoderTests {
    /// Two layers, hand-encoded byte by byte from the MVT 2.1 proto.
    @Test func goldenBytesForTwoLayers() throws {
        var a = MVTLayerBuilder(name: "a")
        a.addFeature(id: 1, type: .point, geometry: [9, 50, 34], properties: Properties([("k", .string("v"))]))
        var b = MVTLayerBuilder(name: "b", extent: 256)
        b.addFeature(
            id: nil, type: .lineString, geometry: [9, 4, 4, 18, 0, 16, 16, 0],
            properties: Properties([("n", .int(-1)), ("u", .uint(300))]))
        let bytes = try encodeTile([a, b])
        let layerA: [UInt8] = [
            0x1A, 0x1F,  // Tile.layers, 31 bytes
            0x78, 0x02,  // version 2
            0x0A, 0x01, 0x61,  // name "a"
            0x12, 0x0D,  // feature, 13 bytes
            0x08, 0x01,  // id 1
            0x12, 0x02, 0x00, 0x00,  // tags [0, 0]
            0x18, 0x01,  // type POINT
            0x22, 0x03, 0x09, 0x32, 0x22,  // geometry [9, 50, 34]
            0x1A, 0x01, 0x6B,  // key "k"
            0x22, 0x03, 0x0A, 0x01, 0x76,  // value { string_value "v" }
            0x28, 0x80, 0x20,  // extent 4096
        ]
        let layerB: [UInt8] = [
            0x1A, 0x2B,  // Tile.layers, 43 bytes
            0x78, 0x02,
            0x0A, 0x01, 0x62,  // name "b"
            0x12, 0x12,  // feature, 18 bytes (no id)
            0x12, 0x04, 0x00, 0x00, 0x01, 0x01,  // tags [0, 0, 1, 1]
            0x18, 0x02,  // type LINESTRING
            0x22, 0x08, 0x09, 0x04, 0x04, 0x12, 0x00, 0x10, 0x10, 0x00,
            0x1A, 0x01, 0x6E,  // key "n"
            0x1A, 0x01, 0x75,  // key "u"
            0x22, 0x02, 0x30, 0x01,  // value { sint_value -1 }
            0x22, 0x03, 0x28, 0xAC, 0x02,  // value { uint_value 300 }
            0x28, 0x80, 0x02,  // extent 256
        ]
        #expect(bytes == layerA + layerB)
        #expect(a.encodedSize == 31)
        #expect(b.encodedSize == 43)
    }

    @Test func keysAndValuesDedupedInFirstUseOrder() throws {
        var l = MVTLayerBuilder(name: "t")
        l.addFeature(
            id: 1, type: .point, geometry: [9, 2, 2],
            properties: Properties([("b", .uint(1)), ("a", .double(1.0)), ("c", .string("1"))]))
        l.addFeature(
            id: 2, type: .point, geometry: [9, 2, 2],
            properties: Properties([
                ("a", .int(1)), ("b", .double(1.0)), ("d", .bool(true)), ("e", .double(-0.0)),
                ("f", .double(0.0)), ("g", .int(-7)), ("h", .string("1")),
            ]))
        let tile = try MVTDecoder().decode(try encodeTile([l]))
        let layer = try #require(tile.layers.first)
        #expect(layer.keys == ["b", "a", "c", "d", "e", "f", "g", "h"])
        // uint 1 and int 1 share one entry; double 1.0 and string "1" are separate; -0.0 and 0.0 differ by bits.
        #expect(layer.values.count == 7)
        #expect(layer.values[0] == .uint(1))
        #expect(layer.values[1] == .double(1.0))
        #expect(layer.values[2] == .string("1"))
        #expect(layer.values[3] == .bool(true))
        #expect(layer.values[4].numericValue == 0 && layer.values[4].numericValue?.sign == .minus)
        #expect(layer.values[5].numericValue == 0 && layer.values[5].numericValue?.sign == .plus)
        #expect(layer.values[6] == .int(-7))
        #expect(l.valueCount == 7)
        let f2 = layer.features[1].properties
        #expect(f2["a"] == .uint(1))
        #expect(f2["h"] == .string("1"))
    }

    /// Keys are guessed from the feature before's property positions; a wrong guess must fall back to the table.
    @Test func keysFoundWhenTheirPositionsShiftBetweenFeatures() throws {
        let rows: [[(String, PropertyValue)]] = [
            [("a", .uint(1)), ("b", .uint(2)), ("c", .uint(3))],
            [("a", .uint(1)), ("b", .uint(2)), ("c", .uint(3))],
            [("c", .uint(3)), ("a", .uint(1))],
            [("x", .null), ("b", .uint(2)), ("d", .uint(4)), ("a", .uint(1))],
            [("a", .uint(5)), ("b", .uint(2)), ("c", .uint(3)), ("e", .uint(6))],
        ]
        var l = MVTLayerBuilder(name: "t")
        for (i, row) in rows.enumerated() {
            l.addFeature(id: UInt64(i), type: .point, geometry: [9, 2, 2], properties: Properties(row))
        }
        #expect(l.keys == ["a", "b", "c", "d", "e"])
        let layer = try #require(try MVTDecoder().decode(try encodeTile([l])).layers.first)
        for (feature, row) in zip(layer.features, rows) {
            let written = row.filter { !$0.1.isNull }
            #expect(feature.properties.keys == written.map(\.0))
            for (key, value) in written { #expect(feature.properties[key] == value) }
        }
    }

    @Test func nullsAndRepeatedKeysOmittedAndCounted() throws {
        var l = MVTLayerBuilder(name: "t")
        var props = Properties([("x", .null), ("y", .uint(2)), ("z", .null)])
        props.append("y", .uint(3))
        l.addFeature(id: nil, type: .point, geometry: [9, 2, 2], properties: props)
        #expect(l.nullsOmitted == 2)
        #expect(l.duplicateKeysOmitted == 1)
        #expect(l.keys == ["y"])
        let tile = try MVTDecoder().decode(try encodeTile([l]))
        let f = try #require(tile.layers.first?.features.first)
        #expect(f.properties.keys == ["y"])
        #expect(f.properties["y"] == .uint(2))
        #expect(f.id == nil)
    }

    @Test func emptyLayersSkippedAndEmptyGeometryRefused() throws {
        var empty = MVTLayerBuilder(name: "empty")
        let added = empty.addFeature(id: 1, type: .point, geometry: [], properties: Properties())
        #expect(!added)
        #expect(empty.emptyGeometriesSkipped == 1)
        #expect(empty.isEmpty)
        var full = MVTLayerBuilder(name: "full")
        full.addFeature(id: 1, type: .point, geometry: [9, 2, 2], properties: Properties())
        let tile = try MVTDecoder().decode(try encodeTile([empty, full]))
        #expect(tile.layers.map(\.name) == ["full"])
        #expect(try encodeTile([empty]).isEmpty)
        #expect(try encodeTile([]).isEmpty)
    }

    @Test func duplicateLayerNamesThrow() {
        var a = MVTLayerBuilder(name: "same")
        a.addFeature(id: 1, type: .point, geometry: [9, 2, 2], properties: Properties())
        #expect(throws: MVTEncodeError.duplicateLayerName("same")) { try encodeTile([a, a]) }
        // Canonically equivalent but different bytes: allowed (names compare byte for byte).
        var c = MVTLayerBuilder(name: "\u{E9}")
        c.addFeature(id: 1, type: .point, geometry: [9, 2, 2], properties: Properties())
        var d = MVTLayerBuilder(name: "e\u{301}")
        d.addFeature(id: 1, type: .point, geometry: [9, 2, 2], properties: Properties())
        #expect(throws: Never.self) { try encodeTile([c, d]) }
    }

    @Test func roundTripAllGeometryTypes() throws {
        let poly = MVTGeometryEncoderTests.specMultiPolygon
        var l = MVTLayerBuilder(name: "mixed", extent: 4096)
        l.addFeature(
            id: 7, type: .point, geometry: MVTGeometryEncoder.points([TilePoint(5, 7), TilePoint(3, 2)]),
            properties: Properties([("name", .string("Åre ✓")), ("big", .uint(UInt64.max)), ("neg", .int(Int64.min))]))
        l.addFeature(
            id: UInt64(1) << 53, type: .lineString,
            geometry: MVTGeometryEncoder.lines([
                [TilePoint(-80, -80), TilePoint(4176, 4176)], [TilePoint(1, 1), TilePoint(3, 5)],
            ]),
            properties: Properties([("pi", .double(3.141592653589793)), ("ok", .bool(false))]))
        l.addFeature(id: 0, type: .polygon, geometry: MVTGeometryEncoder.polygons(poly), properties: Properties())
        let bytes = try encodeTile([l])
        let tile = try MVTDecoder().decode(bytes)
        #expect(tile.warnings.isEmpty)
        let layer = try #require(tile.layers.first)
        #expect(layer.name == "mixed" && layer.version == 2 && layer.extent == 4096)
        #expect(layer.features.count == 3)
        let p = layer.features[0]
        #expect(p.id == 7 && p.type == .point)
        #expect(p.geometry.parts == [[TilePoint(5, 7), TilePoint(3, 2)]])
        #expect(p.properties["name"] == .string("Åre ✓"))
        #expect(p.properties["big"] == .uint(UInt64.max))
        #expect(p.properties["neg"] == .int(Int64.min))
        let line = layer.features[1]
        #expect(line.id == UInt64(1) << 53)
        #expect(
            line.geometry.parts == [[TilePoint(-80, -80), TilePoint(4176, 4176)], [TilePoint(1, 1), TilePoint(3, 5)]])
        #expect(line.properties["pi"] == .double(3.141592653589793))
        #expect(line.properties["ok"] == .bool(false))
        let polygon = layer.features[2]
        #expect(polygon.id == 0)
        #expect(polygon.geometry.parts == poly.flatMap { $0 })
        #expect(polygon.geometry.ringIsExterior == [true, true, false])
        #expect(polygon.geometry.polygonRanges == [0..<1, 1..<3])
        // Deterministic: the same input gives the same bytes.
        #expect(try encodeTile([l]) == bytes)
    }

    @Test func decodedGeometryConvertsBackToMetres() throws {
        let tile = TileCoordinate(z: 2, x: 1, y: 1)
        let transform = TileTransform(tile: tile, extent: 4096)
        let g = DecodedGeometry(
            parts: MVTGeometryEncoderTests.specMultiPolygon.flatMap { $0 }, ringIsExterior: [true, true, false])
        let geometry = try #require(g.geometry(type: .polygon, transform: transform))
        #expect(geometry.kind == .multiPolygon)
        #expect(geometry.polygonStarts == [0, 1])
        #expect(geometry.partStarts == [0, 5, 10])
        let b = SphericalMercator.bounds(of: tile)
        #expect(abs(geometry.point(0).x - b.minX) < 1e-6 && abs(geometry.point(0).y - b.maxY) < 1e-6)
        #expect(geometry.point(4) == geometry.point(0))  // rings are closed again
    }
}

@Suite struct MVTByteComparisonTests {
    @Test func keysAndStringValuesCompareByBytesNotCanonicalEquivalence() throws {
        let composed = "\u{E9}"  // é
        let decomposed = "e\u{301}"  // e + combining acute: equal as Swift Strings, different bytes
        #expect(composed == decomposed)
        var layer = MVTLayerBuilder(name: "t")
        var a = Properties()
        a.append(composed, .string(composed))
        var b = Properties()
        b.append(decomposed, .string(decomposed))
        layer.addFeature(id: 1, type: .point, geometry: [9, 2, 2], properties: a)
        layer.addFeature(id: 2, type: .point, geometry: [9, 4, 4], properties: b)
        #expect(layer.keys.map { Array($0.utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
        #expect(layer.valueCount == 2)
        let decoded = try MVTDecoder().decode(try encodeTile([layer])).layers[0].features
        #expect(decoded.map { Array($0.properties.keys[0].utf8) } == [Array(composed.utf8), Array(decomposed.utf8)])
    }
}

@Suite struct MVTValueTableTests {
    /// Thousands of distinct values, each used several times: the table grows and still finds every value once,
    /// in first-use order, and values of different wire types never meet.
    @Test func manyValuesInternedOnceInFirstUseOrder() throws {
        var layer = MVTLayerBuilder(name: "t")
        var expected: [PropertyValue] = []
        var seen = Set<String>()
        for i in 0..<12_000 {
            let k = (i * 7919) % 5_000
            let values: [PropertyValue] = [
                .string("place \(k) with a name longer than sixteen bytes"), .uint(UInt64(k % 300)),
                .int(-Int64(k % 50) - 1), .double(Double(k % 40) / 4), .bool(k % 2 == 0),
            ]
            for v in values where seen.insert("\(v)").inserted { expected.append(v) }
            let keys = ["name", "n", "neg", "d", "b"]
            layer.addFeature(
                id: nil, type: .point, geometry: [9, 2, 2], properties: Properties(Array(zip(keys, values))))
        }
        #expect(layer.valueCount == expected.count)
        let decoded = try MVTDecoder().decode(try encodeTile([layer])).layers[0]
        #expect(decoded.values == expected)
    }
}
