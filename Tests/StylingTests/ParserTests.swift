import Styling
import Testing

@Suite struct ParserTests {
    static let issueSheet = """
        /* comments */
        avdelningar                               { class: stand; fill: #c8e6c9; stroke: #2e7d32; }
        hansyn[TYP = "Natura2000"]                { class: natura2000; fill-pattern: diagonal-hatch; stroke: #1b5e20; }
        hansyn[TYP = "Nyckelbiotop"][zoom >= 10]  { class: key-biotope; fill-pattern: dots; }
        vagar[KLASS > 3], vagar[KLASS = null]     { class: minor-road; stroke-width: 1; max-zoom: 16; }
        fastigheter[AGARE ^= "Södra"] avdelningar { class: member-stand; }
        *                                         { class: other; }
        @example hansyn { TYP: "Natura2000"; zoom: 12; expect-class: natura2000; }
        """

    @Test func issueExampleSheetParsesWithoutDiagnostics() throws {
        let sheet = try parseClean(Self.issueSheet)
        #expect(sheet.rules.count == 6)
        #expect(sheet.examples.count == 1)
        #expect(sheet.classNames == ["stand", "natura2000", "key-biotope", "minor-road", "member-stand", "other"])
        let r3 = sheet.rules[2]
        #expect(r3.selectors[0].subject.layer == "hansyn")
        #expect(r3.selectors[0].subject.filters.count == 1)
        #expect(
            r3.selectors[0].subject.zoomFilters == [
                ZoomFilter(op: .greaterOrEqual, value: 10, location: StyleLocation(line: 4, column: 29))
            ])
        #expect(sheet.rules[3].selectors.count == 2)
        #expect(sheet.rules[4].selectors[0].compounds.map(\.layer) == ["fastigheter", "avdelningar"])
        #expect(sheet.rules[5].selectors[0].subject.layer == nil)
        #expect(sheet.rules[0].location == StyleLocation(line: 2, column: 1))
        #expect(sheet.runExamples().isEmpty)
        #expect(sheet.possibleClassNames(layer: "vagar") == ["minor-road", "other"])
    }

    /// Every filter form round-trips through `description` to the canonical spelling.
    @Test(arguments: [
        ("l[a]", "l[a]"),
        ("l[a = null]", "l[a = null]"),
        ("l[a != null]", "l[a]"),
        ("l[a=3]", "l[a = 3]"),
        ("l[a != -2.5]", "l[a != -2.5]"),
        ("l[a < 1e3]", "l[a < 1e3]"),
        ("l[a <= .5]", "l[a <= .5]"),
        ("l[a > 3]", "l[a > 3]"),
        ("l[a >= 3]", "l[a >= 3]"),
        ("l[a = word]", "l[a = \"word\"]"),
        ("l[a = 'single']", "l[a = \"single\"]"),
        ("l[a = true][b != false]", "l[a = true][b != false]"),
        ("l[a ^= \"pre\"]", "l[a ^= \"pre\"]"),
        ("l[a $= suf]", "l[a $= \"suf\"]"),
        ("l[a *= \"mid\"]", "l[a *= \"mid\"]"),
        ("l[a =~ \"^x+$\"]", "l[a =~ \"^x+$\"]"),
        ("l[zoom>=10][zoom < 14]", "l[zoom >= 10][zoom < 14]"),
        ("l[ZOOM = 3]", "l[zoom = 3]"),
        ("l[\"zoom\" = 3]", "l[\"zoom\" = 3]"),
        ("l[\"odd name\"]", "l[\"odd name\"]"),
        ("*[a]", "*[a]"),
        ("a b", "a b"),
        ("a[x] b[y]  c", "a[x] b[y] c"),
        ("l[a = 24A]", "l[a = \"24A\"]"),
        ("_x-1", "_x-1"),
        ("lager_ö", "lager_ö"),
    ])
    func selectorForms(input: String, canonical: String) throws {
        let sheet = try parseClean("\(input) { class: c; }")
        #expect(sheet.rules[0].selectors[0].description == canonical)
    }

    @Test func filterTestsAreTyped() throws {
        let sheet = try parseClean(#"l[a = 3][b = "3"][c = null][d][e = true][f != null][g =~ "x"] { class: c }"#)
        let f = sheet.rules[0].selectors[0].subject.filters
        guard case .compare(.equal, .number(let n)) = f[0].test else {
            Issue.record("a")
            return
        }
        #expect(n.value == 3 && n.integer == 3 && n.text == "3")
        #expect(f[1].test == .compare(.equal, .text("3")))
        #expect(f[2].test == .null)
        #expect(f[3].test == .present)
        #expect(f[4].test == .compare(.equal, .bool(true)))
        #expect(f[5].test == .present)
        guard case .regex(let r) = f[6].test else {
            Issue.record("g")
            return
        }
        #expect(r.pattern == "x")
    }

    @Test func stringEscapes() throws {
        let sheet = try parseClean(#"l[a = "q\"b\\n\nt\tu\u00e5\u{1F332}s\/'\'"] { class: c }"#)
        #expect(sheet.rules[0].selectors[0].subject.filters[0].test == .compare(.equal, .text("q\"b\\n\nt\tuå🌲s/''")))
    }

    @Test func thinningAndIdentityValues() throws {
        let sheet = try parseClean(
            """
            a { thinning: never; identity: AGARE, "Fast id"; }
            b { thinning: priority 12; identity: none; }
            c { thinning: auto; }
            """)
        #expect(sheet.rules[0].value(of: .thinning) == .text("never"))
        #expect(sheet.rules[0].value(of: .identity) == .names(["AGARE", "Fast id"]))
        #expect(sheet.rules[1].value(of: .thinning) == .text("priority 12"))
        #expect(sheet.rules[1].value(of: .identity) == .names([]))
        #expect(sheet.rules[2].value(of: .thinning) == .text("auto"))
        let c = StyleClassifier(sheet: sheet)
        #expect(c.style(layer: "a", properties: props(), zoom: 8).thinning == .never)
        #expect(c.style(layer: "a", properties: props(), zoom: 8).identity == ["AGARE", "Fast id"])
        #expect(c.style(layer: "b", properties: props(), zoom: 8).thinning == .priority(12))
        #expect(c.style(layer: "d", properties: props(), zoom: 8).thinning == nil)
        #expect(StyleProperty.thinning.isPipelineProperty && StyleProperty.identity.isPipelineProperty)
        for bad in ["sometimes", "priority", "priority 1001", "priority x", "never 2", "none", "\"never\""] {
            let d = diagnostics(of: "a { thinning: \(bad); }")
            #expect(d.map(\.code) == ["bad_value"], "\(bad): \(d)")
        }
        #expect(ThinningPolicy("priority 1000") == .priority(1000) && ThinningPolicy("priority  3") == .priority(3))
        #expect(ThinningPolicy.never.tier > ThinningPolicy.priority(1000).tier)
        #expect(ThinningPolicy.auto.tier == ThinningPolicy.priority(0).tier)
    }

    @Test func declarationValueForms() throws {
        let sheet = try parseClean(
            """
            l {
              class: "quoted";
              min-zoom: 3; max-zoom: 24;
              layer: out_layer;
              keep: A, "B c", d;
              exclude: false; coalesce: true;
              fill: #abc; stroke: #A1B2C3; text-color: #11223344;
              fill-opacity: 0.5; opacity: 1; stroke-width: 0; text-size: 12.5;
              fill-pattern: cross-hatch;
              stroke-dasharray: 4 2, 1;
              label: NAMN; icon: "pin"
            }
            """)
        let r = sheet.rules[0]
        #expect(r.value(of: .className) == .text("quoted"))
        #expect(r.value(of: .minZoom) == .integer(3))
        #expect(r.value(of: .maxZoom) == .integer(24))
        #expect(r.value(of: .layer) == .text("out_layer"))
        #expect(r.value(of: .keep) == .names(["A", "B c", "d"]))
        #expect(r.value(of: .exclude) == .bool(false))
        #expect(r.value(of: .coalesce) == .bool(true))
        #expect(r.value(of: .fill) == .color(StyleColor(red: 0xAA, green: 0xBB, blue: 0xCC)))
        #expect(r.value(of: .stroke) == .color(StyleColor(red: 0xA1, green: 0xB2, blue: 0xC3)))
        #expect(r.value(of: .textColor) == .color(StyleColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44)))
        #expect(r.value(of: .fillOpacity) == .number(0.5))
        #expect(r.value(of: .opacity) == .number(1))
        #expect(r.value(of: .strokeWidth) == .number(0))
        #expect(r.value(of: .textSize) == .number(12.5))
        #expect(r.value(of: .fillPattern) == .pattern(.crossHatch))
        #expect(r.value(of: .strokeDasharray) == .numbers([4, 2, 1]))
        #expect(r.value(of: .label) == .text("NAMN"))
        #expect(r.value(of: .icon) == .text("pin"))
    }

    @Test func everyPatternAndNone() throws {
        for p in FillPattern.allCases {
            let sheet = try parseClean("l { fill-pattern: \(p.rawValue); }")
            #expect(sheet.rules[0].value(of: .fillPattern) == .pattern(p))
        }
        let sheet = try parseClean("l { class: none; fill: none; keep: none; stroke-dasharray: none }")
        #expect(sheet.rules[0].value(of: .className) == .unset)
        #expect(sheet.rules[0].value(of: .fill) == .unset)
        #expect(sheet.rules[0].value(of: .keep) == .names([]))
    }

    @Test func colourForms() {
        #expect(StyleColor(hex: "fff") == StyleColor(red: 255, green: 255, blue: 255))
        #expect(StyleColor(hex: "0f08") == StyleColor(red: 0, green: 255, blue: 0, alpha: 0x88))
        #expect(StyleColor(hex: "c8e6c9")?.hexString == "#c8e6c9")
        #expect(StyleColor(hex: "c8e6c980")?.hexString == "#c8e6c980")
        #expect(StyleColor(hex: "c8e6c") == nil)
        #expect(StyleColor(hex: "ggg") == nil)
        #expect(StyleColor(hex: "") == nil)
    }

    @Test func commentsWhitespaceAndOptionalSemicolon() throws {
        let sheet = try parseClean("\u{FEFF}/* a */ l /* b */ { /* c */ class /* d */ : x /* e */ }\r\n/* end */")
        #expect(sheet.rules[0].value(of: .className) == .text("x"))
    }

    @Test func unknownPropertyWarnsButParses() throws {
        let (sheet, diags) = Stylesheet.parse("l {\n  class: a;\n  strok-width: 2;\n  z-index: 3 }", file: "w.kss")
        let s = try #require(sheet)
        #expect(diags.map(\.code) == ["unknown_property", "unknown_property"])
        #expect(diags.allSatisfy { $0.severity == .warning })
        #expect(
            diags[0].description == "w.kss:3:3: warning: unknown property 'strok-width'; did you mean 'stroke-width'?")
        #expect(diags[1].line == 4 && diags[1].column == 3)
        #expect(s.rules[0].declarations[1].property == nil)
        #expect(s.rules[0].declarations[1].value == .raw("2"))
    }

    @Test func examplesParse() throws {
        let sheet = try parseClean(
            """
            l { class: c }
            @example l { N: 3; D: 2.5; E: 1e2; S: "x"; W: word; Z: null; B: true; zoom: 7; inside: a, b;
                         expect-class: none; }
            """)
        let e = sheet.examples[0]
        #expect(e.layer == "l")
        #expect(e.zoom == 7)
        #expect(e.inside == ["a", "b"])
        #expect(e.expectedClass == .noClass)
        #expect(e.location == StyleLocation(line: 2, column: 1))
        #expect(
            e.properties
                == props(
                    ("N", .int(3)), ("D", .double(2.5)), ("E", .double(100)), ("S", .string("x")),
                    ("W", .string("word")), ("Z", .null), ("B", .bool(true))))
    }

    @Test func columnsCountUnicodeScalars() {
        // "å" and the emoji are one scalar each; the bad colour starts at column 12 on line 2.
        let d = diagnostics(of: "/* åäö */\nå🌲 { fill: #12; }")
        #expect(d.map(\.code) == ["bad_color"])
        #expect(d.first?.line == 2)
        #expect(d.first?.column == 12)
    }
}
