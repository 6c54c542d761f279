import KartpackCore
import Styling
import Testing

@Suite struct CascadeTests {
    /// Specificity of single selectors: (filters, names), compared lexicographically.
    @Test(arguments: [
        ("*", 0, 0),
        ("l", 0, 1),
        ("*[a]", 1, 0),
        ("l[a]", 1, 1),
        ("l[a][b = 1]", 2, 1),
        ("l[zoom > 3]", 1, 1),
        ("l[a][zoom > 3][zoom < 9]", 3, 1),
        ("a b", 0, 2),
        ("a[x] b", 1, 2),
        ("a[x] b[y][zoom = 3]", 3, 2),
        ("a b c", 0, 3),
        ("a *", 0, 1),
    ])
    func specificity(selector: String, filters: Int, names: Int) throws {
        let sheet = try parseClean("\(selector) { class: c }")
        #expect(sheet.rules[0].selectors[0].specificity == Specificity(filters: filters, names: names))
    }

    @Test func specificityOrderingIsLexicographic() {
        let s = { (f: Int, n: Int) in Specificity(filters: f, names: n) }
        #expect(s(0, 0) < s(0, 1))
        #expect(s(0, 1) < s(1, 0))  // *[a] beats l
        #expect(s(1, 0) < s(1, 1))
        #expect(s(1, 5) < s(2, 0))
        #expect(!(s(1, 1) < s(1, 1)))
        #expect(s(1, 2) + s(2, 1) == s(3, 3))
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var sheet: String
        var layer: String
        var properties: [(String, PropertyValue)]
        var zoom: Int
        var expected: String?
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "later rule wins a tie", sheet: "l { class: a } l { class: b }", layer: "l", properties: [], zoom: 5,
            expected: "b"),
        Case(
            name: "more specific earlier rule beats later", sheet: "l[x] { class: a } l { class: b }", layer: "l",
            properties: [("x", .int(1))], zoom: 5, expected: "a"),
        Case(
            name: "layer beats star", sheet: "l { class: a } * { class: b }", layer: "l", properties: [], zoom: 5,
            expected: "a"),
        Case(
            name: "star applies to other layers", sheet: "l { class: a } * { class: b }", layer: "m", properties: [],
            zoom: 5, expected: "b"),
        Case(
            name: "filtered star beats bare layer", sheet: "*[x] { class: a } l { class: b }", layer: "l",
            properties: [("x", .int(1))], zoom: 5, expected: "a"),
        Case(
            name: "layer with filter beats star with filter", sheet: "l[x] { class: a } *[x] { class: b }", layer: "l",
            properties: [("x", .int(1))], zoom: 5, expected: "a"),
        Case(
            name: "star with filter ties, later wins", sheet: "*[x] { class: a } *[y] { class: b }", layer: "l",
            properties: [("x", .int(1)), ("y", .int(1))], zoom: 5, expected: "b"),
        Case(
            name: "zoom filter adds specificity", sheet: "l[zoom >= 10] { class: a } l { class: b }", layer: "l",
            properties: [], zoom: 12, expected: "a"),
        Case(
            name: "zoom filter not matching", sheet: "l[zoom >= 10] { class: a } l { class: b }", layer: "l",
            properties: [], zoom: 9, expected: "b"),
        Case(
            name: "two filters beat one", sheet: "l[x][y] { class: a } l[x] { class: b }", layer: "l",
            properties: [("x", .int(1)), ("y", .int(1))], zoom: 5, expected: "a"),
        Case(name: "no rule matches", sheet: "l[x] { class: a }", layer: "l", properties: [], zoom: 5, expected: nil),
        Case(
            name: "unmatched layer gets nothing", sheet: "l { class: a }", layer: "m", properties: [], zoom: 5,
            expected: nil),
        Case(
            name: "selector list: best matching selector counts", sheet: "l[x], l { class: a } l[y] { class: b }",
            layer: "l", properties: [("x", .int(1)), ("y", .int(1))], zoom: 5, expected: "b"),
        Case(
            name: "selector list: specific selector lifts the rule", sheet: "m, l[x] { class: a } l[y] { class: b }",
            layer: "l", properties: [("x", .int(1)), ("y", .int(1))], zoom: 5, expected: "b"),
        Case(
            name: "selector list: specific member beats earlier", sheet: "l[y] { class: b } m, l[x] { class: a }",
            layer: "l", properties: [("x", .int(1)), ("y", .int(1))], zoom: 5, expected: "a"),
        Case(
            name: "selector list: only the weak member matches", sheet: "l[y] { class: b } l, l[x] { class: a }",
            layer: "l", properties: [("y", .int(1))], zoom: 5, expected: "b"),
        Case(
            name: "class none overrides", sheet: "l { class: a } l[x] { class: none }", layer: "l",
            properties: [("x", .int(1))], zoom: 5, expected: nil),
        Case(
            name: "last declaration within a rule wins", sheet: "l { class: a; class: b }", layer: "l", properties: [],
            zoom: 5, expected: "b"),
        Case(
            name: "layer names are case-insensitive", sheet: "Hansyn { class: a }", layer: "HANSYN", properties: [],
            zoom: 5, expected: "a"),
    ]

    @Test(arguments: cases)
    func cascade(_ c: Case) throws {
        let sheet = try parseClean(c.sheet)
        #expect(classOf(sheet, c.layer, Properties(c.properties), zoom: c.zoom) == c.expected)
    }

    @Test func eachPropertyCascadesSeparately() throws {
        let sheet = try parseClean(
            """
            * { class: other; fill: #000; stroke-width: 1; opacity: 0.5 }
            l { class: base; fill: #111; min-zoom: 3 }
            l[x > 1] { fill: #222; stroke: #333; keep: x }
            l[zoom >= 10] { stroke-width: 4; label: x; exclude: true; coalesce: true }
            """)
        let c = StyleClassifier(sheet: sheet)
        let lo = c.style(layer: "l", properties: props(("x", .int(2))), zoom: 5)
        #expect(lo.className == "base")
        #expect(lo.fill == StyleColor(red: 0x22, green: 0x22, blue: 0x22))
        #expect(lo.stroke == StyleColor(red: 0x33, green: 0x33, blue: 0x33))
        #expect(lo.strokeWidth == 1)
        #expect(lo.opacity == 0.5)
        #expect(lo.minZoom == 3)
        #expect(lo.keep == ["x"])
        #expect(lo.label == nil)
        #expect(lo.exclude == false)
        #expect(lo.isVisible(atZoom: 5) && !lo.isVisible(atZoom: 2))
        let hi = c.style(layer: "l", properties: props(("x", .int(0))), zoom: 10)
        #expect(hi.fill == StyleColor(red: 0x11, green: 0x11, blue: 0x11))
        #expect(hi.stroke == nil)
        #expect(hi.strokeWidth == 4)
        #expect(hi.label == "x")
        #expect(hi.exclude && !hi.isVisible(atZoom: 10))
        #expect(hi.coalesce && !lo.coalesce)
        #expect(c.dependsOnZoom(layer: "l"))
        #expect(!c.dependsOnZoom(layer: "m"))
    }

    @Test func matcherWithSchemaAgreesWithPlainLookup() throws {
        let sheet = try parseClean("l[typ = a] { class: a } l[TYP = b][n > 2] { class: b } * { class: z }")
        let c = StyleClassifier(sheet: sheet)
        let fields = [FieldDefinition(name: "N", type: .integer), FieldDefinition(name: "Typ", type: .string)]
        let m = c.matcher(layer: "L", fields: fields)
        let inputs: [Properties] = [
            props(("N", .int(3)), ("Typ", .string("b"))),
            props(("N", .int(1)), ("Typ", .string("b"))),
            props(("N", .int(3)), ("Typ", .string("a"))),
            props(("Typ", .string("b")), ("N", .int(9))),  // keys not in schema order
            props(("other", .int(1))),
            props(),
        ]
        let expected: [String?] = ["b", "z", "a", "b", "z", "z"]
        for (p, e) in zip(inputs, expected) {
            #expect(m.style(properties: p, zoom: 0).className == e)
            #expect(c.style(layer: "l", properties: p, zoom: 0).className == e)
        }
        #expect(!m.dependsOnZoom)
    }
}
