import KartpackCore
import KartpackTestSupport
import Styling
import Testing

/// The client cascade against the Swift cascade: for random features, what a client computes from the tile
/// (kept attributes, `class`, and the match flags `ClientCascade.flags` tells the engine to write) is exactly the
/// look `StyleClassifier` gives the source feature — with zoom rules, class-less rules, regex and descendant
/// selectors and a dropped attribute in the sheet.
@Suite struct ClientCascadeTests {
    static let sheet = """
        l { class: base; fill: #111111; stroke: #222222; stroke-width: 1; keep: T, N, K; }
        l[T = "a"] { class: a; fill: #aa0000; }
        l[T = "b"], l[T = "c"] { class: bc; fill: #00bb00; icon: star; }
        l[T = "a"][K >= 5] { class: a5; fill: #ff0000; }
        l[zoom < 6] { class: low; stroke: #333333; }
        l[N ^= "Sk"] { stroke-dasharray: 2 2; }
        l[N $= "ön"][zoom >= 10] { label: N; text-size: 14; }
        l[N =~ "^S.*g$"] { stroke: #444444; }
        l[SECRET = true] { stroke-width: 3; }
        p[Z = "x"] l { class: inside-x; pattern-color: #555555; fill-pattern: dots; }
        p l[K < 3] { opacity: 0.5; }
        * { text-color: #666666; }
        """

    static let names: [PropertyValue?] = [
        .string("Skogen"), .string("Granön"), .string("Sköldön"), .string("Storvig"), .string("Väg"), nil,
    ]

    @Test func clientLookEqualsTheCascade() throws {
        let (parsed, diagnostics) = Stylesheet.parse(Self.sheet, file: "t.kss")
        #expect(!diagnostics.hasErrors)
        let sheet = try #require(parsed)
        let classifier = StyleClassifier(sheet: sheet)
        let cascade = ClientCascade(sheet: sheet, layer: "l", fieldKinds: ["T": .string, "N": .string, "K": .number])
        var rng = SplitMix64(seed: 11)
        var flagged = 0
        for _ in 0..<3000 {
            var pairs: [(String, PropertyValue)] = []
            if let t = [PropertyValue.string("a"), .string("b"), .string("c"), .string("d"), nil][Int(rng.next() % 5)] {
                pairs.append(("T", t))
            }
            if let n = Self.names[Int(rng.next() % UInt64(Self.names.count))] { pairs.append(("N", n)) }
            if rng.next() % 4 != 0 { pairs.append(("K", .int(Int64(rng.next() % 8)))) }
            if rng.next() % 2 == 0 { pairs.append(("SECRET", .bool(rng.next() % 2 == 0))) }
            let source = Properties(pairs)
            let zoom = Int(rng.next() % 15)
            let inX = rng.next() % 3 == 0
            let inAny = inX || rng.next() % 2 == 0
            let inside: (AncestorSelectorID) -> Bool = { id in
                classifier.ancestorSelectors[id.rawValue].filters.isEmpty ? inAny : inX
            }
            let truth = classifier.style(layer: "l", properties: source, zoom: zoom, inside: inside)
            // The tile: kept attributes, the class, the match flags.
            let kept = Set((truth.keep ?? []).map { $0.lowercased() })
            var tile = Properties(pairs.filter { kept.contains($0.0.lowercased()) })
            if let c = truth.className { tile["class"] = .string(c) }
            let flags = cascade.flags(properties: source, zoom: zoom, className: truth.className, inside: inside)
            flagged += flags.count
            for f in flags { tile[f] = .bool(true) }
            let look = try #require(
                cascade.look(zoom: zoom, knowledge: .known(truth.className), hasFlag: { cascade.flagKeys.contains($0) })
            )
            let client = look.style(properties: tile)
            var expected = truth
            (expected.className, expected.layer, expected.keep, expected.exclude) = (nil, nil, nil, false)
            #expect(client == expected, "\(pairs) at \(zoom), inside \(inX)/\(inAny)")
        }
        #expect(flagged > 100)
        // The warnings name exactly the selectors that need flags (the class-setting descendant rule for the
        // classes above it, a5 and bc, whose features may lie inside an x area too).
        let warned = sheet.clientLint(layers: []).map(\.message)
        #expect(warned.count == 4)
        #expect(warned.contains { $0.contains("p[Z = \"x\"] l") && $0.contains("a5") })
        #expect(
            warned.contains { $0.contains("l[N =~") } && warned.contains { $0.contains("SECRET") }
                && warned.contains { $0.contains("p l[K < 3]") })
    }

    @Test func namedColoursPatternsAndIconsParse() throws {
        let (sheet, d) = Stylesheet.parse(
            """
            @map { background: AliceBlue; }
            a { fill: red; pattern-color: #0a0b0c; pattern-background: transparent; pattern-spacing: 12;
                pattern-width: 2; fill-pattern: backward-diagonal; icon: url("icons/x y.svg"); }
            b { icon: burial; stroke: rebeccapurple; }
            """, file: "t.kss")
        #expect(d.isEmpty, "\(d)")
        let s = try #require(sheet)
        #expect(s.map.background == StyleColor(red: 0xf0, green: 0xf8, blue: 0xff))
        let a = StyleClassifier(sheet: s).style(layer: "a", properties: Properties(), zoom: 5)
        #expect(a.fill == StyleColor(red: 255, green: 0, blue: 0))
        #expect(a.patternBackground == StyleColor(red: 0, green: 0, blue: 0, alpha: 0))
        #expect(a.fillPattern == .backwardDiagonal && a.patternSpacing == 12 && a.patternWidth == 2)
        #expect(a.icon == .file("icons/x y.svg"))
        let b = StyleClassifier(sheet: s).style(layer: "b", properties: Properties(), zoom: 5)
        #expect(b.icon == .symbol("burial") && b.stroke == StyleColor(red: 0x66, green: 0x33, blue: 0x99))
        let bad = Stylesheet.parse("a { pattern-spacing: 2; icon: url(\"x.svg\"; }", file: "t.kss").1
        #expect(bad.map(\.code).contains("bad_value"))
    }
}
