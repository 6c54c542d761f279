import Foundation
import KartpackCore
import KartpackJSON
import KartpackTestSupport
import MapStyle
import Styling
import Testing
import TileArchive

/// One package layer for `packageInfo`.
struct LayerSpec {
    var id: String
    var geometry: String?
    var fields: [(String, String)]
    var classes: [(String, Int)]?
    var byZoom: [Int: [(String, Int)]]? = nil
}

/// Package metadata as `convert` writes it (`vector_layers` with field types, the `kartpack` summary).
func packageInfo(
    _ layers: [LayerSpec], format: ArchiveFormat = .pmtiles, extra: [(String, JSONValue)] = []
) -> PackageInfo {
    let summary: [(key: String, value: JSONValue)] = layers.map { l in
        var members: [(key: String, value: JSONValue)] = [("features", .int(10))]
        if let g = l.geometry { members.append(("geometry", .string(g))) }
        if let c = l.classes { members.append(("classes", .object(c.map { ($0.0, .int(Int64($0.1))) }))) }
        if let z = l.byZoom {
            members.append(
                (
                    "classes_by_zoom",
                    .object(
                        z.keys.sorted().map { k in (String(k), .object((z[k] ?? []).map { ($0.0, .int(Int64($0.1))) }))
                        })
                ))
        }
        return (l.id, .object(members))
    }
    let vectorLayers: [JSONValue] = layers.map { l in
        .object([
            ("fields", .object(l.fields.map { ($0.0, .string($0.1)) })), ("id", .string(l.id)), ("maxzoom", .int(14)),
            ("minzoom", .int(0)),
        ])
    }
    let meta: [(key: String, value: JSONValue)] =
        [
            ("kartpack", .string(StyleJSON.compact(.object([("layers", .object(summary))])))),
            ("name", .string("test package")), ("minzoom", .int(0)), ("maxzoom", .int(14)),
            ("vector_layers", .array(vectorLayers)),
        ] + extra
    return PackageInfo(metadata: .object(meta), path: "test.pmtiles", format: format)
}

@Suite struct MapLibreStyleTests {
    func document(classes: Bool = true, geometry: Bool = true) throws -> MapLibreStyleDocument {
        let sheet = try parseSheet(everyDeclarationSheet)
        let info = PackageInfo(
            metadata: testMetadata(classes: classes, geometry: geometry), path: "out/test.pmtiles", format: .pmtiles)
        return MapLibreStyle.document(
            sheet: sheet, package: info, source: .url("pmtiles://test.pmtiles"), spriteURL: "sprite")
    }

    func layers(_ doc: MapLibreStyleDocument) -> [JSONValue] { doc.json["layers"]?.arrayValue ?? [] }

    func layer(_ doc: MapLibreStyleDocument, _ id: String) -> JSONValue? {
        layers(doc).first { $0["id"]?.stringValue == id }
    }

    @Test func packageMetadataIsRead() throws {
        let info = PackageInfo(metadata: testMetadata(), path: "x.pmtiles", format: .pmtiles)
        #expect(info.layers.map(\.id) == ["areas", "roads", "sites"])
        #expect(info.layers.map(\.geometry) == [.polygon, .line, .point])
        #expect(info.layers[0].classes?.map(\.name) == ["plain", "hatched", "crossed"])
        #expect(info.layers[0].fields == ["TYP", "NAMN"])
        #expect(info.layers[0].fieldKinds == ["TYP": .string, "NAMN": .string])
        #expect(info.warnings.isEmpty)
        let bare = PackageInfo(metadata: .object([]), path: "x.mbtiles", format: .mbtiles)
        #expect(bare.layers.isEmpty)
        #expect(bare.warnings.count == 2)
        let z = packageInfo(
            [
                LayerSpec(
                    id: "a", geometry: "polygon", fields: [], classes: [("x", 2)],
                    byZoom: [8: [("low", 3)], 12: [("x", 2)]])
            ],
            extra: [("attribution", .string("© test")), ("bounds", .string("19.4,63.8,19.9,64.1"))])
        #expect(z.layers[0].classNames(atZoom: 8) == ["low"])
        #expect(z.layers[0].classNames(atZoom: 9) == [])
        #expect(z.layers[0].allClassNames == ["x", "low"])
        #expect(z.attribution == "© test")
        #expect(z.bounds?.west == 19.4 && z.bounds?.north == 64.1)
    }

