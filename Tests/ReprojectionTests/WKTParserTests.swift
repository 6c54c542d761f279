import Testing

@testable import Reprojection

@Suite struct WKTParserTests {
    @Test func parsesNestedNodesStringsAndBareTokens() throws {
        let roots = try WKTParser.parse(
            #"GEOGCS["WGS 84",DATUM["D",SPHEROID["S",6378137.0,298.257223563]],AXIS["Lat",NORTH]]"#)
        #expect(roots.count == 1)
        let g = roots[0]
        #expect(g.keyword == "GEOGCS")
        #expect(g.firstString == "WGS 84")
        #expect(g.childNodes.map(\.keyword) == ["DATUM", "AXIS"])
        let spheroid = g.childNodes[0].childNodes[0]
        #expect(spheroid.children == [.string("S"), .bare("6378137.0"), .bare("298.257223563")])
        #expect(g.childNodes[1].children == [.string("Lat"), .bare("NORTH")])
    }

    @Test func acceptsWhitespaceParenthesesAndLowercase() throws {
        let roots = try WKTParser.parse(" geogcs ( \"x\" ,\n\tunit[ \"degree\" , 0.01745 ] ) ")
        #expect(roots[0].keyword == "geogcs")
        #expect(roots[0].upperKeyword == "GEOGCS")
        #expect(roots[0].wkt == #"geogcs["x",unit["degree",0.01745]]"#)
    }

    @Test func doubledQuotesRoundTrip() throws {
        let roots = try WKTParser.parse(#"REMARK["say ""hi"", then [go]"]"#)
        #expect(roots[0].children == [.string(#"say "hi", then [go]"#)])
        #expect(roots[0].wkt == #"REMARK["say ""hi"", then [go]"]"#)
    }

    @Test func esriCompoundHasTwoRoots() throws {
        let roots = try WKTParser.parse(PrjFixtures.utm15N + "," + PrjFixtures.esriVertCS)
        #expect(roots.map(\.keyword) == ["PROJCS", "VERTCS"])
    }

    @Test(arguments: [
        #"PROJCS["x""#,  // unterminated node
        #"PROJCS["x]"#,  // unterminated string
        #"PROJCS["x",/dev/zero]"#,  // unquoted path
        #"PROJCS["x"] trailing"#,
        #"PROJCS "x""#,
        "[1,2]",
        "",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: WKTParseError.self) { try WKTParser.parse(text) }
    }

    @Test func depthIsCapped() {
        let deep = String(repeating: "A[", count: 10_000) + "1" + String(repeating: "]", count: 10_000)
        #expect(throws: WKTParseError.tooDeep(limit: WKTParser.maxDepth)) { try WKTParser.parse(deep) }
        let ok =
            String(repeating: "A[", count: WKTParser.maxDepth) + "1" + String(repeating: "]", count: WKTParser.maxDepth)
        #expect(throws: Never.self) { try WKTParser.parse(ok) }
    }

    @Test func nodeCountIsCapped() {
        let many = "A[" + Array(repeating: "B[1]", count: WKTParser.maxNodes + 1).joined(separator: ",") + "]"
        #expect(throws: WKTParseError.tooManyNodes(limit: WKTParser.maxNodes)) { try WKTParser.parse(many) }
    }
}
