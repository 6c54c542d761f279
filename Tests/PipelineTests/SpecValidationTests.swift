import KartpackCore
import Testing
/// A valid document with `extra` members spliced into the top level and `source` members into the first source.
private func doc(top: String = "", source: String = "", tiles: String? = nil, output: String = #""path":"o.pmtiles""#)
    -> String
{
    var s = #"{"version":1,"sources":[{"path":"a.shp""# + (source.isEmpty ? "" : "," + source) + "}]"
    if let tiles { s += #","tiles":{"# + tiles + "}" }
    s += #","output":{"# + output + "}"
    if !top.isEmpty { s += "," + top }
    return s + "}"
}

@Suite struct SpecValidationTests {
    @Test func theTemplateIsValid() {
        #expect(specIssues(doc()) == [])
    }

    @Test func unknownKeysNameTheirPathAndTheClosestKey() {
        #expect(specIssues(doc(top: #""sourcs":[]"#)) == ["sourcs: unknown key; did you mean sources?"])
        #expect(specIssues(doc(source: #""minzom":3"#)) == ["sources[0].minzom: unknown key; did you mean minZoom?"])
        #expect(specIssues(doc(tiles: #""MaxZoom":3"#)) == ["tiles.MaxZoom: unknown key; did you mean maxZoom?"])
        #expect(
            specIssues(doc(output: #""path":"o.pmtiles","atribution":"x""#)) == [
                "output.atribution: unknown key; did you mean attribution?"
            ])
        #expect(
            specIssues(doc(top: #""colour":"red""#)) == [
                "colour: unknown key (known keys: version, sources, style, clip, tiles, output, onInputError, "
                    + "maxShrink, "
                    + "memoryBudget, regions)"
            ])
        let second =
            #"{"version":1,"sources":[{"path":"a.shp"},{"path":"b.shp","minzom":3}],"output":{"path":"o.pmtiles"}}"#
        #expect(specIssues(second) == ["sources[1].minzom: unknown key; did you mean minZoom?"])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[0,0,1,1],"bufer":2}"#)) == [
                "clip.bufer: unknown key; did you mean buffer?"
            ])
    }

    /// `"maxZoom": "auto"` is kept as such (canonical form, convert options), with 16 as the highest it may choose;
    /// `--set tiles.maxZoom=auto` says the same, and other words are refused.
    @Test func maxZoomAuto() throws {
        let json = #"{"version": 1, "sources": [{"path": "a.shp"}], "tiles": {"maxZoom": "auto"}, "#
        let spec = try specParse(json + #""output": {"path": "o.pmtiles"}}"#)
        #expect(spec.tiles.maxZoomAuto && spec.tiles.maxZoom == 16)
        #expect(spec.canonicalJSON.contains(#""auto""#))
        #expect(spec.convertOptions.maxZoomAuto)
        let set = try specParse(minimalSpecJSON, overrides: ["tiles.maxZoom=auto"])
        #expect(set.tiles.maxZoomAuto)
        #expect(try !specParse(minimalSpecJSON).canonicalJSON.contains("auto"))
        #expect(
            specIssues(doc(tiles: #""maxZoom":"high""#)) == [
                #"tiles.maxZoom: expected an integer or "auto", got "high""#
            ])
    }

    @Test func duplicateKeysAreErrors() {
        #expect(specIssues(doc(tiles: #""maxZoom":3,"maxZoom":4"#)) == ["tiles.maxZoom: duplicate key"])
    }

    @Test func wrongTypesSayWhatWasExpectedAndWhatWasFound() {
        #expect(
            specIssues(doc(tiles: #""maxZoom":"14""#)) == [#"tiles.maxZoom: expected an integer or "auto", got "14""#])
        #expect(specIssues(doc(tiles: #""maxZoom":13.5"#)) == ["tiles.maxZoom: expected an integer, got 13.5"])
        #expect(specIssues(doc(tiles: #""simplify":true"#)) == ["tiles.simplify: expected a number, got true"])
        #expect(specIssues(doc(source: #""crs":3006"#)) == ["sources[0].crs: expected a string, got 3006"])
        #expect(specIssues(doc(source: #""keep":"AVDNR""#)) == [#"sources[0].keep: expected an array, got "AVDNR""#])
        #expect(specIssues(doc(source: #""keep":["A",1]"#)) == ["sources[0].keep[1]: expected a string, got 1"])
        #expect(specIssues(doc(top: #""tiles":[]"#)) == ["tiles: expected an object, got an array"])
        #expect(specIssues(doc(top: #""style":{}"#)) == ["style: expected a string, got an object"])
        #expect(specIssues("[1]") == [#"expected a JSON object with "version": 1, got an array"#])
    }

    @Test func versionIsRequiredAndMustBeOne() {
        #expect(
            specIssues(#"{"sources":[{"path":"a.shp"}],"output":{"path":"o.pmtiles"}}"#) == [
                #"version: missing required key (this build reads "version": 1)"#
            ])
        // A newer version is reported alone: its other keys may well be unknown to this build.
        #expect(
            specIssues(#"{"version":2,"sources":"whatever","layers":[]}"#) == [
                "version: version 2 is newer than this build of Kartpack \(Kartpack.version) reads (1); upgrade "
                    + "Kartpack"
            ])
        #expect(
            specIssues(doc().replacing(#""version":1"#, with: #""version":0"#)) == [
                "version: unknown version 0; this build reads version 1"
            ])
        #expect(
            specIssues(doc().replacing(#""version":1"#, with: #""version":"1""#)) == [
                #"version: expected an integer, got "1""#
            ])
    }

    @Test func zoomRangesAreChecked() {
        #expect(specIssues(doc(tiles: #""maxZoom":30"#)) == ["tiles.maxZoom: must be between 0 and 24, got 30"])
        #expect(specIssues(doc(tiles: #""minZoom":-1"#)) == ["tiles.minZoom: must be between 0 and 24, got -1"])
        #expect(specIssues(doc(tiles: #""minZoom":10,"maxZoom":8"#)) == ["tiles.minZoom: 10 is above tiles.maxZoom 8"])
        #expect(
            specIssues(doc(source: #""minZoom":12,"maxZoom":11"#)) == ["sources[0].minZoom: 12 is above maxZoom 11"])
        #expect(specIssues(doc(source: #""minZoom":25"#)) == ["sources[0].minZoom: must be between 0 and 24, got 25"])
        #expect(
            specIssues(doc(source: #""minZoom":15"#, tiles: #""minZoom":8,"maxZoom":14"#)) == [
                "sources[0].minZoom: the layer's zooms 15–14 are outside tiles.minZoom–tiles.maxZoom (8–14); the "
                    + "layer would be empty"
            ])
        #expect(
            specIssues(doc(source: #""maxZoom":6"#, tiles: #""minZoom":8"#)) == [
                "sources[0].maxZoom: the layer's zooms 8–6 are outside tiles.minZoom–tiles.maxZoom (8–14); the layer "
                    + "would be empty"
            ])
        // A layer range wider than the package's is clipped to it, not an error.
        #expect(specIssues(doc(source: #""minZoom":2,"maxZoom":20"#, tiles: #""minZoom":8,"maxZoom":14"#)) == [])
    }

    @Test func tileParametersAreChecked() {
        #expect(
            specIssues(doc(tiles: #""extent":5000"#)) == [
                "tiles.extent: must be a power of two (256, 512, … 16384), got 5000"
            ])
        #expect(specIssues(doc(tiles: #""extent":128"#)) == ["tiles.extent: must be between 256 and 16384, got 128"])
        #expect(specIssues(doc(tiles: #""simplify":-1"#)) == ["tiles.simplify: must be between 0 and 1000, got -1"])
        #expect(specIssues(doc(tiles: #""buffer":4096.5"#)) == ["tiles.buffer: must be between 0 and 2048, got 4096.5"])
        #expect(
            specIssues(doc(tiles: #""maxTileBytes":10"#)) == [
                "tiles.maxTileBytes: must be between 1024 and 1000000000, got 10"
            ])
        #expect(
            specIssues(doc(tiles: #""maxTileFeatures":0"#)) == [
                "tiles.maxTileFeatures: must be between 1 and 100000000, got 0"
            ])
    }

    @Test func sourcesAreChecked() {
        #expect(
            specIssues(#"{"version":1,"output":{"path":"o.pmtiles"}}"#) == [
                "sources: missing required key (a list of Shapefiles)"
            ])
        #expect(
            specIssues(#"{"version":1,"sources":[],"output":{"path":"o.pmtiles"}}"#) == [
                "sources: must list at least one source"
            ])
        #expect(
            specIssues(#"{"version":1,"sources":{},"output":{"path":"o.pmtiles"}}"#) == [
                "sources: expected an array, got an object"
            ])
        #expect(
            specIssues(#"{"version":1,"sources":["a.shp"],"output":{"path":"o.pmtiles"}}"#) == [
                #"sources[0]: expected an object, got "a.shp""#
            ])
        #expect(
            specIssues(#"{"version":1,"sources":[{"layer":"x"}],"output":{"path":"o.pmtiles"}}"#) == [
                "sources[0].path: missing required key (the .shp or .gpkg file)"
            ])
        #expect(
            specIssues(#"{"version":1,"sources":[{"path":"a.geojson"}],"output":{"path":"o.pmtiles"}}"#) == [
                #"sources[0].path: expected a .shp or .gpkg file, got "a.geojson""#
            ])
        #expect(specIssues(doc(source: #""layer":"""#)) == ["sources[0].layer: must not be empty"])
        #expect(specIssues(doc(source: #""filter":"  ""#)) == ["sources[0].filter: must not be empty"])
        #expect(specIssues(doc(source: #""encoding":"""#)) == ["sources[0].encoding: must not be empty"])
    }

    @Test func layerNamesMustBeUnique() {
        let explicit =
            #"{"version":1,"sources":[{"path":"a.shp","layer":"x"},{"path":"b.shp","layer":"y"},{"path":"c.shp","#
            + #""layer":"x"}],"output":{"path":"o.pmtiles"}}"#
        #expect(specIssues(explicit) == [#"sources[2].layer: layer name "x" is already used by sources[0]"#])
        let implied =
            #"{"version":1,"sources":[{"path":"d1/roads.shp"},{"path":"d2/roads.shp"}],"output":{"path":"o.pmtiles"}}"#
        #expect(
            specIssues(implied) == [
                #"sources[1].layer: layer name "roads" (from the file name) is already used by sources[0]"#
            ])
    }

    @Test func keepAndRenameAreChecked() {
        #expect(specIssues(doc(source: #""keep":["A","B","A"]"#)) == [#"sources[0].keep[2]: "A" is listed twice"#])
        #expect(
            specIssues(doc(source: #""keep":["A"],"rename":{"B":"b"}"#)) == [
                "sources[0].rename.B: B is not listed in keep, so it is not written; add it to keep or remove the "
                    + "rename"
            ])
        #expect(
            specIssues(doc(source: #""rename":{"A":"x","B":"x"}"#)) == [
                #"sources[0].rename.B: "x" is already the new name of A"#
            ])
        #expect(
            specIssues(doc(source: #""keep":["A","B"],"rename":{"A":"B"}"#)) == [
                #"sources[0].rename.A: "B" is also the name of a kept attribute; the names would clash"#
            ])
        // Swapping two names is fine.
        #expect(specIssues(doc(source: #""keep":["A","B"],"rename":{"A":"B","B":"A"}"#)) == [])
        #expect(specIssues(doc(source: #""rename":{"A":1}"#)) == ["sources[0].rename.A: expected a string, got 1"])
        #expect(specIssues(doc(source: #""rename":{"A.B":""}"#)) == [#"sources[0].rename["A.B"]: must not be empty"#])
        #expect(
            specIssues(doc(source: #""rename":["A","B"]"#)) == [
                "sources[0].rename: expected an object of old name → new name, got an array"
            ])
        // Without keep, a rename of any attribute is accepted.
        #expect(specIssues(doc(source: #""rename":{"BESTTYP":"typ"}"#)) == [])
    }

    @Test func clipIsChecked() {
        #expect(
            specIssues(doc(top: #""clip":{"path":"k.shp","bbox":[0,0,1,1]}"#)) == [
                "clip: give either path or bbox, not both"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"buffer":5}"#)) == [
                "clip: needs either path (a polygon Shapefile) or bbox ([minLon, minLat, maxLon, maxLat])"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[0,0,1]}"#)) == [
                "clip.bbox: expected [minLon, minLat, maxLon, maxLat], got 3 values"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[0,95,1,96]}"#)) == [
                "clip.bbox[1]: minLat must be between -90 and 90, got 95 (the order is [minLon, minLat, maxLon, "
                    + "maxLat])",
                "clip.bbox[3]: maxLat must be between -90 and 90, got 96 (the order is [minLon, minLat, maxLon, "
                    + "maxLat])",
            ])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[19.8,63.9,19.5,64.0]}"#)) == [
                "clip.bbox: minLon 19.8 must be below maxLon 19.5 (the order is [minLon, minLat, maxLon, maxLat])"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[19.5,64,19.8,64]}"#)) == [
                "clip.bbox: minLat 64 must be below maxLat 64 (the order is [minLon, minLat, maxLon, maxLat])"
            ])
        #expect(specIssues(doc(top: #""clip":{"bbox":[0,"0",1,1]}"#)) == [#"clip.bbox[1]: expected a number, got "0""#])
        #expect(
            specIssues(doc(top: #""clip":{"bbox":[0,0,1,1],"filter":"[A = 1]"}"#)) == [
                "clip.filter: only allowed with clip.path (a bbox has no attributes)"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"path":"k.shp","buffer":-5}"#)) == [
                "clip.buffer: must be between 0 and 1000000, got -5"
            ])
        #expect(
            specIssues(doc(top: #""clip":{"path":"k.geojson"}"#)) == [
                #"clip.path: expected a .shp or .gpkg file, got "k.geojson""#
            ])
        #expect(specIssues(doc(top: #""clip":{"path":"k.shp","filter":""}"#)) == ["clip.filter: must not be empty"])
    }

    @Test func outputIsChecked() {
        #expect(
            specIssues(#"{"version":1,"sources":[{"path":"a.shp"}]}"#) == [
                #"output: missing required key (an object with at least "path")"#
            ])
        #expect(
            specIssues(doc(output: #""name":"x""#)) == [
                "output.path: missing required key (the .pmtiles or .mbtiles file to write)"
            ])
        #expect(
            specIssues(doc(output: #""path":"o.zip""#)) == [
                #"output.path: must end in .pmtiles or .mbtiles, got "o.zip""#
            ])
        #expect(specIssues(doc(output: #""path":".pmtiles""#)) == ["output.path: needs a file name before .pmtiles"])
        #expect(
            specIssues(doc(output: #""path":"o.pmtiles","format":"mbtiles""#)) == [
                #"output.format: "mbtiles" does not match output.path, which ends in .pmtiles"#
            ])
        #expect(
            specIssues(doc(output: #""path":"o.pmtiles","format":"geojson""#)) == [
                #"output.format: expected "pmtiles" or "mbtiles", got "geojson""#
            ])
        #expect(specIssues(doc(output: #""path":"o.pmtiles","name":"""#)) == ["output.name: must not be empty"])
        #expect(specIssues(doc(output: #""path":"o.pmtiles","description":"""#)) == [])
    }

    @Test func everyProblemIsReportedAtOnceSectionBySection() {
        let json = #"""
            {"version": 1,
             "sources": [{"path": "a.shp", "minzom": 3}, {"path": "b.txt"}],
             "tiles": {"maxZoom": "14", "extent": 100},
             "clip": {"bbox": [1, 2, 3]},
             "output": {"path": "o.zip"}}
            """#
        #expect(
            specIssues(json) == [
                #"tiles.maxZoom: expected an integer or "auto", got "14""#,
                "tiles.extent: must be between 256 and 16384, got 100",
                "sources[0].minzom: unknown key; did you mean minZoom?",
                #"sources[1].path: expected a .shp or .gpkg file, got "b.txt""#,
                "clip.bbox: expected [minLon, minLat, maxLon, maxLat], got 3 values",
                #"output.path: must end in .pmtiles or .mbtiles, got "o.zip""#,
            ])
    }
}
