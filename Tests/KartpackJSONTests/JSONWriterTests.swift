import KartpackJSON
import Testing

@Suite struct JSONWriterTests {
    /// A value with every kind, nested objects, a short and a long flat array and awkward strings.
    static let sample = JSONValue.object([
        ("version", .int(8)),
        ("b", .array([.int(1), .double(2.5), .double(-300), .string("x\"é😀"), .bool(true), .bool(false), .null])),
        (
            "a",
            .object([("é", .object([])), ("Z", .array([])), ("c", .array([.int(1), .array([.int(2)]), .object([])]))])
        ),
        ("long", .array((1...10).map { .int(Int64($0) * 1_111_111_111) })),
        ("mixed", .array([.array([.int(1), .int(2)]), .array([.int(3), .object([("k", .double(0.1))])])])),
        ("s", .string("q\" b\\ n\n t\t bs\u{8} ff\u{C} nul\u{0} del\u{7F} ls\u{2028} ps\u{2029} /")),
    ])

    @Test func compactKeepsOrderAndShortestDoubles() throws {
        let text = Self.sample.text(.compact)
        #expect(
            text
                == #"{"version":8,"b":[1,2.5,-300.0,"x\"é😀",true,false,null],"a":{"é":{},"Z":[],"c":[1,[2],{}]},"#
                + #""long":[1111111111,2222222222,3333333333,4444444444,5555555555,6666666666,7777777777,"#
                + #"8888888888,9999999999,11111111110],"mixed":[[1,2],[3,{"k":0.1}]],"s":"q\" b\\ n\n t\t "#
                + #"bs\b ff\f nul\u0000 del\u007f ls\u2028 ps\u2029 /"}"#
        )
        #expect(JSONValue.object([]).text() == "{}")
        #expect(try Self.sample.serialized() == text)
        #expect(try JSONParser.parse(text) == Self.sample)
    }

    @Test func prettyHasTheStyleLayout() throws {
        let expected = """
            {
              "version": 8,
              "b": [1,2.5,-300.0,"x\\"é😀",true,false,null],
              "a": {
                "é": {},
                "Z": [],
                "c": [1,[2],{}]
              },
              "long": [
                1111111111,
                2222222222,
                3333333333,
                4444444444,
                5555555555,
                6666666666,
                7777777777,
                8888888888,
                9999999999,
                11111111110
              ],
              "mixed": [
                [1,2],
                [
                  3,
                  {
                    "k": 0.1
                  }
                ]
              ],
              "s": "q\\" b\\\\ n\\n t\\t bs\\b ff\\f nul\\u0000 del\\u007f ls\\u2028 ps\\u2029 /"
            }

            """
        #expect(Self.sample.text(.pretty) == expected)
        #expect(JSONValue.int(3).text(.pretty) == "3\n")
        #expect(JSONValue.array([]).text(.pretty) == "[]\n")
        #expect(try JSONParser.parse(expected) == Self.sample)
    }

    @Test func canonicalSortsKeysAndFixesNumbers() {
        let v = JSONValue.object([
            ("é", .int(1)),
            ("b", .array([.double(2), .double(0.5), .double(1e-7), .double(-0.0), .double(9_007_199_254_740_992)])),
            ("B", .object([("z", .null), ("a", .double(1e21))])), ("a", .string("\u{8}")), ("ab", .bool(false)),
        ])
        #expect(
            v.text(.canonical)
                == #"{"B":{"a":1e+21,"z":null},"a":"\b","ab":false,"b":[2,0.5,1e-07,0,9007199254740992.0],"é":1}"#)
        #expect(JSONWriter.canonicalNumber(3) == "3")
        #expect(JSONWriter.canonicalNumber(-2.25) == "-2.25")
        #expect(JSONWriter.canonicalNumber(9_007_199_254_740_991) == "9007199254740991")
        #expect(JSONWriter.canonicalNumber(.infinity) == "null")
        #expect(JSONWriter.quoted("a\"b\\c\u{1F}") == #""a\"b\\c\u001f""#)
    }

    @Test func nonFiniteNumbersAreNullOrRefused() {
        let v = JSONValue.array([.double(.nan), .double(-.infinity), .double(1)])
        #expect(v.text(.compact) == "[null,null,1.0]")
        #expect(v.text(.pretty) == "[null,null,1.0]\n")
        #expect(v.text(.canonical) == "[null,null,1]")
        #expect(throws: JSONWriteError.self) { try v.serialized() }
        #expect(throws: JSONWriteError.self) {
            try JSONValue.object([("a", .array([.double(.infinity)]))]).serialized()
        }
    }
}
