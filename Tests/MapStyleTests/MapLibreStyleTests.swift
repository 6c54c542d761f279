import Foundation
import KartpackCore
import KartpackJSON
import KartpackTestSupport
import MapStyle
import Styling
import Testing

@Suite struct MapLibreStyleTests {
    func document(classes: Bool = true, geometry: Bool = true) throws -> MapLibreStyleDocument {
        let sheet = try parseSheet(everyDeclarationSheet)
        let info = PackageInfo(
            metadata: testMetadata(classes: classes, geometry: geometry), path: "out/test.pmtiles", format: .pmtiles)
        return MapLibreStyle.document(
            sheet: sheet, package: info, sourceURL: MapLibreStyle.sourceURL(package: info), spriteURL: nil)
    }

    func layer(_ doc: MapLibreStyleDocument, _ id: String) -> JSONValue? {
        doc.json["layers"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    @Test func packageMetadataIsRead() throws {
        let info = PackageInfo(metadata: testMetadata(), path: "x.pmtiles", format: .pmtiles)
        #expect(info.layers.map(\.id) == ["areas", "roads", "sites"])
        #expect(info.layers.map(\.geometry) == [.polygon, .line, .point])
        #expect(info.layers[0].classes?.map(\.name) == ["plain", "hatched", "crossed"])
        #expect(info.layers[0].classes?.map(\.count) == [3, 2, 1])
        #expect(info.layers[0].fields == ["TYP", "NAMN"])
        #expect(info.warnings.isEmpty)
        let bare = PackageInfo(metadata: .object([]), path: "x.mbtiles", format: .mbtiles)
        #expect(bare.layers.isEmpty)
        #expect(bare.warnings.count == 2)
    }

    @Test func layersComeInDrawOrderWithStableIDs() throws {
        let doc = try document()
        let ids = doc.json["layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(
            ids == [
                "areas-plain-fill", "areas-crossed-fill", "areas-hatched-pattern", "areas-crossed-pattern",
                "areas-plain-outline", "areas-hatched-outline", "areas-crossed-outline", "roads-road-line",
                "sites-monument-icon", "sites-site-circle", "areas-plain-label", "roads-road-label",
            ])
        #expect(doc.warnings.isEmpty)
    }

    @Test func rootKeysSourceSpriteAndGlyphs() throws {
        let doc = try document()
        let json = doc.json
        #expect(json["version"] == .int(8))
        #expect(json["name"] == .string("test package"))
        #expect(json["sources"]?["kartpack"]?["type"] == .string("vector"))
        #expect(json["sources"]?["kartpack"]?["url"] == .string("pmtiles://out/test.pmtiles"))
        #expect(json["sprite"] == .string("sprite"))
        #expect(json["glyphs"] == .string(MapLibreStyle.placeholderGlyphsURL))
        // Keys are sorted.
        let keys = json.objectMembers?.map(\.key) ?? []
        #expect(keys == keys.sorted())
        #expect(
            doc.spriteImages.map(\.name) == ["pattern-diagonal-hatch-1b5e20", "pattern-cross-hatch-333333", "monument"])
    }

    @Test func paintFollowsTheCascade() throws {
        let doc = try document()
        let fill = try #require(layer(doc, "areas-plain-fill"))
        #expect(fill["type"] == .string("fill"))
        #expect(fill["source"] == .string("kartpack"))
        #expect(fill["source-layer"] == .string("areas"))
        #expect(
            fill["filter"] == .array([.string("=="), .array([.string("get"), .string("class")]), .string("plain")]))
        #expect(fill["paint"]?["fill-color"] == .string("#c8e6c9"))
        #expect(fill["paint"]?["fill-opacity"] == .double(0.45))
        #expect(fill["paint"]?["fill-outline-color"] == .string("#2e7d32"))
        #expect(fill["minzoom"] == .int(2))
        #expect(fill["maxzoom"] == .int(11))

        let outline = try #require(layer(doc, "areas-hatched-outline"))
        #expect(outline["paint"]?["line-color"] == .string("#1b5e20"))  // the class rule beats the base rule
        #expect(outline["paint"]?["line-dasharray"] == .array([.int(2), .int(1)]))
        #expect(outline["minzoom"] == nil)

        let crossed = try #require(layer(doc, "areas-crossed-fill"))
        #expect(crossed["paint"]?["fill-color"] == .string("rgba(255, 238, 170, 0.502)"))
        let crossedPattern = try #require(layer(doc, "areas-crossed-pattern"))
        #expect(crossedPattern["paint"]?["fill-pattern"] == .string("pattern-cross-hatch-333333"))  // base stroke
        let crossedOutline = try #require(layer(doc, "areas-crossed-outline"))
        #expect(crossedOutline["paint"]?["line-color"] == .string("#333333"))
        #expect(crossedOutline["paint"]?["line-width"] == .int(1))

        let road = try #require(layer(doc, "roads-road-line"))
        #expect(road["paint"]?["line-width"] == .int(3))
        #expect(road["paint"]?["line-dasharray"] == .array([.int(4), .int(2)]))

        let icon = try #require(layer(doc, "sites-monument-icon"))
        #expect(icon["type"] == .string("symbol"))
        #expect(icon["layout"]?["icon-image"] == .string("monument"))
        let circle = try #require(layer(doc, "sites-site-circle"))
        #expect(circle["paint"]?["circle-color"] == .string("#0000ff"))
        #expect(circle["paint"]?["circle-stroke-color"] == .string("#ffffff"))

        let label = try #require(layer(doc, "areas-plain-label"))
        #expect(label["layout"]?["text-field"] == .array([.string("get"), .string("NAMN")]))  // field's own case
        #expect(label["layout"]?["text-size"] == .int(13))
        #expect(label["paint"]?["text-color"] == .string("#102030"))
        #expect(label["paint"]?["text-opacity"] == .double(0.9))
        let roadLabel = try #require(layer(doc, "roads-road-label"))
        #expect(roadLabel["layout"]?["symbol-placement"] == .string("line"))
    }

