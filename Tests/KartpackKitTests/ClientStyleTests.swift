import Foundation
import KartpackTestSupport
import Testing

@testable import KartpackKit

/// `ClientStyle` on hand-written style folders: the expression subset, MapLibre's run-time semantics, the sprite,
/// and refusals of what it cannot evaluate. (The sample's looks against the Swift cascade are checked through the
/// binary in scripts/interop/test_kartpack_kit_style.py.)
@Suite struct ClientStyleTests {
    /// A style folder with `layers` (JSON text) and, when `sprite` is set, a sprite index and a PNG header.
    static func folder(_ layers: String, sprite: String? = nil, version: String = "8") throws
        -> TemporaryDirectory
    {
        let dir = try TemporaryDirectory(prefix: "kit-style")
        let spriteMember = sprite == nil ? "" : #", "sprite": "sprite""#
        let style =
            #"{"version": \#(version), "name": "t", "sources": {}\#(spriteMember), "layers": [\#(layers)]}"#
        try Data(style.utf8).write(to: dir.url.appendingPathComponent("style.json"))
        if let sprite {
            try Data(sprite.utf8).write(to: dir.url.appendingPathComponent("sprite.json"))
            try png(width: 64, height: 32).write(to: dir.url.appendingPathComponent("sprite.png"))
        }
        return dir
    }

