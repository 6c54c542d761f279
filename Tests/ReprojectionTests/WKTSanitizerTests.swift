import Testing

@testable import Reprojection

@Suite struct WKTSanitizerTests {
    private func hostileReason(_ text: String) -> String? {
        do {
            _ = try WKTSanitizer.sanitize(text)
            return nil
        } catch {
            if case .hostile(let why) = error { return why }
            return nil
        }
    }

    private func notWKTReason(_ text: String) -> String? {
        do {
            _ = try WKTSanitizer.sanitize(text)
            return nil
        } catch {
            if case .notWKT(let why) = error { return why }
            return nil
        }
    }

    @Test func cleanTextIsKeptAsCompactWKT() throws {
        let r = try WKTSanitizer.sanitize("\u{FEFF}  " + PrjFixtures.sweref99TM + "\r\n\0\0")
        #expect(r.wkt == PrjFixtures.sweref99TM)
        #expect(r.removed.isEmpty)
    }

    @Test func extensionAndBBoxAreStripped() throws {
        let r = try WKTSanitizer.sanitize(PrjFixtures.withExtension(gridPath: "/dev/zero"))
        #expect(r.removed == ["EXTENSION"])
        #expect(!r.wkt.contains("EXTENSION"))
        #expect(!r.wkt.contains("nadgrids"))
        let b = try WKTSanitizer.sanitize(PrjFixtures.degenerateBBox)
        #expect(b.removed == ["BBOX"])
        #expect(!b.wkt.contains("BBOX"))
        #expect(b.wkt.contains(#"USAGE[SCOPE["x"],AREA["x"]]"#))
    }

    @Test func trailingEsriVertCSIsDroppedButNestedOneRefused() throws {
        let r = try WKTSanitizer.sanitize(PrjFixtures.utm15N + "," + PrjFixtures.esriVertCS)
        #expect(r.removed == ["VERTCS"])
        #expect(r.wkt == PrjFixtures.utm15N)
        let nested = #"COMPD_CS["x","# + PrjFixtures.utm15N + "," + PrjFixtures.esriVertCS + "]"
        #expect(hostileReason(nested)?.contains("VERTCS") == true)
        // A vertical CRS alone is not the CRS of 2D shapes.
        #expect(notWKTReason(PrjFixtures.esriVertCS) != nil)
    }

    @Test(arguments: [
        #"GEOGCS["x +proj=longlat +nadgrids=/dev/zero",DATUM["D",SPHEROID["S",6378137,298]],UNIT["degree",0.01745]]"#,
        #"GEOGCS["x",DATUM["D",SPHEROID["S",6378137,298]],UNIT["degree",0.01745],REMARK["+init=epsg:4326"]]"#,
        #"BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["NTv2"],"#
            + #"PARAMETERFILE["Latitude and longitude difference file","/dev/zero"]]]"#,
        #"BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["NTv2"],"#
            + #"PARAMETERFILE["f","../../etc/passwd"]]]"#,
        #"BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["NTv2"],"#
            + #"PARAMETERFILE["f","a.gsb,b.gsb"]]]"#,
        #"COMPOUNDCRS["c",GEOGCRS["x"],VERTCRS["v",VDATUM["d"],GEOIDMODEL["C:\\geoid.gtx"]]]"#,
        #"BOUNDCRS[SOURCECRS[GEOGCRS["x"]],TARGETCRS[GEOGCRS["y"]],ABRIDGEDTRANSFORMATION["t",METHOD["PROJ-based "#
            + #"coordinate operation"],PARAMETER["PROJ string","+proj=hgridshift +grids=/tmp/x"]]]"#,
    ])
    func fileReferencesAreRefused(_ text: String) {
        #expect(hostileReason(text) != nil)
    }

    @Test func bareGridNamesAndSlashesInNamesAreAllowed() throws {
        let grid =
            #"BOUNDCRS[SOURCECRS[GEOGCRS["NAD27"]],TARGETCRS[GEOGCRS["WGS 84"]],ABRIDGEDTRANSFORMATION["t","#
            + #"METHOD["NTv2"],PARAMETERFILE["Latitude and longitude difference file","ntv2_0.gsb"]]]"#
        #expect(try WKTSanitizer.sanitize(grid).wkt == grid)
        let named = #"PROJCRS["NAD83 / New York Long Island (ftUS)",BASEGEOGCRS["NAD83"]]"#
        #expect(try WKTSanitizer.sanitize(named).wkt == named)
    }

    @Test func sizeDepthAndControlCharactersAreChecked() {
        let big = "GEOGCS[\"" + String(repeating: "x", count: 1 << 20) + "\"]"
        #expect(hostileReason(big)?.contains("bytes") == true)
        let deep = "PROJCS[" + String(repeating: "A[", count: 10_000) + String(repeating: "]", count: 10_001)
        #expect(hostileReason(deep)?.contains("deeper") == true)
        #expect(notWKTReason("G\0E\0O\0G\0C\0S\0") != nil)
        #expect(notWKTReason("   \n") == "the .prj is empty")
        #expect(notWKTReason("+proj=longlat +datum=WGS84")?.contains("not WKT") == true)
        #expect(notWKTReason("EPSG:4326") != nil)
        #expect(notWKTReason(#"GEOGCS["x"],PROJCS["y"]"#) != nil)
        #expect(notWKTReason(#"CONVERSION["x",METHOD["y"]]"#)?.contains("CONVERSION") == true)
    }
}
