import Testing
import KartpackJSON

/// The parse error for `text` (nil when it parses).
private func parseError(_ text: String, _ options: JSONParseOptions = JSONParseOptions()) -> JSONParseError? {
    parseError(Array(text.utf8), options)
}

private func parseError(_ bytes: [UInt8], _ options: JSONParseOptions = JSONParseOptions()) -> JSONParseError? {
    do throws(JSONParseError) {
        _ = try JSONParser.parse(bytes, options: options)
        return nil
    } catch {
        return error
    }
}

/// `line:column: message` of the error for `text`, or "ok".
private func located(_ text: String, _ options: JSONParseOptions = JSONParseOptions()) -> String {
    guard let e = parseError(text, options) else { return "ok" }
    return "\(e.line):\(e.column): \(e.message)"
}

@Suite struct JSONParserTests {
    @Test func errorsCarryOffsetLineAndColumn() throws {
        let cases: [(String, String)] = [
            ("{\n  \"version\": 1,\n  \"sources\": [}\n", "3:15: unexpected '}'; expected a JSON value"),
            ("{\"version\": 1,}", "1:15: trailing comma before '}'"),
            ("[1,]", "1:4: trailing comma before ']'"),
            (
                "{\"version\": 1 \"sources\": []}",
                "1:15: expected ',' or '}' after the value of \"version\", found '\"'"
            ),
            ("   \n ", "2:2: the text is empty; expected a JSON value"),
            ("{\"a\": 'x'}", "1:7: strings must use double quotes"),
            ("{\"a\": 1} // note", "1:10: unexpected text after the end of the JSON value"),
            ("/* c */ {}", "1:1: comments are not allowed in JSON"),
            ("{\"name\": \"Vännäs\", x}", "1:20: expected a quoted key, found 'x'"),
            ("{", "1:2: expected a quoted key, found the end of the file"),
            ("{\"a\" 1}", "1:6: expected ':' after the key \"a\", found '1'"),
            ("[1 2]", "1:4: expected ',' or ']' in the array, found '2'"),
            ("01", "1:1: numbers must not have leading zeros"),
            ("-x", "1:2: expected a digit"),
            ("1.e5", "1:3: expected a digit after '.'"),
            ("1e", "1:3: expected a digit in the exponent"),
            ("[1, 1e999]", "1:5: number out of range"),
            ("tru", "1:1: unexpected 't'; expected a JSON value"),
            ("\"\\x\"", "1:2: unknown escape '\\x' in a string"),
            ("\"\\u12g4\"", "1:6: bad hex digit in a \\u escape"),
            ("\"\\u12\"", "1:4: unterminated \\u escape"),
            ("\"\\ud800\"", "1:8: unpaired surrogate in a \\u escape"),
            ("\"\\ud800\\u0041\"", "1:14: unpaired surrogate in a \\u escape"),
            ("\"\\udc00\"", "1:8: unpaired surrogate in a \\u escape"),
            ("\"abc", "1:1: unterminated string"),
            ("\"\u{01}\"", "1:2: control character in a string (write it as an escape)"),
            ("\n\n   ]", "3:4: unexpected ']'; expected a JSON value"),
        ]
        for (text, expected) in cases {
            #expect(located(text) == expected, "\(text.debugDescription)")
        }
        // The offset counts bytes; the column counts characters.
        let e = try #require(parseError("{\"name\": \"Vännäs\", x}"))
        #expect(e.offset == 21)
        #expect(e.description == "expected a quoted key, found 'x' at byte 21")
    }