    @Test func backgroundFirstThenDrawOrderWithStableIDs() throws {
        let doc = try document()
        let ids = layers(doc).compactMap { $0["id"]?.stringValue }
        #expect(
            ids == [
                "background", "areas-plain-fill", "areas-crossed-fill", "areas-hatched-pattern",
                "areas-crossed-pattern",
                "areas-unclassified-outline", "areas-plain-outline", "areas-hatched-outline", "areas-crossed-outline",
                "roads-road-line",
                "sites-monument-icon", "sites-site-circle", "areas-plain-label", "roads-road-label",
            ])
        #expect(layer(doc, "background")?["paint"]?["background-color"] == .string("#f4f3ef"))
        let sheet = try parseSheet("@map { background: honeydew; } " + everyDeclarationSheet)
        let info = PackageInfo(metadata: testMetadata(), path: "t.pmtiles", format: .pmtiles)
        let doc2 = MapLibreStyle.document(sheet: sheet, package: info, source: .url("pmtiles://t"), spriteURL: "s")
        #expect(layer(doc2, "background")?["paint"]?["background-color"] == .string("#f0fff0"))
    }

    @Test func rootKeysSourceSpriteAndGlyphs() throws {
        let json = try document().json
        #expect(json["version"] == .int(8))
        #expect(json["name"] == .string("test package"))
        #expect(json["sources"]?["kartpack"]?["url"] == .string("pmtiles://test.pmtiles"))
        #expect(json["sprite"] == .string("sprite"))
        #expect(json["glyphs"] == .string("glyphs/{fontstack}/{range}.pbf"))
        let keys = json.objectMembers?.map(\.key) ?? []
        #expect(keys == keys.sorted())
        #expect(!json.text(.compact).contains(".invalid"))
    }

    @Test func paintFollowsTheCascade() throws {
        let doc = try document()
        let fill = try #require(layer(doc, "areas-plain-fill"))
        #expect(
            fill["filter"] == .array([.string("=="), .array([.string("get"), .string("class")]), .string("plain")]))
        #expect(fill["paint"]?["fill-color"] == .string("#c8e6c9"))
        #expect(fill["paint"]?["fill-opacity"] == .double(0.45))
        #expect(fill["minzoom"] == .int(2))
        #expect(fill["maxzoom"] == .int(11))
        let outline = try #require(layer(doc, "areas-hatched-outline"))
        #expect(outline["paint"]?["line-color"] == .string("#1b5e20"))
        #expect(outline["paint"]?["line-dasharray"] == .array([.int(2), .int(1)]))
        // The pattern is drawn in pattern-color, else stroke: hatched has stroke #1b5e20, crossed the base #333.
        #expect(
            layer(doc, "areas-hatched-pattern")?["paint"]?["fill-pattern"] == .string("pattern-diagonal-hatch-1b5e20"))
        #expect(layer(doc, "areas-crossed-pattern")?["paint"]?["fill-pattern"] == .string("pattern-cross-hatch-333333"))
        #expect(layer(doc, "roads-road-line")?["paint"]?["line-dasharray"] == .array([.int(4), .int(2)]))
        // `icon: monument` is the built-in symbol in the site's fill colour.
        #expect(layer(doc, "sites-monument-icon")?["layout"]?["icon-image"] == .string("symbol-monument-aa0000"))
        let circle = try #require(layer(doc, "sites-site-circle"))
        #expect(circle["paint"]?["circle-color"] == .string("#0000ff"))
        #expect(circle["paint"]?["circle-stroke-color"] == .string("#ffffff"))
        let label = try #require(layer(doc, "areas-plain-label"))
        #expect(
            label["layout"]?["text-field"]
                == .array([.string("to-string"), .array([.string("get"), .string("NAMN")])]))
        #expect(label["layout"]?["text-size"] == .int(13))
        #expect(layer(doc, "roads-road-label")?["layout"]?["symbol-placement"] == .string("line"))
    }

    @Test func generatedStyleIsValidAndDeterministic() throws {
        let doc = try document()
        let sprite = try SpriteSheet(images: doc.spriteImages, pixelRatio: 1)
        let issues = MapLibreStyleValidator.validate(text: doc.text, spriteIndexText: sprite.indexText)
        #expect(issues.isEmpty, "\(issues)")
        #expect(try document().text == doc.text)
    }

    /// A class that features get only at low zooms has a layer there (`classes_by_zoom`), and only there.
    @Test func classesPerZoomEachGetALayer() throws {
        let sheet = try parseSheet(
            "avd { class: stand; fill: #c8e6c9; } avd[zoom < 11] { class: lowzoom; fill: #ff0000; }")
        for byZoom in [true, false] {
            var spec = LayerSpec(id: "avd", geometry: "polygon", fields: [], classes: [("stand", 5)])
            if byZoom {
                spec.byZoom = [
                    8: [("lowzoom", 5)], 9: [("lowzoom", 5)], 10: [("lowzoom", 5)], 11: [("stand", 5)],
                    12: [("stand", 5)],
                ]
            }
            let info = packageInfo([spec])
            let doc = MapLibreStyle.document(sheet: sheet, package: info, source: .url("pmtiles://t"), spriteURL: "s")
            let low = try #require(layer(doc, "avd-lowzoom-fill"), "byZoom \(byZoom)")
            #expect(low["paint"]?["fill-color"] == .string("#ff0000"))
            #expect(low["maxzoom"] == .int(11))
            if byZoom { #expect(low["minzoom"] == .int(8)) }
        }
    }

    /// Rules that set no class are drawn per feature with expressions over the tile attributes.
    @Test func classlessRulesBecomeExpressions() throws {
        let sheet = try parseSheet(
            """
            vagar { class: road; stroke: #757575; stroke-width: 2; }
            vagar[KLASS <= 2] { class: major-road; stroke: #e65100; stroke-width: 4; }
            vagar[BELAGGNING = "Skogsbilväg"] { stroke-dasharray: 4 2; }
            vagar[NAMN ^= "E"][zoom >= 10] { stroke: red; }
            """)
        let info = packageInfo([
            LayerSpec(
                id: "vagar", geometry: "line",
                fields: [("KLASS", "Number"), ("BELAGGNING", "String"), ("NAMN", "String"), ("class", "String")],
                classes: [("road", 3), ("major-road", 2)])
        ])
        let doc = MapLibreStyle.document(sheet: sheet, package: info, source: .url("pmtiles://t"), spriteURL: "s")
        #expect(doc.plan.layers.contains { $0.id == "vagar-road-line-dash0" })
        #expect(doc.plan.layers.contains { $0.id == "vagar-road-line-dash1" })
        // Every feature's look in the plan (the client's expressions) equals the Swift cascade's.
        let classifier = StyleClassifier(sheet: sheet)
        for klass in [PropertyValue.int(1), .int(3), .double(2.5), .string("2"), .null] {
            for bel in ["Skogsbilväg", "Asfalt"] {
                for namn in ["E4", "Väg 363", ""] {
                    for zoom in [8, 12] {
                        var props = Properties([
                            ("KLASS", klass), ("BELAGGNING", .string(bel)), ("NAMN", .string(namn)),
                        ])
                        let truth = classifier.style(layer: "vagar", properties: props, zoom: zoom)
                        props["class"] = .string(truth.className ?? "")
                        let drawn = doc.plan.layers.filter {
                            $0.isVisible(atZoom: zoom) && $0.draws(props, family: .line)
                        }
                        #expect(drawn.count == 1, "\(props) at \(zoom)")
                        guard let l = drawn.first else { continue }
                        #expect(l.value("line-color", props).colorValue == truth.stroke, "\(props) at \(zoom)")
                        #expect(l.value("line-width", props).numberValue == truth.strokeWidth)
                        #expect(l.dashes == truth.strokeDasharray)
                    }
                }
            }
        }
        #expect(MapLibreStyleValidator.validate(doc.json).isEmpty)
    }

    /// Regex and descendant rules that the class does not settle need the engine's match flags.
    @Test func flagsForWhatTheClientCannotTest() throws {
        let sheet = try parseSheet(
            """
            a { class: plain; stroke: #000000; }
            a[N =~ "x$"] { stroke: #ff0000; }
            b a { stroke: #00ff00; }
            a[K = 1] { class: company; stroke: #0000ff; }
            a[R =~ "^z"] { class: regex-class; stroke: #123456; }
            """)
        let cascade = ClientCascade(sheet: sheet, layer: "a")
        #expect(cascade.flagKeys == ["kp:r4s0", "kp:r1s0", "kp:r2s0"])
        // The class proves the regex-class rule, whose stroke then wins: no flag needed for that class.
        #expect(cascade.neededFlags(zoom: 10, knowledge: .known("regex-class")).isEmpty)
        #expect(cascade.neededFlags(zoom: 10, knowledge: .known("plain")).map(\.key) == ["kp:r1s0", "kp:r2s0"])
        let engine = cascade.flags(
            properties: Properties([("N", .string("ax"))]), zoom: 10, className: "plain", inside: { _ in true })
        #expect(engine == ["kp:r1s0", "kp:r2s0"])
        #expect(cascade.flags(properties: Properties([("N", .string("ay"))]), zoom: 10, className: "plain") == [])
        let withFlags = packageInfo([
            LayerSpec(
                id: "a", geometry: "polygon",
                fields: [("N", "String"), ("kp:r1s0", "Boolean"), ("kp:r2s0", "Boolean")],
                classes: [("plain", 1), ("regex-class", 1)])
        ])
        let doc = MapLibreStyle.document(sheet: sheet, package: withFlags, source: .url("pmtiles://t"), spriteURL: "s")
        let outline = try #require(layer(doc, "a-plain-outline"))
        #expect(outline["paint"]?["line-color"]?.text(.compact).contains("kp:r1s0") == true)
        #expect(layer(doc, "a-regex-class-outline")?["paint"]?["line-color"]?.text(.compact).contains("regex") != true)
        #expect(doc.warnings.allSatisfy { !$0.contains("match flag") })
        let without = packageInfo([
            LayerSpec(id: "a", geometry: "polygon", fields: [("N", "String")], classes: [("plain", 1)])
        ])
        let doc2 = MapLibreStyle.document(sheet: sheet, package: without, source: .url("pmtiles://t"), spriteURL: "s")
        #expect(doc2.warnings.contains { $0.contains("kp:r1s0") && $0.contains("lacks its match flag") })
        let lint = sheet.clientLint(layers: [])
        #expect(lint.map(\.code) == ["client_cannot_test", "client_cannot_test"])
    }

    /// A package built without --style: a look from the sheet's attribute rules, defaults otherwise.
    @Test func packageWithoutClassesGetsADefaultStyle() throws {
        let sheet = try parseSheet("roads[KIND = \"big\"] { class: big; stroke: #ff0000; }")
        let info = packageInfo([
            LayerSpec(id: "areas", geometry: "polygon", fields: [], classes: nil),
            LayerSpec(id: "roads", geometry: "line", fields: [("KIND", "String")], classes: nil),
        ])
        let doc = MapLibreStyle.document(sheet: sheet, package: info, source: .url("pmtiles://t"), spriteURL: "s")
        let ids = doc.plan.layers.map(\.id)
        #expect(ids == ["areas-all-outline", "roads-all-line"])
        let road = try #require(doc.plan.layers.last)
        #expect(
            road.value("line-color", Properties([("KIND", .string("big"))])).colorValue
                == StyleColor(red: 255, green: 0, blue: 0))
        #expect(
            road.value("line-color", Properties([("KIND", .string("x"))])).colorValue
                == StyleColor(red: 0, green: 0, blue: 0))
        #expect(doc.warnings.contains { $0.contains("layer areas: the sheet gives its features no look") })
        #expect(doc.warnings.contains { $0.contains("layer roads: the package has no classes") })
    }

    @Test func firstViewFitsTheBoundsAndSourceCarriesAttribution() throws {
        let sheet = try parseSheet("a { class: x; fill: #ff0000; }")
        let info = packageInfo(
            [LayerSpec(id: "a", geometry: "polygon", fields: [], classes: [("x", 1)])],
            extra: [("attribution", .string("© Skogsstyrelsen")), ("bounds", .string("19.45,63.89,19.86,64.05"))])
        let doc = MapLibreStyle.document(
            sheet: sheet, package: info, source: .tiles("https://h/t/{z}/{x}/{y}.pbf"), spriteURL: "s")
        let source = try #require(doc.json["sources"]?["kartpack"])
        #expect(source["tiles"] == .array([.string("https://h/t/{z}/{x}/{y}.pbf")]))
        #expect(source["attribution"] == .string("© Skogsstyrelsen"))
        #expect(source["maxzoom"] == .int(14))
        let zoom = try #require(doc.json["zoom"]?.doubleValue)
        // 0.16° of latitude at 64° N is 0.00101 of the Mercator world: 768 px hold it up to zoom 10.53 (the
        // width would allow 10.78); rounded down to a quarter.
        #expect(zoom == 10.5)
        #expect(doc.json["center"] == .array([.double(19.655), .double(63.970114)]))
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

@Suite struct SampleSheetStyleTests {
    /// The sample sheet over metadata like `convert --style` writes for the forest sample.
    @Test func forestSheetGivesAValidStyle() throws {
        let url = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss")
        let text = try String(contentsOf: url, encoding: .utf8)
        let sheet = try parseSheet(text, file: url.path)
        let layers: [(String, String)] = [
            ("kommuner", "polygon"), ("fastigheter", "polygon"), ("avdelningar", "polygon"), ("hansyn", "polygon"),
            ("vagar", "line"), ("fornminnen", "point"),
        ]
        let info = packageInfo(
            layers.map {
                LayerSpec(
                    id: $0.0, geometry: $0.1, fields: [("class", "String")],
                    classes: sheet.possibleClassNames(layer: $0.0).map { ($0, 1) })
            })
        let doc = MapLibreStyle.document(sheet: sheet, package: info, source: .url("pmtiles://f"), spriteURL: "s")
        let sprite = try SpriteSheet(images: doc.spriteImages, pixelRatio: 2)
        let issues = MapLibreStyleValidator.validate(text: doc.text, spriteIndexText: sprite.indexText)
        #expect(issues.isEmpty, "\(issues)")
        // Natura2000 and Naturreservat: the same pattern in different colours.
        let names = Set(doc.spriteImages.map(\.name))
        #expect(names.contains("pattern-diagonal-hatch-1b5e20") && names.contains("pattern-backward-diagonal-00695c"))
        // Monument kinds are told apart by symbol.
        for (cls, symbol) in [("burial", "burial"), ("industrial-remain", "charcoal"), ("trapping-pit", "pit")] {
            let l = doc.json["layers"]?.arrayValue?.first { $0["id"] == .string("fornminnen-\(cls)-icon") }
            #expect(l?["layout"]?["icon-image"]?.stringValue?.hasPrefix("symbol-\(symbol)") == true, "\(cls)")
            #expect(l?["minzoom"] == .int(10))
        }
    }
}
