import KartpackJSON
import Testing

@Suite struct JSONValueTests {
    @Test func writesCompactEscapedJSON() throws {
        let v = JSONValue.object([
            ("b", .array([.int(-3), .double(0.5), .double(1), .double(1e-7), .bool(true), .null])),
            ("a", .string("quote \" backslash \\ newline \n tab \t nul \u{0} é 🌍")),
        ])
        let text = try v.serialized()
        #expect(
            text == #"{"b":[-3,0.5,1.0,1e-07,true,null],"a":"quote \" backslash \\ newline \n tab \t nul \u0000 é 🌍"}"#)
        #expect(try JSONParser.parse(Array(text.utf8), options: .archiveMetadata) == v)
        #expect(throws: JSONWriteError.self) { try JSONValue.double(.nan).serialized() }
    }

    @Test func parsesStrictlyWithADepthCap() throws {
        #expect(
            try JSONParser.parse(
                Array(#" {"a" : [1, 2.5e3, "\u00e9\ud83c\udf0d"], "b": {}} "#.utf8), options: .archiveMetadata)
                == .object([("a", .array([.int(1), .double(2500), .string("é🌍")])), ("b", .object([]))]))
        for bad in ["", "{", "[1,]", "01", "1.", "\"\u{1}\"", "{\"a\" 1}", "tru", "[1] x", "\"\\x\"", "1e999"] {
            #expect(throws: JSONParseError.self, "\(bad)") {
                try JSONParser.parse(Array(bad.utf8), options: .archiveMetadata)
            }
        }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xff, 0x22], options: .archiveMetadata) }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(deep.utf8), options: .archiveMetadata) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(try JSONParser.parse(Array(ok.utf8), options: .archiveMetadata) != .null)
    }
}