    @Test func generatedStyleIsValidAndDeterministic() throws {
        let doc = try document()
        let sprite = SpriteSheet(images: doc.spriteImages, pixelRatio: 1)
        let issues = MapLibreStyleValidator.validate(text: doc.text, spriteIndexText: sprite.indexText)
        #expect(issues.isEmpty, "\(issues)")
        let again = try document()
        #expect(again.text == doc.text)
        // Every referenced image is in the sprite index.
        for l in doc.json["layers"]?.arrayValue ?? [] {
            for name in [l["paint"]?["fill-pattern"], l["layout"]?["icon-image"]].compactMap({ $0?.stringValue }) {
                #expect(sprite.index[name] != nil, "\(name)")
            }
        }
    }

    @Test func withoutMetadataClassesTheSheetsClassesAreUsed() throws {
        let doc = try document(classes: false)
        let ids = doc.json["layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(ids.contains("areas-plain-fill") && ids.contains("sites-site-circle"))
        #expect(
            MapLibreStyleValidator.validate(
                doc.json, spriteIndex: SpriteSheet(images: doc.spriteImages, pixelRatio: 1).index
            ).isEmpty)
    }

    @Test func unknownGeometryFiltersByGeometryType() throws {
        let doc = try document(geometry: false)
        let road = try #require(layer(doc, "roads-road-line-line"))
        #expect(
            road["filter"]
                == .array([
                    .string("all"),
                    .array([.string("=="), .array([.string("get"), .string("class")]), .string("road")]),
                    .array([
                        .string("in"), .array([.string("geometry-type")]),
                        .array([.string("literal"), .array([.string("LineString"), .string("MultiLineString")])]),
                    ]),
                ]))
        #expect(layer(doc, "roads-road-outline-polygon") != nil)
        let sprite = SpriteSheet(images: doc.spriteImages, pixelRatio: 1)
        #expect(MapLibreStyleValidator.validate(doc.json, spriteIndex: sprite.index).isEmpty)
        let ids = doc.json["layers"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        #expect(Set(ids).count == ids.count)
    }

    @Test func emptyZoomRangeIsSkippedWithAWarning() throws {
        let sheet = try parseSheet("roads { class: road; stroke: #000; min-zoom: 12; max-zoom: 8; }")
        let info = PackageInfo(metadata: testMetadata(), path: "t.mbtiles", format: .mbtiles)
        let doc = MapLibreStyle.document(sheet: sheet, package: info, sourceURL: "mbtiles://t.mbtiles", spriteURL: nil)
        #expect(!(doc.json["layers"]?.arrayValue?.contains { $0["id"] == .string("roads-road-line") } ?? true))
        #expect(doc.warnings.contains { $0.contains("class road of layer roads is drawn at no zoom") })
        // Classes the metadata lists but the sheet does not set are drawn with defaults, with a warning.
        #expect(doc.warnings.contains { $0.contains("class plain of layer areas is set by no rule") })
        #expect(MapLibreStyleValidator.validate(doc.json).isEmpty)
    }
}

