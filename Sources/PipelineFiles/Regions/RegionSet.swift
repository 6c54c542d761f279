import Foundation
import GeometryOps
import KartpackCore
import Reprojection
import Shapefile
import Styling
import ConvertEngine
import Publishing

/// One region of a region set: its validated id (a safe file name), display name, and polygons in Web Mercator
/// metres exactly as a `--clip FILE:ID_FIELD=ID` run reads them.
package struct RegionRecord: Sendable {
    package var id: String
    package var name: String
    /// The record number in the region file (1-based), for messages.
    package var record: Int
    /// The record's polygon in metres, as its copies on each side of the antimeridian.
    package var polygons: [Geometry]
}

/// Errors in a region set: ids that are not safe file names, duplicates, missing fields, an empty set.
package enum RegionSetError: KartpackError, Equatable {
    case badID(file: String, record: Int, id: String, reason: String)
    case duplicateID(file: String, id: String, first: Int, again: Int)
    /// Two ids that differ only in case: their files are one file on FAT, exFAT, macOS and Windows.
    case caseClash(file: String, id: String, other: String, first: Int, again: Int)
    case noSuchField(file: String, field: String, fields: [String])
    case empty(file: String)

    package var exitCode: ExitCode { .dataError }
    package var description: String {
        switch self {
        case .badID(let f, let r, let id, let reason):
            "\(f): record \(r): region id \(Self.quoted(id)) \(reason) (ids are 1-64 letters, digits, - or _)"
        case .duplicateID(let f, let id, let first, let again):
            "\(f): record \(again): region id \(Self.quoted(id)) is already used by record \(first)"
        case .caseClash(let f, let id, let other, let first, let again):
            "\(f): record \(again): region id \(Self.quoted(id)) differs from \(Self.quoted(other)) of record \(first) "
                + "only in case; their files would be one file on case-insensitive file systems (FAT, exFAT, "
                + "macOS, Windows)"
        case .noSuchField(let f, let field, let fields):
            "\(f): no field \(field) (fields: \(fields.joined(separator: ", ")))"
        case .empty(let f): "\(f): no region (no polygon record matches)"
        }
    }

    /// An id as text with control characters escaped, so a hostile id cannot rewrite the terminal.
    package static func quoted(_ s: String) -> String {
        var out = "'"
        for u in s.unicodeScalars {
            if u.value < 0x20 || u.value == 0x7F || u == "'" || u == "\\" {
                out += "\\u{\(String(u.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out + "'"
    }
}

/// Reads the regions of a package: one region per polygon record (those `filter` keeps), id from `idField`,
/// name from `nameField` (default: the id). Ids are checked before any is used as a file name.
package struct RegionSet: Sendable {
    /// The longest id (a file name `<id>.pmtiles` stays far below NAME_MAX).
    static let maxIDLength = 64

    package var path: String
    package var idField: String
    /// The regions that can be built, in record order.
    package var regions: [RegionRecord]
    /// Records (matching the filter, with a good id) whose polygon cannot be a region: null, non-finite, zero
    /// area, not valid (`RegionShapeProblem`). Each stops the night; they are not in `regions`.
    package var problems: [PublishFinding]

    package init(path: String, idField: String, nameField: String?, filter: AttributeFilterList?) throws {
        self.path = path
        self.idField = idField
        let file = (path as NSString).lastPathComponent
        var out: [RegionRecord] = []
        var problems: [PublishFinding] = []
        var seen: [String: Int] = [:]
        var folded: [String: (id: String, record: Int)] = [:]
        var checkedFields = false
        for entry in try Self.records(path: path) {
            let properties = entry.properties
            if !checkedFields {
                checkedFields = true
                for field in [idField] + (nameField.map { [$0] } ?? []) where Self.value(properties, field) == nil {
                    throw RegionSetError.noSuchField(file: file, field: field, fields: properties.keys)
                }
            }
            if let filter, !filter.matches(properties) { continue }
            let record = entry.record
            let id = Self.text(Self.value(properties, idField) ?? .null)
            if let reason = Self.problem(id) {
                throw RegionSetError.badID(file: file, record: record, id: id, reason: reason)
            }
            if let first = seen[id] {
                throw RegionSetError.duplicateID(file: file, id: id, first: first, again: record)
            }
            if let other = folded[id.lowercased()] {
                throw RegionSetError.caseClash(file: file, id: id, other: other.id, first: other.record, again: record)
            }
            seen[id] = record
            folded[id.lowercased()] = (id, record)
            switch entry.shape {
            case .failure(let problem):
                problems.append(problem.finding(file: file, record: record, id: id))
            case .success(let g):
                let name = nameField.flatMap { Self.value(properties, $0) }.map(Self.text) ?? id
                out.append(
                    RegionRecord(
                        id: id, name: name.isEmpty ? id : name, record: record, polygons: Regions.unwrapped(g)))
            }
        }
        guard !out.isEmpty || !problems.isEmpty else { throw RegionSetError.empty(file: file) }
        regions = out
        self.problems = problems
    }

    /// One record of a region file: its attributes and its polygon in Web Mercator metres, or why it has none.
    package struct Entry {
        package var record: Int
        package var properties: Properties
        package var shape: Result<Geometry, RegionShapeProblem>
    }

    /// Every polygon record of the region file, in record order, including those the Shapefile reader skips
    /// (null or non-finite shapes; `deleted_in_source` rows are not regions and stay out) and those that cannot be
    /// projected or are not valid polygons. Records of another shape family are left out, as `--clip` does.
    package static func records(path: String) throws -> [Entry] {
        var out: [Entry] = []
        let engine = GeometryEngine()
        for set in try InputLayer.layers(at: path) {
            let sink = DiagnosticSink(sampleLimit: .max)
            // Read as features are (`IntakeReader`): a region given in 0–360° longitudes lies where they do.
            var intake = try IntakeReader(set: set, sourceCRS: nil, encoding: nil, diagnostics: sink)
            let reader = intake.reader
            var entries: [Entry] = []
            while let r = try intake.next() {
                let f = r.feature
                guard f.geometry.kind.family == .polygon else { continue }
                // A region across 180° is checked unwrapped: until then it jumps a world's width.
                let shape: Result<Geometry, RegionShapeProblem>
                switch r.projected {
                case .failure(let issue):
                    shape = .failure(
                        RegionShapeProblem(
                            code: .regionUnprojectable,
                            reason: "its polygon cannot be projected to Web Mercator: \(issue.message)"))
                case .success(let g):
                    if let problem = RegionShapeProblem.check(Regions.unwrapped(g)[0], engine: engine) {
                        shape = .failure(problem)
                    } else {
                        shape = .success(g)
                    }
                }
                entries.append(Entry(record: f.provenance.record, properties: f.properties, shape: shape))
            }
            let skipCodes = Set(reader.readerStats.skipped.keys).subtracting([.deletedInSource])
            for d in sink.samples where skipCodes.contains(d.code) {
                guard let record = d.record, let properties = try reader.attributes(ofRecord: record) else { continue }
                let problem = RegionShapeProblem.skipped(code: d.code, message: d.message)
                entries.append(Entry(record: record, properties: properties, shape: .failure(problem)))
            }
            out += entries.sorted { $0.record < $1.record }
        }
        return out
    }

    /// Why `id` cannot be a file name, or nil when it can.
    package static func problem(_ id: String) -> String? {
        if id.isEmpty { return "is empty" }
        if id.utf8.count > maxIDLength { return "is longer than \(maxIDLength) bytes" }
        let ok = id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
        guard ok else { return "holds a character other than a letter, digit, - or _" }
        if windowsDeviceNames.contains(id.uppercased()) {
            return "is a device name on Windows (CON, PRN, AUX, NUL, COM1-9, LPT1-9), where its file cannot be made"
        }
        return nil
    }

    /// Names Windows reserves whatever the extension (`nul.pmtiles` cannot be created there).
    static let windowsDeviceNames: Set<String> = Set(
        ["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    /// A field's value (case-insensitive name), nil when there is no such field.
    package static func value(_ p: Properties, _ field: String) -> PropertyValue? {
        let lower = field.lowercased()
        guard let i = p.keys.firstIndex(where: { $0.lowercased() == lower }) else { return nil }
        return p.values[i]
    }

    /// A value as the text a filter `field=TEXT` compares with (integral doubles without a fraction).
    package static func text(_ v: PropertyValue) -> String {
        switch v {
        case .string(let s): s.trimmingCharacters(in: .whitespaces)
        case .int(let i): String(i)
        case .uint(let u): String(u)
        case .double(let d): d.rounded() == d && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b): b ? "true" : "false"
        case .null: ""
        }
    }
}
