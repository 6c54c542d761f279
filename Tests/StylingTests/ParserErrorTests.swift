import Styling
import Testing

@Suite struct ParserErrorTests {
    struct Case: Sendable, CustomStringConvertible {
        var text: String
        var code: String
        var line: Int
        var column: Int
        var description: String { code }
    }

    static let cases: [Case] = [
        Case(text: "l[a = \"open\n] { class: c }", code: "unterminated_string", line: 1, column: 7),
        Case(text: "l { class: c }\n  /* never closed", code: "unterminated_comment", line: 2, column: 3),
        Case(text: "l {\n  class: c;\n", code: "missing_brace", line: 1, column: 3),
        Case(text: "l { class: c;\nm { class: d }", code: "missing_brace", line: 1, column: 3),
        Case(text: "l[a == 3] { class: c }", code: "bad_operator", line: 1, column: 5),
        Case(text: "l[a ~= 3] { class: c }", code: "bad_operator", line: 1, column: 5),
        Case(text: "l[zoom ^= 3] { class: c }", code: "bad_operator", line: 1, column: 8),
        Case(text: "l {\n fill: #12345; }", code: "bad_color", line: 2, column: 8),
        Case(text: "l { stroke: reddish }", code: "bad_color", line: 1, column: 13),
        Case(text: "l[a =~ \"(unclosed\"] { class: c }", code: "bad_regex", line: 1, column: 8),
        Case(text: "l[zoom >= ten] { class: c }", code: "bad_zoom_value", line: 1, column: 11),
        Case(text: "l[zoom] { class: c }", code: "bad_zoom_value", line: 1, column: 2),
        Case(text: "l { min-zoom: 25 }", code: "bad_zoom_value", line: 1, column: 15),
        Case(text: "l { max-zoom: 3.5 }", code: "bad_zoom_value", line: 1, column: 15),
        Case(text: "l { fill-pattern: stripes }", code: "unknown_pattern", line: 1, column: 19),
        Case(text: "l { class: 9lives }", code: "bad_class_name", line: 1, column: 12),
        Case(text: "l { class: \"has space\" }", code: "bad_class_name", line: 1, column: 12),
        Case(text: "}\nl { class: c }", code: "stray_token", line: 1, column: 1),
        Case(text: "l { class: c }\n  ; ", code: "stray_token", line: 2, column: 3),
        Case(text: "l { class: c } %", code: "stray_character", line: 1, column: 16),
        Case(text: "l > m { class: c }", code: "bad_selector", line: 1, column: 3),
        Case(text: "l [a] { class: c }", code: "bad_selector", line: 1, column: 3),
        Case(text: "* m { class: c }", code: "bad_selector", line: 1, column: 1),
        Case(text: "l { class: a b }", code: "bad_value", line: 1, column: 14),
        Case(text: "l { stroke-width: 2px }", code: "bad_value", line: 1, column: 19),
        Case(text: "l { stroke-width: -1 }", code: "bad_value", line: 1, column: 19),
        Case(text: "l { fill-opacity: 1.5 }", code: "bad_value", line: 1, column: 19),
        Case(text: "l { exclude: yes }", code: "bad_value", line: 1, column: 14),
        Case(text: "l { coalesce: 1 }", code: "bad_value", line: 1, column: 15),
        Case(text: "l { class: a\n  fill: #fff }", code: "missing_semicolon", line: 2, column: 3),
        Case(text: "l { class: }", code: "missing_value", line: 1, column: 12),
        Case(text: "l[a = \"\\q\"] { class: c }", code: "bad_escape", line: 1, column: 8),
        Case(text: "l[a = \"\\ud800\"] { class: c }", code: "bad_escape", line: 1, column: 8),
        Case(text: "l[a < null] { class: c }", code: "bad_filter", line: 1, column: 7),
        Case(text: "l[a = 1 { class: c }", code: "bad_filter", line: 1, column: 9),
        Case(text: "@media l { class: c }", code: "unknown_at_rule", line: 1, column: 1),
        Case(text: "@example l { zoom: x; expect-class: c }", code: "bad_zoom_value", line: 1, column: 20),
    ]

    @Test(arguments: cases)
    func errorHasPosition(_ c: Case) {
        let (sheet, diags) = Stylesheet.parse(c.text, file: "bad.kss")
        #expect(sheet == nil)
        let errors = diags.filter { $0.severity == .error }
        #expect(errors.first?.code == c.code, "\(diags)")
        #expect(errors.first?.line == c.line, "\(diags)")
        #expect(errors.first?.column == c.column, "\(diags)")
        #expect(errors.first?.file == "bad.kss")
    }

    @Test func descriptionIsCompilerStyle() {
        let d = diagnostics(of: "l { fill-pattern: stripes }")
        #expect(d.first?.description.hasPrefix("t.kss:1:19: error: unknown fill pattern 'stripes'") == true)
    }

    @Test func parsingGoesOnAfterAnErrorAndReportsEveryRule() {
        let d = diagnostics(of: "a { fill: #zz }\nb[x ?? 1] { class: c }\nc { class: ok }\nd { min-zoom: 99 }")
        #expect(d.map(\.code) == ["bad_color", "stray_character", "stray_character", "bad_filter", "bad_zoom_value"])
        #expect(d.map(\.line) == [1, 2, 2, 2, 4])
    }

    @Test func errorsComeSortedByPosition() {
        let d = diagnostics(of: "l { class: 1x; }\n\"open")
        #expect(d.map(\.code) == ["bad_class_name", "unterminated_string", "bad_selector"])
        #expect(d.map(\.line) == [1, 2, 2])
    }
}
