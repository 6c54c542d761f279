import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

/// The error a decode ends with, or nil when it succeeds; `validate` must end the same way (the same error, or
/// success with the same warning count).
private func failure(_ bytes: [UInt8], limits: MVTDecoder.Limits = MVTDecoder.Limits()) -> MVTDecodeError? {
    let decoder = MVTDecoder(limits: limits)
    let decoded = outcome { () throws(MVTDecodeError) in try decoder.decode(bytes).warningCount }
    let validated = outcome { () throws(MVTDecodeError) in try decoder.validate(bytes) }
    #expect(decoded == validated, "validate disagrees with decode")
    if case .failure(let e) = decoded { return e }
    return nil
}

/// A decoder call's warning count or error.
private func outcome(_ body: () throws(MVTDecodeError) -> Int) -> Result<Int, MVTDecodeError> {
    do throws(MVTDecodeError) { return .success(try body()) } catch { return .failure(error) }
}

private func failure(layer: [UInt8]) -> MVTDecodeError.Kind? { failure(RawTile.tile([layer]))?.kind }

private func failure(feature: [UInt8], keys: [String] = [], values: [[UInt8]] = [], version: UInt64 = 2)
    -> MVTDecodeError.Kind?
{
    failure(layer: RawTile.layer(version: version, features: [feature], keys: keys, values: values))
}

@Suite struct MVTDecoderTests {
    @Test func decodesTheSpecMultiPolygon() throws {
        let f = RawTile.feature(id: 1, tags: [0, 0], type: 3, geometry: MVTGeometryEncoderTests.specMultiPolygonStream)
        let tile = try MVTDecoder().decode(
            RawTile.tile([
                RawTile.layer(name: "hello", features: [f], keys: ["hello"], values: [RawTile.stringValue("world")])
            ]))
        let feature = try #require(tile.layers.first?.features.first)
        #expect(feature.geometry.parts == MVTGeometryEncoderTests.specMultiPolygon.flatMap { $0 })
        #expect(feature.geometry.ringIsExterior == [true, true, false])
        #expect(feature.properties["hello"] == .string("world"))
    }

    @Test func emptyInputIsAnEmptyTile() throws {
        let tile = try MVTDecoder().decode([])
        #expect(tile.layers.isEmpty)
    }

    @Test func rejectsTruncatedTiles() throws {
        var l = MVTLayerBuilder(name: "roads")
        l.addFeature(
            id: 3, type: .lineString, geometry: [9, 4, 4, 18, 0, 16, 16, 0],
            properties: Properties([("k", .string("v"))]))
        let bytes = try encodeTile([l])
        #expect(failure(bytes) == nil)
        // Every strict prefix fails cleanly (never traps, never silently succeeds with partial data).
        for n in 1..<bytes.count {
            let e = failure(Array(bytes.prefix(n)))
            #expect(e != nil, "prefix \(n)")
            if case .malformed = e?.kind {
            } else if n > 2 {
                Issue.record("prefix \(n): \(String(describing: e))")
            }
        }
    }