@Suite struct MapLibreStyleValidatorTests {
    func valid() -> JSONValue {
        .object([
            ("glyphs", .string("https://x.invalid/{fontstack}/{range}.pbf")),
            (
                "layers",
                .array([
                    .object([
                        ("filter", .array([.string("=="), .array([.string("get"), .string("class")]), .string("a")])),
                        ("id", .string("a")), ("paint", .object([("fill-color", .string("#ff0000"))])),
                        ("source", .string("s")), ("source-layer", .string("l")), ("type", .string("fill")),
                    ])
                ])
            ),
            ("sources", .object([("s", .object([("type", .string("vector")), ("url", .string("pmtiles://x"))]))])),
            ("version", .int(8)),
        ])
    }

    /// `valid()` with the first layer's member `key` set to `value` (nil removes it).
    func mutated(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case .object(var root) = valid(), case .array(var layers)? = valid()["layers"],
            case .object(var layer) = layers[0]
        else { return .null }
        layer.removeAll { $0.key == key }
        if let value { layer.append((key, value)) }
        layers[0] = .object(layer)
        root.removeAll { $0.key == "layers" }
        root.append(("layers", .array(layers)))
        return .object(root)
    }

    @Test func acceptsAValidStyle() {
        #expect(MapLibreStyleValidator.validate(valid()).isEmpty)
    }

    @Test(
        arguments: [
            ("type", JSONValue.string("polygon"), "type"),
            ("source", .string("nope"), "no source"),
            ("source-layer", nil, "source-layer"),
            ("paint", .object([("line-color", .string("#000"))]), "not a paint property"),
            ("paint", .object([("fill-color", .string("#12"))]), "not a CSS colour"),
            ("paint", .object([("fill-opacity", .double(1.5))]), "outside 0…1"),
            ("paint", .object([("fill-pattern", .string("missing"))]), "no sprite"),
            ("filter", .array([.string("=="), .string("class"), .string("a")]), "constants"),
            ("filter", .array([.string("frobnicate"), .int(1)]), "does not give a boolean"),
            ("filter", .array([.string("=="), .array([.string("get")]), .string("a")]), "arguments"),
            ("filter", .array([.string("all"), .array([.string("nope")])]), "unknown expression operator"),
            ("minzoom", .int(30), "0…24"),
            ("id", nil, "id"),
        ] as [(String, JSONValue?, String)])
    func rejectsBrokenLayers(key: String, value: JSONValue?, expected: String) {
        let issues = MapLibreStyleValidator.validate(mutated(key, value))
        #expect(issues.contains { $0.description.contains(expected) }, "\(issues)")
    }

    @Test func rejectsRootProblems() {
        #expect(MapLibreStyleValidator.validate(text: "{").first?.message.hasPrefix("not JSON") == true)
        guard case .object(var root) = valid() else { return }
        root.removeAll { $0.key == "version" || $0.key == "sources" }
        root.append(("version", .int(7)))
        let issues = MapLibreStyleValidator.validate(.object(root))
        #expect(issues.contains { $0.path == "version" })
        #expect(issues.contains { $0.path == "sources" })
    }

    @Test func rejectsDuplicateIDsAndReversedZooms() {
        guard case .object(var root) = valid(), let first = valid()["layers"]?.arrayValue?.first,
            case .object(var second) = first
        else { return }
        second.append(("minzoom", .int(10)))
        second.append(("maxzoom", .int(5)))
        root.removeAll { $0.key == "layers" }
        root.append(("layers", .array([first, .object(second)])))
        let issues = MapLibreStyleValidator.validate(.object(root))
        #expect(issues.contains { $0.message.contains("duplicate id") })
        #expect(issues.contains { $0.message.contains("exceeds maxzoom") })
    }