    /// The signature and IHDR chunk of a PNG (all `ClientStyle` reads of it).
    static func png(width: Int, height: Int) -> Data {
        func be(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((v >> $0) & 0xFF) } }
        return Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + be(width)
                + be(height)
                + [8, 6, 0, 0, 0, 0, 0, 0, 0])
    }

    static func props(_ p: [(String, FeatureValue)]) -> [(key: String, value: FeatureValue)] {
        p.map { ($0.0, $0.1) }
    }

    @Test func classFilterFlagsAndCaseGiveTheLook() throws {
        let dir = try Self.folder(
            #"""
            {"id": "bg", "type": "background", "paint": {"background-color": "#f4f3ef"}},
            {"id": "a-stand-fill", "type": "fill", "source": "k", "source-layer": "a", "minzoom": 8,
             "filter": ["==", ["get", "class"], "stand"],
             "paint": {"fill-color": ["case", ["==", ["get", "kp:r3s0"], true], "#ff0000",
                        ["all", ["==", ["typeof", ["get", "AGE"]], "number"], [">", ["get", "AGE"], 80]], "#00ff00",
                        "rgba(0, 0, 255, 0.5)"],
                       "fill-opacity": ["*", 0.5, 0.8]}},
            {"id": "a-stand-outline", "type": "line", "source": "k", "source-layer": "a", "maxzoom": 12,
             "filter": ["all", ["==", ["get", "class"], "stand"], ["!", ["has", "hidden"]]],
             "layout": {"line-join": "round"},
             "paint": {"line-color": "#2e7d32", "line-width": 2, "line-dasharray": [2, 1]}},
            {"id": "a-labels", "type": "symbol", "source": "k", "source-layer": "a_labels",
             "layout": {"text-field": ["to-string", ["get", "NAME"]], "text-font": ["Noto Sans Regular"],
              "text-size": 12},
             "paint": {"text-color": "#333333"}}
            """#)
        let style = try ClientStyle(contentsOf: dir.url)
        #expect(style.background == LookColor(red: 0xf4, green: 0xf3, blue: 0xef))
        #expect(style.layerIDs == ["bg", "a-stand-fill", "a-stand-outline", "a-labels"])
        let plain = style.look(
            layer: "a", properties: Self.props([("class", .string("stand")), ("AGE", .int(40))]),
            geometry: .polygon(multi: false), zoom: 10)
        #expect(
            plain.fill
                == FillLook(color: LookColor(red: 0, green: 0, blue: 255, alpha: 0.5), opacity: 0.4))
        #expect(
            plain.stroke
                == StrokeLook(
                    isOutline: true, color: LookColor(red: 0x2e, green: 0x7d, blue: 0x32),
                    width: 2, opacity: 1, dashes: [2, 1]))
        let old = style.look(
            layer: "a", properties: Self.props([("class", .string("stand")), ("AGE", .double(81))]),
            geometry: .polygon(multi: true), zoom: 12)
        #expect(old.fill?.color == LookColor(red: 0, green: 255, blue: 0))
        #expect(old.stroke == nil)  // maxzoom 12 is exclusive
        let flagged = style.look(
            layer: "a",
            properties: Self.props([
                ("class", .string("stand")), ("AGE", .string("old")), ("kp:r3s0", .bool(true)),
            ]),
            geometry: .polygon(multi: false), zoom: 8)
        #expect(flagged.fill?.color == LookColor(red: 255, green: 0, blue: 0))
        #expect(
            style.look(
                layer: "a", properties: Self.props([("class", .string("stand"))]),
                geometry: .polygon(multi: false), zoom: 7.99
            ).fill == nil)  // below minzoom
        #expect(
            style.look(
                layer: "a", properties: Self.props([("class", .string("other"))]),
                geometry: .polygon(multi: false), zoom: 10
            ).isEmpty)
        #expect(
            style.look(
                layer: "a", properties: Self.props([("class", .string("stand"))]),
                geometry: .point(multi: false), zoom: 10
            ).isEmpty)  // fill and line draw no points
        let hidden = style.look(
            layer: "a", properties: Self.props([("class", .string("stand")), ("hidden", .bool(false))]),
            geometry: .line(multi: false), zoom: 10)
        #expect(hidden.isEmpty)
        let label = style.look(
            layer: "a_labels", properties: Self.props([("NAME", .double(12))]),
            geometry: .point(multi: false), zoom: 3
        ).label
        #expect(
            label
                == LabelLook(
                    text: "12", field: "NAME", color: LookColor(red: 0x33, green: 0x33, blue: 0x33), size: 12,
                    haloColor: LookColor(red: 0, green: 0, blue: 0, alpha: 0), haloWidth: 0,
                    font: ["Noto Sans Regular"], placement: "point"))
    }

    @Test func textOperatorsZoomCurvesAndRunTimeErrors() throws {
        let dir = try Self.folder(
            #"""
            {"id": "l", "type": "line", "source-layer": "r",
             "filter": ["any", ["all", ["==", ["typeof", ["get", "O"]], "string"], ["==", ["index-of", "Söd", ["get",
              "O"]], 0]],
                               ["all", ["==", ["typeof", ["get", "O"]], "string"], ["==", ["slice", ["get", "O"],
                                -2], "åb"]],
                               ["<", ["get", "O"], 3]],
             "paint": {"line-width": ["interpolate", ["linear"], ["zoom"], 10, 1, 14, 5],
                       "line-color": ["step", ["zoom"], "#000000", 12, "#ffffff"],
                       "line-opacity": ["match", ["get", "K"], ["a", "b"], 0.5, "c", 0.25, 1],
                       "line-dasharray": ["literal", [3, 1]]}},
            {"id": "c", "type": "circle", "source-layer": "p",
             "paint": {"circle-radius": ["coalesce", ["get", "R"], 7], "circle-color": ["get", "COLOR"]}}
            """#)
        let style = try ClientStyle(contentsOf: dir.url.appendingPathComponent("style.json"))
        func line(_ o: FeatureValue?, _ k: String? = nil, zoom: Double = 12) -> StrokeLook? {
            var p: [(key: String, value: FeatureValue)] = []
            if let o { p.append(("O", o)) }
            if let k { p.append(("K", .string(k))) }
            return style.look(layer: "r", properties: p, geometry: .line(multi: false), zoom: zoom).stroke
        }
        #expect(line(.string("Södra skogsägarna")) != nil)
        #expect(line(.string("Norra")) == nil)
        #expect(line(.string("Sjöåb")) != nil)  // slice counts code points
        #expect(line(.int(2)) != nil)
        #expect(line(nil) == nil)  // `<` of null and a number is a run-time error: filter false
        let s = try #require(line(.int(1), "b", zoom: 11))
        #expect(s.width == 2 && s.color == .black && s.opacity == 0.5 && s.dashes == [3, 1])
        #expect(line(.int(1), "c", zoom: 14)?.width == 5)
        #expect(line(.int(1), "c", zoom: 20)?.color == LookColor(red: 255, green: 255, blue: 255))
        #expect(line(.int(1), "c")?.opacity == 0.25)
        let c = style.look(
            layer: "p", properties: [("COLOR", .string("not a colour"))], geometry: .point(multi: false),
            zoom: 1)
        #expect(c.circle?.radius == 7 && c.circle?.color == .black)  // a bad colour falls back to the default
        let d = style.look(
            layer: "p", properties: [("R", .int(3)), ("COLOR", .string("#abc"))],
            geometry: .point(multi: false), zoom: 1)
        #expect(
            d.circle?.radius == 3 && d.circle?.color == LookColor(red: 0xaa, green: 0xbb, blue: 0xcc))
    }

    @Test func spriteImagesAtEachPixelRatio() throws {
        let dir = try Self.folder(
            #"""
            {"id": "p", "type": "fill", "source-layer": "h", "paint": {"fill-pattern": "pattern-dots"}},
            {"id": "i", "type": "symbol", "source-layer": "f", "layout": {"icon-image": ["case", ["has", "X"], "pit",
             "gone"]}}
            """#,
            sprite:
                #"{"pattern-dots": {"x": 0, "y": 0, "width": 8, "height": 8, "pixelRatio": 1}, "pit": {"x": 8, "y": 0,"#
                + #" "width": 20, "height": 20, "pixelRatio": 1}}"#
        )
        try Data(
            #"{"pattern-dots": {"x": 0, "y": 0, "width": 16, "height": 16, "pixelRatio": 2}}"#.utf8
        )
        .write(to: dir.url.appendingPathComponent("sprite@2x.json"))
        try Self.png(width: 16, height: 16).write(to: dir.url.appendingPathComponent("sprite@2x.png"))
        let style = try ClientStyle(contentsOf: dir.url)
        let pattern = try #require(
            style.look(layer: "h", properties: [], geometry: .polygon(multi: false), zoom: 5).pattern)
        #expect(pattern.name == "pattern-dots" && pattern.opacity == 1)
        let set = try #require(pattern.image)
        #expect(set.images.map(\.pixelRatio) == [1, 2])
        #expect(set.image(forScale: 3)?.pixelRatio == 2 && set.image(forScale: 1)?.pixelRatio == 1)
        #expect(set.images[1].size == (8, 8) && set.images[1].rect == (0, 0, 16, 16))
        #expect(set.images[0].sheet.count == Self.png(width: 64, height: 32).count)
        let icon = style.look(
            layer: "f", properties: [("X", .int(1))], geometry: .point(multi: false), zoom: 5
        ).icon
        #expect(icon?.name == "pit")
        #expect(icon?.image?.images.first.map { $0.rect == (8, 0, 20, 20) } == true)
        let gone = style.look(layer: "f", properties: [], geometry: .point(multi: false), zoom: 5).icon
        #expect(gone?.name == "gone" && gone?.image == nil)  // MapLibre draws nothing for a missing image
    }

    @Test func unsupportedStylesAreRefusedWithTheLayerAndReason() throws {
        let cases: [(layers: String, sprite: String?, version: String, says: String)] = [
            (
                #"{"id": "x", "type": "fill", "paint": {"fill-color": ["hsl-magic", 1]}}"#, nil, "8",
                "hsl-magic"
            ),
            (
                #"{"id": "x", "type": "fill", "filter": ["==", "class", "stand"]}"#, nil, "8",
                "legacy filter"
            ),
            (#"{"id": "x", "type": "fill", "filter": ["!in", "class", "a"]}"#, nil, "8", "legacy filter"),
            (
                #"{"id": "x", "type": "fill", "paint": {"fill-opacity": {"stops": [[1, 0], [5, 1]]}}}"#,
                nil, "8", "object"
            ),
            (#"{"id": "x", "type": "heatmap"}"#, nil, "8", "heatmap"),
            (#"{"id": "x", "type": "line", "minzoom": 99}"#, nil, "8", "minzoom"),
            (
                #"{"id": "x", "type": "line", "paint": {"line-width": ["interpolate", ["cubic-bezier", 0, 0, 1, 1], "#
                    + #"["zoom"], 1, 1, 2, 2]}}"#,
                nil, "8", "cubic-bezier"
            ),
            (
                #"{"id": "x", "type": "line", "paint": {"line-width": ["step", ["zoom"], 1, 5, 2, 3, 4]}}"#,
                nil, "8", "ascending"
            ),
            (
                #"{"id": "x", "type": "line", "paint": {"line-width": ["case", true, 1]}}"#, nil, "8",
                "case"
            ),
            (
                #"{"id": "x", "type": "line", "paint": {"line-width": ["get", ["concat", "a", "b"]]}}"#,
                nil, "8", "constant"
            ),
            (#"{"type": "line"}"#, nil, "8", "id"),
            ("", nil, "7", "version"),
            ("", #"{"a": {"x": 60, "y": 0, "width": 8, "height": 8}}"#, "8", "outside"),
            ("", #"{"a": {"x": -1, "y": 0, "width": 8, "height": 8}}"#, "8", "whole number"),
            ("", #"[1, 2]"#, "8", "object"),
        ]
        for c in cases {
            let dir = try Self.folder(c.layers, sprite: c.sprite, version: c.version)
            #expect {
                try ClientStyle(contentsOf: dir.url)
            } throws: { error in
                guard case .invalidStyle(_, let reason) = error as? KartpackKitError else { return false }
                return reason.contains(c.says)
                    && (!c.layers.contains(#""id": "x""#) || reason.contains("\"x\""))
            }
        }
        let missing = try TemporaryDirectory(prefix: "kit-style")
        #expect(throws: KartpackKitError.self) { try ClientStyle(contentsOf: missing.url) }
        let noSheet = try Self.folder("", sprite: "{}")
        try FileManager.default.removeItem(at: noSheet.url.appendingPathComponent("sprite.png"))
        #expect { try ClientStyle(contentsOf: noSheet.url) } throws: { error in
            if case .cannotOpen(let path, _) = error as? KartpackKitError {
                return path.hasSuffix("sprite.png")
            }
            return false
        }
    }

    /// Random byte flips and truncations of a valid style never trap.
    @Test func mangledStylesNeverTrap() throws {
        let layers = #"""
            {"id": "a", "type": "fill", "source-layer": "a", "filter": ["all", ["==", ["get", "class"], "s"], ["<",
             ["get", "N"], 5]],
             "paint": {"fill-color": ["case", ["==", ["get", "kp:r1s0"], true], "#ff0000", "#00ff00"],
              "fill-opacity": 0.5}},
            {"id": "b", "type": "line", "source-layer": "a", "paint": {"line-width": ["interpolate", ["exponential",
             2], ["zoom"], 1, 1, 9, 4]}}
            """#
        let dir = try Self.folder(layers)
        let url = dir.url.appendingPathComponent("style.json")
        let original = try Data(contentsOf: url)
        var rng = SplitMix64(seed: 17)
        var opened = 0
        for round in 0..<400 {
            var bytes = [UInt8](original)
            if round % 4 == 0 {
                bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))
            } else {
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    let i = Int(rng.next() % UInt64(bytes.count))
                    bytes[i] = Array(#"[]{}",:0123456789.-eE"#.utf8)[Int(rng.next() % 20)]
                }
            }
            try Data(bytes).write(to: url)
            guard let style = try? ClientStyle(contentsOf: dir.url) else { continue }
            opened += 1
            for z in [0.0, 5, 24] {
                _ = style.look(
                    layer: "a", properties: [("class", .string("s")), ("N", .double(.nan))],
                    geometry: .polygon(multi: false), zoom: z)
            }
        }
        #expect(opened > 0)
    }
}