    @Test func rejectsBadTags() {
        let keys = ["a", "b"]
        let values = [RawTile.stringValue("x")]
        #expect(failure(feature: RawTile.feature(tags: [0]), keys: keys, values: values) == .oddTagCount)
        #expect(failure(feature: RawTile.feature(tags: [2, 0]), keys: keys, values: values) == .keyIndexOutOfRange(2))
        #expect(
            failure(feature: RawTile.feature(tags: [0, 1]), keys: keys, values: values) == .valueIndexOutOfRange(1))
        #expect(
            failure(feature: RawTile.feature(tags: [0, 0, 0, 0]), keys: keys, values: values)
                == .duplicateKeyInFeature(0))
        #expect(failure(feature: RawTile.feature(tags: [0, 0, 1, 0]), keys: keys, values: values) == nil)
        // Tags in a layer without tables.
        #expect(failure(feature: RawTile.feature(tags: [0, 0])) == .keyIndexOutOfRange(0))
    }

    @Test func rejectsBadValuesAndUTF8() {
        var twoFields = ProtobufWriter()
        twoFields.writeStringField(1, "x")
        twoFields.writeVarintField(5, 1)
        #expect(
            failure(feature: RawTile.feature(tags: [0, 0]), keys: ["k"], values: [twoFields.bytes]) == .invalidValue)
        #expect(failure(feature: RawTile.feature(tags: [0, 0]), keys: ["k"], values: [[]]) == .invalidValue)
        var badString = ProtobufWriter()
        badString.writeBytesField(1, [0x66, 0xC3, 0x28])
        #expect(
            failure(feature: RawTile.feature(tags: [0, 0]), keys: ["k"], values: [badString.bytes]) == .invalidUTF8)
        // Bad UTF-8 in a key and in the layer name.
        var layer = ProtobufWriter()
        layer.writeVarintField(15, 2)
        layer.writeStringField(1, "l")
        layer.writeBytesField(3, [0xFF])
        #expect(failure(layer: layer.bytes) == .invalidUTF8)
        var name = ProtobufWriter()
        name.writeVarintField(15, 2)
        name.writeBytesField(1, [0xED, 0xA0, 0x80])  // an encoded surrogate
        #expect(failure(layer: name.bytes) == .invalidUTF8)
        // A float value and an int_value decode.
        var float = ProtobufWriter()
        float.writeFloatField(2, 0.5)
        var int = ProtobufWriter()
        int.writeVarintField(4, UInt64(bitPattern: -2))
        let tile = try? MVTDecoder().decode(
            RawTile.tile([
                RawTile.layer(
                    features: [RawTile.feature(tags: [0, 0, 1, 1])], keys: ["f", "i"], values: [float.bytes, int.bytes])
            ]))
        #expect(tile?.layers.first?.features.first?.properties["f"] == .double(0.5))
        #expect(tile?.layers.first?.features.first?.properties["i"] == .int(-2))
    }

    @Test func rejectsBadLayers() {
        #expect(failure(layer: RawTile.layer(name: nil)) == .missingLayerName)
        #expect(failure(layer: RawTile.layer(version: 3)) == .unsupportedVersion(3))
        #expect(failure(layer: RawTile.layer(extent: 0)) == .invalidExtent(0))
        #expect(
            failure(RawTile.tile([RawTile.layer(name: "x"), RawTile.layer(name: "x")]))?.kind == .duplicateLayerName)
        // A layers field with the wrong wire type.
        #expect(failure([0x18, 0x01]).map { if case .malformed = $0.kind { true } else { false } } == true)
    }

    @Test func versionOneAndMissingVersionAreWarnings() throws {
        let tile = try MVTDecoder().decode(
            RawTile.tile([
                RawTile.layer(name: "v1", version: 1), RawTile.layer(name: "none", version: nil),
                RawTile.layer(name: "empty", features: []),
            ]))
        #expect(tile.layers.map(\.version) == [1, 1, 2])
        #expect(tile.warnings.map(\.kind) == [.versionOne, .missingVersion, .emptyLayer])
        #expect(tile.warningCount == 3)
    }

    @Test func rejectsBadCommandStreams() {
        func geometryFailure(_ type: UInt64, _ g: [UInt32], version: UInt64 = 2) -> MVTDecodeError.Kind? {
            failure(feature: RawTile.feature(type: type, geometry: g), version: version)
        }
        // Points.
        #expect(geometryFailure(1, []) == .missingGeometry)
        #expect(geometryFailure(1, [9, 50]) == .truncatedGeometry)
        #expect(geometryFailure(1, [1]) == .unexpectedCommand(.moveTo, count: 0))
        #expect(geometryFailure(1, [10, 2, 2]) == .unexpectedCommand(.lineTo, count: 1))
        #expect(geometryFailure(1, [9, 2, 2, 15]) == .unexpectedCommand(.closePath, count: 1))
        #expect(geometryFailure(1, [12, 0, 0]) == .unknownCommand(4))
        #expect(geometryFailure(1, [(UInt32(MVTCommand.maxCount) << 3) | 1, 2, 2]) == .truncatedGeometry)
        // Lines.
        #expect(geometryFailure(2, [9, 4, 4]) == .truncatedGeometry)
        #expect(geometryFailure(2, [17, 4, 4, 2, 2]) == .unexpectedCommand(.moveTo, count: 2))
        #expect(geometryFailure(2, [9, 4, 4, 18, 0, 16, 16, 0, 15]) == .unexpectedCommand(.closePath, count: 1))
        #expect(geometryFailure(2, [9, 4, 4, 10, 0, 0]) == .zeroLengthLineTo)
        #expect(geometryFailure(2, [9, 4, 4, 10, 0, 0], version: 1) == nil)  // allowed before 2.1
        #expect(geometryFailure(2, [9, 4, 4, 2]) == .unexpectedCommand(.lineTo, count: 0))
        // Polygons.
        #expect(geometryFailure(3, [9, 6, 12, 18, 10, 12, 24, 44]) == .truncatedGeometry)
        #expect(geometryFailure(3, [9, 6, 12, 10, 10, 12, 15]) == .unexpectedCommand(.lineTo, count: 1))
        #expect(geometryFailure(3, [9, 6, 12, 18, 10, 12, 24, 44, 23]) == .unexpectedCommand(.closePath, count: 2))
        #expect(geometryFailure(3, [9, 6, 12, 18, 10, 12, 24, 44, 15, 15]) == .unexpectedCommand(.closePath, count: 1))
        // Geometry type out of range.
        #expect(geometryFailure(4, [9, 2, 2]) == .invalidGeometryType(4))
        // Coordinates leaving Int32.
        let big = ZigZag.encode(Int32.max)
        #expect(geometryFailure(1, [17, big, 0, big, 0]) == .coordinateOverflow)
    }

    @Test func rejectsWrongWinding() {
        // The spec polygon reversed: negative area, so in version 2 it cannot start a polygon.
        let reversed = MVTGeometryEncoder.polygons([[[TilePoint(3, 6), TilePoint(20, 34), TilePoint(8, 12)]]])
        #expect(failure(feature: RawTile.feature(type: 3, geometry: reversed)) == .firstRingNotExterior)
        // Version 1: the first ring's sign defines exteriors.
        let v1 = try? MVTDecoder().decode(
            RawTile.tile([
                RawTile.layer(
                    version: 1, features: [RawTile.feature(type: 3, geometry: reversed)])
            ]))
        #expect(v1?.layers.first?.features.first?.geometry.ringIsExterior == [true])
    }

    @Test func zeroAreaRingsAndClosingRepeatsAreWarnings() throws {
        // A collinear ring (0,0),(5,0),(10,0) has zero area; then a ring repeating its first point.
        var g = MVTGeometryEncoder.polygons([[[TilePoint(0, 0), TilePoint(5, 0), TilePoint(10, 0)]]])
        g += [9, 19, 0, 34, 20, 0, 0, 20, 19, 0, 0, 19, 15]  // cursor (10,0) → (0,0)→(10,0)→(10,10)→(0,10)→(0,0), close
        let tile = try MVTDecoder().decode(
            RawTile.tile([RawTile.layer(features: [RawTile.feature(type: 3, geometry: g)])]))
        #expect(tile.warnings.map(\.kind) == [.zeroAreaRing, .closingPointRepeated])
        let f = try #require(tile.layers.first?.features.first)
        #expect(f.geometry.parts == [[TilePoint(0, 0), TilePoint(10, 0), TilePoint(10, 10), TilePoint(0, 10)]])
    }

    @Test func unknownFieldsAreSkippedAndUnpackedFieldsAccepted() throws {
        var feature = ProtobufWriter()
        feature.writeVarintField(3, 1)
        feature.writeVarintField(4, 9)  // unpacked geometry
        feature.writeVarintField(4, 50)
        feature.writeVarintField(4, 34)
        feature.writeFixed64Field(20, 7)  // unknown extension field
        var layer = ProtobufWriter()
        layer.writeVarintField(15, 2)
        layer.writeStringField(1, "x")
        layer.writeBytesField(2, feature.bytes)
        layer.writeFixed32Field(16, 1)
        var tile = ProtobufWriter()
        tile.writeBytesField(3, layer.bytes)
        tile.writeStringField(17, "extension")
        let decoded = try MVTDecoder().decode(tile.bytes)
        #expect(decoded.layers.first?.features.first?.geometry.parts == [[TilePoint(25, 17)]])
    }

    @Test func limitsAreEnforced() {
        var limits = MVTDecoder.Limits()
        limits.maxFeatures = 1
        let two = RawTile.tile([RawTile.layer(features: [RawTile.feature(), RawTile.feature()])])
        #expect(failure(two) == nil)
        #expect(failure(two, limits: limits).map { if case .limitExceeded = $0.kind { true } else { false } } == true)
        limits = MVTDecoder.Limits()
        limits.maxVertices = 2
        let three = RawTile.tile([
            RawTile.layer(features: [RawTile.feature(type: 1, geometry: [25, 2, 2, 2, 2, 2, 2])])
        ])
        #expect(failure(three, limits: limits).map { if case .limitExceeded = $0.kind { true } else { false } } == true)
        limits = MVTDecoder.Limits()
        limits.maxLayers = 1
        #expect(failure(RawTile.tile([RawTile.layer(name: "a"), RawTile.layer(name: "b")]), limits: limits) != nil)
    }

    @Test func errorsCarryContext() {
        let bad = RawTile.tile([
            RawTile.layer(name: "ok"),
            RawTile.layer(name: "roads", features: [RawTile.feature(), RawTile.feature(tags: [1])]),
        ])
        let e = failure(bad)
        #expect(e?.layer == "roads")
        #expect(e?.layerIndex == 1)
        #expect(e?.feature == 1)
        #expect(e?.code == .mvtOddTagCount)
        #expect(e?.description == "layer \"roads\" (#1) feature 1: mvt_odd_tag_count")
    }

    /// 20 000 random buffers plus 20 000 mutations of a valid tile: decoding never traps.
    @Test func randomBytesNeverTrap() throws {
        var rng = SplitMix64(seed: 0x4B61_7274_7061_636B)
        var outcomes = (ok: 0, failed: 0)
        for _ in 0..<20_000 {
            let n = Int.random(in: 0...96, using: &rng)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if failure(bytes) == nil { outcomes.ok += 1 } else { outcomes.failed += 1 }
        }
        var l = MVTLayerBuilder(name: "seed")
        l.addFeature(
            id: 1, type: .polygon, geometry: MVTGeometryEncoderTests.specMultiPolygonStream,
            properties: Properties([("a", .string("x")), ("b", .double(2.5)), ("c", .int(-4))]))
        l.addFeature(
            id: 2, type: .lineString, geometry: [9, 4, 4, 18, 0, 16, 16, 0], properties: Properties([("a", .uint(9))]))
        let valid = try encodeTile([l])
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                switch Int.random(in: 0...2, using: &rng) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1:
                    bytes.insert(
                        UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...bytes.count, using: &rng))
                default: if bytes.count > 1 { bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng)) }
                }
            }
            if failure(bytes) == nil { outcomes.ok += 1 } else { outcomes.failed += 1 }
        }
        #expect(outcomes.ok + outcomes.failed == 40_000)
        #expect(outcomes.failed > 0 && outcomes.ok > 0)
    }

    /// Random command streams inside well-formed features reach the geometry checks: never a trap, and every
    /// accepted polygon starts with an exterior ring.
    @Test func randomCommandStreamsNeverTrap() {
        var rng = SplitMix64(seed: 7)
        let decoder = MVTDecoder()
        var accepted = 0
        for _ in 0..<20_000 {
            let type = UInt64.random(in: 0...3, using: &rng)
            let n = Int.random(in: 0...24, using: &rng)
            let stream: [UInt32] = (0..<n).map { _ in
                switch Int.random(in: 0...9, using: &rng) {
                case 0: UInt32.random(in: 0...UInt32.max, using: &rng)
                case 1, 2: [9, 17, 10, 18, 26, 15, 7, 1][Int.random(in: 0...7, using: &rng)]
                default: UInt32.random(in: 0...40, using: &rng)
                }
            }
            let bytes = RawTile.tile([RawTile.layer(features: [RawTile.feature(type: type, geometry: stream)])])
            guard failure(bytes) == nil, let tile = try? decoder.decode(bytes) else { continue }
            accepted += 1
            if let f = tile.layers.first?.features.first, f.type == .polygon {
                #expect(f.geometry.ringIsExterior.first != false)
                #expect(f.geometry.ringIsExterior.count == f.geometry.parts.count)
            }
        }
        #expect(accepted > 0)
    }
}
