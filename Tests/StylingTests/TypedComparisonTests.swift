import KartpackCore
import Styling
import Testing

@Suite struct TypedComparisonTests {
    struct Case: Sendable, CustomStringConvertible {
        var filter: String
        var value: PropertyValue?
        var matches: Bool
        var description: String { "\(filter) vs \(String(describing: value))" }
    }

    static let cases: [Case] = [
        // Numbers against numeric attributes.
        Case(filter: "[a = 3]", value: .int(3), matches: true),
        Case(filter: "[a = 3]", value: .double(3.0), matches: true),
        Case(filter: "[a = 3]", value: .uint(3), matches: true),
        Case(filter: "[a = 3.5]", value: .int(3), matches: false),
        Case(filter: "[a < 3.5]", value: .int(3), matches: true),
        Case(filter: "[a > -1]", value: .uint(0), matches: true),
        Case(filter: "[a >= 9007199254740993]", value: .int(9_007_199_254_740_993), matches: true),
        Case(filter: "[a > 9007199254740992]", value: .int(9_007_199_254_740_993), matches: true),
        Case(filter: "[a = 9007199254740993]", value: .int(9_007_199_254_740_992), matches: false),
        Case(filter: "[a = 18446744073709551615]", value: .uint(.max), matches: true),
        Case(filter: "[a <= 2]", value: .double(2.0000001), matches: false),
        Case(filter: "[a != 3]", value: .int(4), matches: true),
        Case(filter: "[a != 3]", value: .int(3), matches: false),
        Case(filter: "[a < 3]", value: .double(.nan), matches: false),
        Case(filter: "[a != 3]", value: .double(.nan), matches: true),
        // Numbers against text attributes: only text that reads as a number.
        Case(filter: "[a = 3]", value: .string("3"), matches: true),
        Case(filter: "[a = 2409]", value: .string(" 2409 "), matches: true),
        Case(filter: "[a = 3]", value: .string("03.0"), matches: true),
        Case(filter: "[a < 3]", value: .string("abc"), matches: false),
        Case(filter: "[a > 3]", value: .string("abc"), matches: false),
        Case(filter: "[a = 3]", value: .string("0x3"), matches: false),
        Case(filter: "[a != 3]", value: .string("abc"), matches: true),
        Case(filter: "[a = 1]", value: .bool(true), matches: false),
        // Text compares as text, case-sensitively.
        Case(filter: "[a = \"3\"]", value: .int(3), matches: false),
        Case(filter: "[a = \"3\"]", value: .string("3"), matches: true),
        Case(filter: "[a = Grus]", value: .string("Grus"), matches: true),
        Case(filter: "[a = grus]", value: .string("Grus"), matches: false),
        Case(filter: "[a != grus]", value: .string("Grus"), matches: true),
        Case(filter: "[a < \"b\"]", value: .string("a"), matches: true),
        Case(filter: "[a >= \"2015-01-01\"]", value: .string("2019-05-01"), matches: true),
        // Code point by code point, as a MapLibre client compares: canonically equivalent text is not equal.
        Case(filter: "[a = \"Västra\"]", value: .string("Va\u{308}stra"), matches: false),
        Case(filter: "[a < \"\u{FF5E}\"]", value: .string("\u{1F600}"), matches: true),  // UTF-16 order
        // Booleans.
        Case(filter: "[a = true]", value: .bool(true), matches: true),
        Case(filter: "[a = false]", value: .bool(true), matches: false),
        Case(filter: "[a != false]", value: .bool(true), matches: true),
        Case(filter: "[a = true]", value: .string("true"), matches: false),
        // Null and missing.
        Case(filter: "[a = null]", value: nil, matches: true),
        Case(filter: "[a = null]", value: .null, matches: true),
        Case(filter: "[a = null]", value: .string(""), matches: false),
        Case(filter: "[a]", value: nil, matches: false),
        Case(filter: "[a]", value: .null, matches: false),
        Case(filter: "[a]", value: .string(""), matches: true),
        Case(filter: "[a]", value: .int(0), matches: true),
        Case(filter: "[a != null]", value: .int(0), matches: true),
        Case(filter: "[a = 3]", value: nil, matches: false),
        Case(filter: "[a = 3]", value: .null, matches: false),
        Case(filter: "[a != 3]", value: nil, matches: true),
        Case(filter: "[a < 3]", value: .null, matches: false),
        // Text operators.
        Case(filter: "[a ^= \"Söd\"]", value: .string("Södra skogsägarna"), matches: true),
        Case(filter: "[a ^= \"söd\"]", value: .string("Södra skogsägarna"), matches: false),
        Case(filter: "[a $= AB]", value: .string("Holmen Skog AB"), matches: true),
        Case(filter: "[a $= AB]", value: .string("ABC"), matches: false),
        Case(filter: "[a *= \"Skog\"]", value: .string("Holmen Skog AB"), matches: true),
        Case(filter: "[a *= \"\"]", value: .string(""), matches: true),
        Case(filter: "[a ^= \"1\"]", value: .int(12), matches: false),
        Case(filter: "[a *= x]", value: nil, matches: false),
        // Regular expressions search; (?i) ignores case.
        Case(filter: "[a =~ \"^L19[0-9]{2}:\"]", value: .string("L1961:4213"), matches: true),
        Case(filter: "[a =~ \"^L19[0-9]{2}:\"]", value: .string("RAÄ L1961:4213"), matches: false),
        Case(filter: "[a =~ \"grav\"]", value: .string("Gravfält"), matches: false),
        Case(filter: "[a =~ \"(?i)grav\"]", value: .string("Gravfält"), matches: true),
        Case(filter: "[a =~ \"fält$\"]", value: .string("Gravfält"), matches: true),
        Case(filter: "[a =~ \"1\"]", value: .int(1), matches: false),
    ]

    @Test(arguments: cases)
    func comparison(_ c: Case) throws {
        let sheet = try parseClean("l\(c.filter) { class: hit }")
        let p = c.value.map { props(("a", $0)) } ?? props(("b", .int(1)))
        #expect((classOf(sheet, "l", p) == "hit") == c.matches)
    }

    @Test func attributeNamesAreCaseInsensitive() throws {
        let sheet = try parseClean("l[typ = x][Klass > 2][\"ÅR\" = 1] { class: hit }")
        #expect(classOf(sheet, "l", props(("TYP", .string("x")), ("KLASS", .int(3)), ("år", .int(1)))) == "hit")
        #expect(classOf(sheet, "l", props(("Typ", .string("x")), ("klass", .int(3)), ("År", .int(1)))) == "hit")
        #expect(classOf(sheet, "l", props(("TYP", .string("X")), ("KLASS", .int(3)), ("år", .int(1)))) == nil)
        #expect(classOf(sheet, "l", props(("TYPE", .string("x")), ("KLASS", .int(3)), ("år", .int(1)))) == nil)
    }

    @Test func regexIsSafeToShareAcrossThreads() async throws {
        let sheet = try parseClean("l[a =~ \"^x[0-9]+$\"] { class: hit }")
        let classifier = StyleClassifier(sheet: sheet)
        let hits = await withTaskGroup(of: Int.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var n = 0
                    for i in 0..<200 {
                        let v = (i + t) % 2 == 0 ? "x\(i)" : "y\(i)"
                        if classifier.style(layer: "l", properties: props(("a", .string(v))), zoom: 0).className
                            == "hit"
                        {
                            n += 1
                        }
                    }
                    return n
                }
            }
            return await group.reduce(0, +)
        }
        #expect(hits == 800)
    }
}