    @Test func checksImageNamesAgainstTheSpriteIndex() {
        guard case .object(var root) = mutated("paint", .object([("fill-pattern", .string("hatch"))])) else { return }
        root.append(("sprite", .string("sprite")))
        let index = JSONValue.object([
            (
                "other",
                .object([
                    ("height", .int(16)), ("pixelRatio", .int(1)), ("width", .int(16)), ("x", .int(0)), ("y", .int(0)),
                ])
            )
        ])
        let issues = MapLibreStyleValidator.validate(.object(root), spriteIndex: index)
        #expect(issues.contains { $0.message.contains("hatch is not in the sprite") })
        let ok = JSONValue.object([
            (
                "hatch",
                .object([
                    ("height", .int(16)), ("pixelRatio", .int(1)), ("width", .int(16)), ("x", .int(0)), ("y", .int(0)),
                ])
            )
        ])
        #expect(MapLibreStyleValidator.validate(.object(root), spriteIndex: ok).isEmpty)
    }

    @Test func textNeedsGlyphs() {
        guard case .object(var root) = mutated("type", .string("symbol")) else { return }
        root.removeAll { $0.key == "glyphs" }
        guard case .array(var layers)? = JSONValue.object(root)["layers"], case .object(var l) = layers[0] else {
            return
        }
        l.removeAll { $0.key == "paint" }
        l.append(("layout", .object([("text-field", .array([.string("get"), .string("n")]))])))
        layers[0] = .object(l)
        root.removeAll { $0.key == "layers" }
        root.append(("layers", .array(layers)))
        let issues = MapLibreStyleValidator.validate(.object(root))
        #expect(issues.contains { $0.message.contains("glyphs") })
    }
}

@Suite struct ClassPresentationTests {
    @Test func classRulesAndBaseRulesCascade() throws {
        let sheet = try parseSheet(
            """
            * { opacity: 0.5; }
            hansyn { stroke: #111111; stroke-width: 4; }
            hansyn[TYP = "N"] { class: natura; fill: #00ff00; }
            hansyn[TYP = "N"][AREA > 3] { class: natura; fill: #0000ff; }
            hansyn[TYP = "X"] { stroke-width: 9; }
            vagar { class: natura; fill: #ff0000; }
            hansyn[TYP = "K"] { class: key; stroke: none; }
            """)
        let p = ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "natura")
        #expect(p.style.fill?.hexString == "#0000ff")  // the more specific class rule
        #expect(p.style.stroke?.hexString == "#111111")  // base rule of the layer
        #expect(p.style.strokeWidth == 4)  // a filtered rule without class is not part of the look
        #expect(p.style.opacity == 0.5)  // `*` base rule
        #expect(p.ruleOrder == 2)
        let key = ClassPresentation.resolve(sheet: sheet, layer: "HANSYN", className: "key")
        #expect(key.style.stroke == nil)  // `none` clears the base rule's stroke
        // A class that reached another layer through `layer:` falls back to every rule setting it.
        let moved = ClassPresentation.resolve(sheet: sheet, layer: "output", className: "key")
        #expect(moved.ruleOrder == 6)
        let unknown = ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "nope")
        #expect(unknown.ruleOrder == Int.max)
    }

    @Test func baseRulesThatSetAClassStillCascadeAndZoomFiltersMakeRanges() throws {
        let sheet = try parseSheet(
            """
            hansyn { class: consideration; stroke: #33691e; fill-opacity: 0.4; }
            hansyn[TYP = "N"] { class: natura; fill: #1b5e20; fill-pattern: diagonal-hatch; }
            hansyn[TYP = "K"][zoom >= 10] { class: key; fill: #c62828; }
            hansyn[zoom >= 13] { label: NAMN; text-size: 11; }
            """)
        let natura = ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "natura", zoom: 8)
        #expect(natura.style.stroke?.hexString == "#33691e")
        #expect(natura.style.fillOpacity == 0.4)
        #expect(natura.style.label == nil)
        #expect(
            ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "natura", zoom: 14).style.label
                == "NAMN")
        #expect(!ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "key", zoom: 9).isProduced)
        #expect(ClassPresentation.resolve(sheet: sheet, layer: "hansyn", className: "key", zoom: 10).isProduced)

        let meta = JSONValue.object([
            ("maxzoom", .int(14)),
            (
                "vector_layers",
                .array([.object([("fields", .object([("NAMN", .string("String"))])), ("id", .string("hansyn"))])])
            ),
            ("kartpack", .string(runSummary([("hansyn", "polygon", [("natura", 2), ("key", 2)])]))),
        ])
        let info = PackageInfo(metadata: meta, path: "h.pmtiles", format: .pmtiles)
        let doc = MapLibreStyle.document(sheet: sheet, package: info, sourceURL: "pmtiles://h.pmtiles", spriteURL: nil)
        func find(_ id: String) -> JSONValue? { doc.json["layers"]?.arrayValue?.first { $0["id"] == .string(id) } }
        // Drawn alike at every zoom: one layer without a zoom range.
        let pattern = try #require(find("hansyn-natura-pattern"))
        #expect(pattern["minzoom"] == nil && pattern["maxzoom"] == nil)
        // The label exists from zoom 13 on, and beyond the package's max zoom (overzoomed tiles).
        let label = try #require(find("hansyn-natura-label"))
        #expect(label["minzoom"] == .int(13) && label["maxzoom"] == nil)
        // The key class exists only from zoom 10.
        let key = try #require(find("hansyn-key-fill"))
        #expect(key["minzoom"] == .int(10) && key["maxzoom"] == nil)
        #expect(
            MapLibreStyleValidator.validate(
                doc.json, spriteIndex: SpriteSheet(images: doc.spriteImages, pixelRatio: 1).index
            ).isEmpty)
    }

    @Test func aStyleThatChangesMidwayGetsOneLayerPerRange() throws {
        let sheet = try parseSheet(
            """
            vagar { class: road; stroke: #000000; stroke-width: 1; }
            vagar[zoom >= 12][zoom <= 13] { stroke-width: 3; }
            """)
        let meta = JSONValue.object([
            ("vector_layers", .array([.object([("fields", .object([])), ("id", .string("vagar"))])])),
            ("kartpack", .string(runSummary([("vagar", "line", [("road", 5)])]))),
        ])
        let info = PackageInfo(metadata: meta, path: "v.pmtiles", format: .pmtiles)
        let doc = MapLibreStyle.document(sheet: sheet, package: info, sourceURL: "pmtiles://v.pmtiles", spriteURL: nil)
        let layers = doc.json["layers"]?.arrayValue ?? []
        #expect(
            layers.compactMap { $0["id"]?.stringValue } == [
                "vagar-road-line-z0", "vagar-road-line-z12", "vagar-road-line-z14",
            ])
        #expect(layers.map { $0["minzoom"] } == [nil, .int(12), .int(14)])
        #expect(layers.map { $0["maxzoom"] } == [.int(12), .int(14), nil])
        #expect(layers.map { $0["paint"]?["line-width"] } == [.int(1), .int(3), .int(1)])
        #expect(MapLibreStyleValidator.validate(doc.json).isEmpty)
    }
}