    @Test func valuesKeepTheirKindsAndOrder() throws {
        let v = try JSONParser.parse(#" {"b" : [1, 2.5e3, -0, 1.0, "\u00e9\ud83c\udf0d\/"], "a": {}, "b": null} "#)
        #expect(
            v
                == .object([
                    ("b", .array([.int(1), .double(2500), .int(0), .double(1), .string("é🌍/")])), ("a", .object([])),
                    ("b", .null),
                ]))
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse(Array("[true,false,null]".utf8)) == .array([.bool(true), .bool(false), .null]))
    }

    @Test func parseDocumentReportsValueLocations() throws {
        let text = "{\n  \"a\": [1, {\"b\": true}],\n  \"é\": \"x\",\n  \"c\": -2\n}"
        let doc = try JSONParser.parseDocument(Array(text.utf8))
        #expect(doc.value["a"]?.arrayValue?.count == 2)
        #expect(doc.location(of: []) == JSONLocation(offset: 0, line: 1, column: 1))
        #expect(doc.location(of: [.key("a")]) == JSONLocation(offset: 9, line: 2, column: 8))
        #expect(doc.location(of: [.key("a"), .index(0)]) == JSONLocation(offset: 10, line: 2, column: 9))
        #expect(doc.location(of: [.key("a"), .index(1), .key("b")]) == JSONLocation(offset: 19, line: 2, column: 18))
        // "é" is two bytes but one column.
        #expect(doc.location(of: [.key("é")]) == JSONLocation(offset: 35, line: 3, column: 8))
        #expect(doc.location(of: [.key("c")]) == JSONLocation(offset: 47, line: 4, column: 8))
        #expect(doc.location(of: [.key("zzz")]) == nil)
        #expect(
            doc.valueLocations.map(\.path) == [
                [], [.key("a")], [.key("a"), .index(0)], [.key("a"), .index(1)], [.key("a"), .index(1), .key("b")],
                [.key("é")], [.key("c")],
            ])
        #expect(doc.duplicateKeys.isEmpty)
        #expect(doc.location(of: [.key("c")])?.description == "4:8")
    }

    @Test func duplicateKeysAreKeptListedOrRejected() throws {
        let text = "{\"a\": 1,\n \"o\": {\"k\": 1, \"k\": 2},\n \"a\": 3}"
        // Kept (the default): every member in file order.
        let kept = try JSONParser.parse(text)
        #expect(kept.objectMembers?.map(\.key) == ["a", "o", "a"])
        #expect(kept["o"]?.objectMembers?.map(\.value) == [.int(1), .int(2)])
        // Listed by parseDocument, with both places.
        let doc = try JSONParser.parseDocument(Array(text.utf8))
        #expect(doc.value == kept)
        #expect(
            doc.duplicateKeys == [
                JSONDuplicateKey(
                    objectPath: [.key("o")], key: "k", location: JSONLocation(offset: 24, line: 2, column: 16),
                    firstLocation: JSONLocation(offset: 16, line: 2, column: 8)),
                JSONDuplicateKey(
                    objectPath: [], key: "a", location: JSONLocation(offset: 34, line: 3, column: 2),
                    firstLocation: JSONLocation(offset: 1, line: 1, column: 2)),
            ])
        // Rejected: an error at the repeated key.
        #expect(located(text, JSONParseOptions(duplicateKeys: .reject)) == "2:16: duplicate key \"k\"")
        #expect(located(#"{"a":1,"b":{"a":2}}"#, JSONParseOptions(duplicateKeys: .reject)) == "ok")
    }

    @Test func depthIsCapped() throws {
        let two = JSONParseOptions(maxDepth: 2)
        #expect(located("[[]]", two) == "ok")
        #expect(located("[1]", two) == "ok")
        #expect(located("[[1]]", two) == "1:3: nested deeper than 2 levels")
        #expect(located(#"{"a":{"b":0}}"#, two) == "1:11: nested deeper than 2 levels")
        // Archive metadata: 64 nested containers with a scalar inside, as the archive parser always allowed.
        func nested(_ n: Int) -> String { String(repeating: "[", count: n) + "1" + String(repeating: "]", count: n) }
        #expect(located(nested(64), .archiveMetadata) == "ok")
        #expect(located(nested(65), .archiveMetadata) == "1:66: nested deeper than 65 levels")
        // The default: 128 levels; a very deep document is an error, not a stack overflow.
        #expect(located(nested(127)) == "ok")
        #expect(located(nested(128)) == "1:129: nested deeper than 128 levels")
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        #expect(located(deep) == "1:129: nested deeper than 128 levels")
    }

    @Test func sizeIsCapped() {
        let capped = JSONParseOptions(maxBytes: 10)
        #expect(located("[1,2,3,45]", capped) == "ok")
        #expect(located("[1,2,3,456]", capped) == "1:1: the text is larger than 10 bytes")
        #expect(located("[1,2,3,456]") == "ok")
    }

    @Test func byteOrderMarkOnlyWhenAllowed() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let withBOM = bom + Array("{\"a\": 1}".utf8)
        #expect(parseError(withBOM)?.message == "unexpected a non-ASCII character; expected a JSON value")
        let allowing = JSONParseOptions(allowsByteOrderMark: true)
        #expect(try JSONParser.parse(withBOM, options: allowing) == .object([("a", .int(1))]))
        // The mark counts as one column, as an editor shows it.
        let e = try #require(parseError(bom + Array("1 x".utf8), allowing))
        #expect("\(e.line):\(e.column) \(e.offset)" == "1:4 5")
        #expect(located("", JSONParseOptions(emptyDocumentMessage: "the file is empty")) == "1:1: the file is empty")
    }

    @Test func loneSurrogatesAreRejectedOrReplaced() throws {
        let replacing = JSONParseOptions(loneSurrogates: .replace)
        #expect(try JSONParser.parse(#""\ud800""#, options: replacing) == .string("\u{FFFD}"))
        #expect(try JSONParser.parse(#""\ud800\u0041""#, options: replacing) == .string("\u{FFFD}A"))
        #expect(try JSONParser.parse(#""\udc00x\ud83d""#, options: replacing) == .string("\u{FFFD}x\u{FFFD}"))
        #expect(try JSONParser.parse(#""\ud83d\ude00""#, options: replacing) == .string("😀"))
        #expect(try JSONParser.parse(#""\ud800""#, options: .archiveMetadata) == .string("\u{FFFD}"))
        #expect(located(#""\ud800""#) == "1:8: unpaired surrogate in a \\u escape")
        #expect(located(#""\ud800\u12""#, replacing) == "1:10: unterminated \\u escape")
    }

    @Test func stringsMustBeValidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        ] {
            let e = parseError(bytes)
            #expect(e?.message == "the string is not valid UTF-8", "\(bytes)")
            #expect(e?.offset == 0)
        }
        #expect(parseError(Array("{\"k\": \"\u{7F}é😀\"}".utf8)) == nil)
    }

    @Test func garbageNeverTraps() {
        // Every proper prefix of an object is an error, never a crash.
        let text = Array(#"{"a": [1, -2.5e-3, "x\u00e9\ud83d\ude00", {"b": null}], "c": true}"#.utf8)
        #expect(parseError(text) == nil)
        for n in 0..<text.count {
            #expect(parseError(Array(text[..<n])) != nil, "prefix \(n)")
        }
        // Random bytes drawn from JSON's alphabet, deterministic: each either parses or fails cleanly.
        let alphabet = Array(#"{}[]":,-+.0123456789eEtrufalsn \u\"#.utf8) + [0x0A, 0xC3, 0xA9, 0xFF, 0x00]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var parsed = 0
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(state % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int((state >> 33) % UInt64(alphabet.count))])
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if let e = parseError(bytes, JSONParseOptions(maxDepth: 8)) {
                #expect(e.line >= 1 && e.column >= 1 && e.offset >= 0 && e.offset <= bytes.count)
            } else {
                parsed += 1
            }
        }
        #expect(parsed < 3000)
    }
}
