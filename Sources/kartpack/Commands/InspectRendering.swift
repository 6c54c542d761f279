import Foundation
import KartpackCore
import KartpackJSON
import Inspection

/// Turns an inspection report into text for people or stable JSON for scripts.
enum InspectRendering {
    /// Pretty, key-sorted JSON (the project's one JSON writer).
    static func json(_ report: some Encodable) throws -> String {
        try JSONValueEncoder.encode(report).sortingKeys().text(.pretty)
    }

    static func text(_ report: InspectionReport) -> String {
        var s = ""
        for (i, l) in report.layers.enumerated() {
            if i > 0 { s += "\n" }
            s += "\(l.path)\n"
            s += "  layer:      \(l.name)\n"
            if let t = l.shapeType { s += "  geometry:   \(t)\(l.geometryKind.map { " (\($0))" } ?? "")\n" }
            if l.errors.contains(where: { $0.code == .fileRejected }) {
                let from =
                    l.recordsSource == "unknown" ? "unknown: no file can be counted" : "by the .\(l.recordsSource)"
                s += "  records:    \(l.records) (\(from); the file is rejected)\n"
            } else {
                s +=
                    "  records:    \(l.records) (features \(l.features), null shapes \(l.nullShapes), deleted "
                    + "\(l.deletedRecords))\n"
            }
            if let d = l.dbfRecords, d != l.records { s += "  dbf rows:   \(d)\n" }
            for (k, v) in l.skipped.sorted(by: { $0.key < $1.key })
            where k != .nullGeometry && k != .deletedInSource {
                s += "  skipped:    \(v) \(k)\n"
            }
            for (k, v) in l.repaired.sorted(by: { $0.key < $1.key }) { s += "  repaired:   \(v) \(k)\n" }
            for (k, v) in l.coercedToNull.sorted(by: { $0.key < $1.key }) { s += "  nulled:     \(v) values (\(k))\n" }
            if let c = l.crs {
                let confidence = c.confidence.map { $0 < 100 ? ", confidence \($0)%" : "" } ?? ""
                s += "  crs:        \(c.name)\(c.epsg.map { " (EPSG:\($0)\(confidence))" } ?? "") from \(c.origin)\n"
            }
            if let b = l.bounds { s += "  bounds:     \(fmt(b))\n" }
            if let b = l.boundsWGS84 { s += "  wgs84:      \(fmt(b, digits: 6))\n" }
            if let e = l.encoding {
                let sure = e.confidence.map { $0 == "declared" ? "" : ", confidence \($0)" } ?? ""
                s += "  encoding:   \(e.name) from \(e.origin)\(e.detail.map { " (\($0))" } ?? "")\(sure)\n"
            }
            if !l.fields.isEmpty {
                s += "  fields:\n"
                for f in l.fields {
                    let size = f.width > 0 ? "(\(f.width)\(f.decimals > 0 ? ",\(f.decimals)" : ""))" : ""
                    let t = f.dbfType.map { $0 + size } ?? ""
                    s += "    \(f.name.rightPad(12)) \(f.type.rightPad(8)) \(t)\n"
                }
            }
            for w in l.warnings { s += "  \(w.severity): \(w.message)\(w.count > 1 ? " (\(w.count) times)" : "")\n" }
            for e in l.errors { s += "  error: \(e.message)\n" }
        }
        // Paths, field names, CRS names and messages quote the files: no control character reaches the terminal.
        return TerminalText.escaped(s, keepNewlines: true)
    }

    static func text(_ p: PackageInspection) -> String {
        let e = { (text: String) in TerminalText.escaped(text) }
        var s = "\(e(p.path))\n  format:     \(p.format), \(p.fileBytes) bytes\n"
        if let h = p.header {
            s +=
                "  pmtiles:    v\(h.specVersion), \(h.addressedTiles) tiles, \(h.tileEntries) entries, "
                + "\(h.tileContents) distinct, clustered \(h.clustered)\n"
            s +=
                "  zooms:      \(h.minZoom)-\(h.maxZoom), center "
                + "\(h.center.map { String($0) }.joined(separator: ","))\n"
        }
        for k in p.metadata.keys.sorted() where k != "json" && k != "vector_layers" && k != "kartpack" {
            s += "  \((e(k) + ":").rightPad(12)) \(e(p.metadata[k] ?? ""))\n"
        }
        s += "  layers:\n"
        for l in p.layers {
            s += "    \(e(l.id)) (zoom \(l.minzoom.map(String.init) ?? "?")-\(l.maxzoom.map(String.init) ?? "?")): "
            s += l.fields.keys.sorted().map { "\(e($0)) \(e(l.fields[$0] ?? ""))" }.joined(separator: ", ") + "\n"
        }
        s += "  zoom  tiles      bytes\n"
        for z in p.zooms {
            s += "  " + String(z.zoom).leftPad(4) + String(z.tiles).leftPad(7) + String(z.bytes).leftPad(11) + "\n"
        }
        s +=
            "  largest tiles: " + p.largestTiles.prefix(5).map { "\($0.tile) (\($0.bytes) B)" }.joined(separator: ", ")
            + "\n"
        return TerminalText.escaped(s, keepNewlines: true)
    }

    static func text(_ t: TileInspection) -> String {
        var s = "tile \(t.tile): \(t.bytes) bytes compressed\n"
        for l in t.layers {
            s += "layer \(TerminalText.escaped(l.name)): \(l.features.count) features "
            s += "(version \(l.version), extent \(l.extent))\n"
            for f in l.features {
                let props = f.properties.keys.sorted().map { k in
                    TerminalText.escaped("\(k)=\(f.properties[k].map(describe) ?? "")")
                }
                let points = f.geometry.reduce(0) { $0 + $1.count }
                s +=
                    "  id \(f.id.map(String.init) ?? "-") \(f.type), \(f.geometry.count) parts, \(points) points: "
                    + "\(props.joined(separator: " "))\n"
            }
        }
        for w in t.warnings { s += "warning: \(TerminalText.escaped(w))\n" }
        return TerminalText.escaped(s, keepNewlines: true)
    }

    private static func describe(_ v: JSONScalar) -> String {
        switch v {
        case .string(let s): "\"\(s)\""
        case .int(let i): String(i)
        case .uint(let u): String(u)
        case .double(let d): String(d)
        case .bool(let b): String(b)
        }
    }

    private static func fmt(_ b: Bounds, digits: Int = 3) -> String {
        func f(_ v: Double) -> String { String(format: "%.\(digits)f", v) }
        return "\(f(b.minX)), \(f(b.minY)) – \(f(b.maxX)), \(f(b.maxY))"
    }
}

extension String {
    /// Right-aligned in `w` columns (never truncated).
    func leftPad(_ w: Int) -> String { String(repeating: " ", count: Swift.max(0, w - count)) + self }
    /// Left-aligned in `w` columns (never truncated).
    func rightPad(_ w: Int) -> String { self + String(repeating: " ", count: Swift.max(0, w - count)) }
}