@Suite struct SampleSheetStyleTests {
    /// The sample sheet over metadata like `convert --style` writes for the forest sample.
    @Test func forestSheetGivesAValidStyleWithEveryPattern() throws {
        let url = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss")
        let text = try String(contentsOf: url, encoding: .utf8)
        let sheet = try parseSheet(text, file: "forest.kss")
        let layers: [(String, String)] = [
            ("kommuner", "polygon"), ("fastigheter", "polygon"), ("avdelningar", "polygon"), ("hansyn", "polygon"),
            ("vagar", "line"), ("fornminnen", "point"),
        ]
        let summary = runSummary(layers.map { ($0.0, $0.1, sheet.possibleClassNames(layer: $0.0).map { ($0, 1) }) })
        let meta = JSONValue.object([
            ("kartpack", .string(summary)), ("maxzoom", .int(14)), ("minzoom", .int(0)),
            ("vector_layers", .array(layers.map { .object([("fields", .object([])), ("id", .string($0.0))]) })),
        ])
        let info = PackageInfo(metadata: meta, path: "forest.pmtiles", format: .pmtiles)
        let doc = MapLibreStyle.document(
            sheet: sheet, package: info, sourceURL: "pmtiles://forest.pmtiles", spriteURL: nil)
        let sprite = SpriteSheet(images: doc.spriteImages, pixelRatio: 2)
        let issues = MapLibreStyleValidator.validate(text: doc.text, spriteIndexText: sprite.indexText)
        #expect(issues.isEmpty, "\(issues)")
        let patterns = Set(
            doc.spriteImages.compactMap { image -> FillPattern? in
                if case .pattern(let p) = image.shape { return p } else { return nil }
            })
        #expect(patterns == Set(FillPattern.allCases))
        // Ancient monuments: icons, hidden below zoom 10 (min-zoom of the base rule cascades into every class).
        let burial = doc.json["layers"]?.arrayValue?.first { $0["id"] == .string("fornminnen-burial-icon") }
        #expect(burial?["layout"]?["icon-image"] == .string("burial"))
        #expect(burial?["minzoom"] == .int(10))
    }
}
