import KartpackCore
import Testing

@Suite struct LintAndExampleTests {
    static let layers = [
        LayerSchema(
            name: "hansyn", geometryKind: .polygon,
            fields: [FieldDefinition(name: "TYP", type: .string), FieldDefinition(name: "AREAL", type: .double)],
            crs: nil, bounds: nil, recordCount: 0, encoding: nil),
        LayerSchema(
            name: "vagar", geometryKind: .lineString,
            fields: [FieldDefinition(name: "KLASS", type: .integer), FieldDefinition(name: "ASFALT", type: .logical)],
            crs: nil, bounds: nil, recordCount: 0, encoding: nil),
    ]

    @Test func lintWarnsAboutRulesThatCannotMatch() throws {
        let sheet = try parseClean(
            """
            hansyn[typ = x] { class: ok }
            hansin { class: typo }
            hansyn[TYPE = x] { class: nofield }
            vagar[KLASS = "3"] { class: textnum }
            hansyn[TYP > 3] { class: ordertext }
            vagar[KLASS ^= "1"] { class: textop }
            vagar[ASFALT = true][KLASS = 2] { class: fine }
            vagar[ASFALT = 1] { class: boolnum }
            *[AREAL > 1] { class: star-ok }
            *[NOPE] { class: star-missing }
            vagar { min-zoom: 12; max-zoom: 8; label: NAMN; keep: KLASS, BREDD }
            hansin vagar { class: bad-ancestor }
            hansyn { identity: TYP, OWNER; thinning: never }
            """)
        let d = sheet.lint(layers: Self.layers)
        #expect(d.allSatisfy { $0.severity == .warning })
        let got = d.map { "\($0.line):\($0.column) \($0.code)" }
        #expect(
            got == [
                "2:1 unknown_layer",
                "3:7 unknown_field",
                "4:6 type_mismatch",
                "5:7 type_mismatch",
                "6:6 type_mismatch",
                "8:6 type_mismatch",
                "10:2 unknown_field",
                "11:9 zoom_range",
                "11:36 unknown_field",
                "11:49 unknown_field",
                "12:1 unknown_layer",
                "13:10 unknown_field",
            ])
        #expect(d.last?.message.contains("OWNER") == true && d.last?.message.contains("identity") == true)
        #expect(d[0].message.contains("hansin") && d[0].message.contains("hansyn, vagar"))
        #expect(d[1].message.contains("TYPE") && d[1].message.contains("TYP, AREAL"))
    }

    @Test func lintWithoutLayersOnlyChecksTheSheet() throws {
        let sheet = try parseClean("nowhere[x = 1] { min-zoom: 5; max-zoom: 4 }")
        #expect(sheet.lint(layers: []).map(\.code) == ["zoom_range"])
    }

    @Test func examplesPassAndFail() throws {
        let sheet = try parseClean(
            """
            hansyn { class: consideration }
            hansyn[TYP = "Natura2000"][zoom >= 10] { class: natura2000 }
            fastigheter[AGARE ^= "Södra"] avdelningar { class: member-stand }
            @example hansyn { TYP: "Natura2000"; zoom: 12; expect-class: natura2000; }
            @example hansyn { TYP: "Natura2000"; zoom: 8; expect-class: natura2000; }
            @example hansyn { TYP: "Natura2000"; zoom: 8; expect-class: consideration; }
            @example vagar { expect-class: none; }
            @example vagar { KLASS: 1; }
            @example avdelningar { inside: Fastigheter; expect-class: member-stand; }
            @example avdelningar { expect-class: member-stand; }
            """)
        let d = sheet.runExamples()
        #expect(
            d.map { "\($0.line) \($0.severity) \($0.code)" } == [
                "5 error example_failed",
                "8 warning example_without_expectation",
                "10 error example_failed",
            ])
        #expect(d[0].message.contains("expected class 'natura2000', got class 'consideration'"))
        #expect(d[0].message.contains("zoom 8"))
        #expect(d[2].message.contains("got no class"))
        #expect(d[0].description.hasPrefix("test.kss:5:1: error: example failed"))
    }
}
