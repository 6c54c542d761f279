import Foundation

/// A pure-Swift, byte-level Shapefile writer for tests: `.shp`, `.shx`, `.dbf`, `.prj` and `.cpg` bytes, with
/// knobs to corrupt each part. No C library is involved, so tests can build files shapelib would never write.
public struct ShapefileFixture: Sendable {
    /// Shape type codes.
    public enum ShapeType: Int32, Sendable {
        case null = 0, point = 1, polyLine = 3, polygon = 5, multiPoint = 8
        case pointZ = 11, polyLineZ = 13, polygonZ = 15, multiPointZ = 18
        case pointM = 21, polyLineM = 23, polygonM = 25, multiPointM = 28
        case multiPatch = 31

        var hasZ: Bool { [.pointZ, .polyLineZ, .polygonZ, .multiPointZ, .multiPatch].contains(self) }
        var hasM: Bool { [.pointM, .polyLineM, .polygonM, .multiPointM].contains(self) || hasZ }
    }

    /// One record's shape. Coordinates are interleaved `x, y` per part.
    public struct Shape: Sendable {
        /// The record's own shape type code (may differ from the file's, or be unknown).
        public var type: Int32
        /// Parts (rings or lines) as interleaved coordinates; points and multipoints use one part.
        public var parts: [[Double]]
        /// Z per part (only written for Z types; zeros when nil).
        public var z: [[Double]]?
        /// M per part (written for M types, and for Z types when non-nil).
        public var m: [[Double]]?
        /// MultiPatch part types.
        public var partTypes: [Int32]?
        /// Overrides the part start indices written (to corrupt the layout).
        public var partStartsOverride: [Int32]?
        /// Replaces the whole record content (after the 8-byte record header).
        public var rawContent: [UInt8]?

        /// Creates a shape.
        public init(
            type: Int32, parts: [[Double]], z: [[Double]]? = nil, m: [[Double]]? = nil, partTypes: [Int32]? = nil
        ) {
            self.type = type
            self.parts = parts
            self.z = z
            self.m = m
            self.partTypes = partTypes
        }

        /// A null shape.
        public static var null: Shape { Shape(type: 0, parts: []) }
        /// A point.
        public static func point(_ x: Double, _ y: Double, type: ShapeType = .point, z: Double? = nil, m: Double? = nil)
            -> Shape
        {
            Shape(type: type.rawValue, parts: [[x, y]], z: z.map { [[$0]] }, m: m.map { [[$0]] })
        }
        /// A multipoint from interleaved coordinates.
        public static func multiPoint(
            _ xy: [Double], type: ShapeType = .multiPoint, z: [Double]? = nil, m: [Double]? = nil
        )
            -> Shape
        {
            Shape(type: type.rawValue, parts: [xy], z: z.map { [$0] }, m: m.map { [$0] })
        }
        /// A polyline from parts.
        public static func polyLine(
            _ parts: [[Double]], type: ShapeType = .polyLine, z: [[Double]]? = nil, m: [[Double]]? = nil
        ) -> Shape {
            Shape(type: type.rawValue, parts: parts, z: z, m: m)
        }
        /// A polygon from rings (written exactly as given: order, orientation and closure are the test's choice).
        public static func polygon(
            _ rings: [[Double]], type: ShapeType = .polygon, z: [[Double]]? = nil, m: [[Double]]? = nil
        ) -> Shape {
            Shape(type: type.rawValue, parts: rings, z: z, m: m)
        }
    }

    /// A DBF field descriptor.
    public struct Field: Sendable {
        /// Name bytes (at most 11 are written; no NUL is added when 11 are given).
        public var name: [UInt8]
        /// Type letter byte (`C`, `N`, `F`, `L`, `D`, or anything).
        public var type: UInt8
        /// Width in bytes (0…255).
        public var width: Int
        /// Decimal count (numbers).
        public var decimals: Int

        /// Creates a field from an ASCII name and type letter.
        public init(_ name: String, _ type: Character, width: Int, decimals: Int = 0) {
            self.name = Array(name.utf8)
            self.type = type.asciiValue ?? 0x3F
            self.width = width
            self.decimals = decimals
        }

        /// Creates a field from raw name bytes.
        public init(nameBytes: [UInt8], type: UInt8, width: Int, decimals: Int = 0) {
            self.name = nameBytes
            self.type = type
            self.width = width
            self.decimals = decimals
        }
    }

    /// The file's shape type code (header).
    public var shapeType: Int32
    /// One shape per record, in order.
    public var shapes: [Shape]
    /// DBF field descriptors.
    public var fields: [Field] = []
    /// Row values as raw bytes, one array per field; strings are UTF-8 (use `.latin1(_:)` etc. for others).
    /// Values are padded with blanks to the field width (numbers right-aligned) and cut when longer.
    public var rows: [[[UInt8]]] = []
    /// 0-based rows written with the deletion flag `*`.
    public var deletedRows: Set<Int> = []
    /// DBF language driver byte (header byte 29).
    public var languageDriver: UInt8 = 0
    /// `.cpg` contents; nil writes no `.cpg`.
    public var cpg: [UInt8]?
    /// `.prj` contents; nil writes no `.prj`.
    public var prj: [UInt8]?

    // Corruption knobs.
    /// Write a `.shx` (false = missing).
    public var writeSHX = true
    /// Write a `.dbf` (false = missing).
    public var writeDBF = true
    /// Cut the `.shx` to this many bytes.
    public var truncateSHX: Int?
    /// Cut the `.shp` to this many bytes.
    public var truncateSHP: Int?
    /// The `.shp` magic number.
    public var shpMagic: Int32 = 9994
    /// The `.shx` magic number.
    public var shxMagic: Int32 = 9994
    /// Replace `.shx` entries: record index → (offset, content length) in 16-bit words.
    public var shxEntryOverrides: [Int: (offset: Int32, length: Int32)] = [:]
    /// Replace record numbers in `.shp` record headers: record index → number.
    public var recordNumberOverrides: [Int: Int32] = [:]
    /// Add to the content length (16-bit words) in both the record header and the `.shx` entry: record index →
    /// words (e.g. 4 makes the record claim 8 bytes it does not have).
    public var recordLengthExtraWords: [Int: Int32] = [:]
    /// Bytes appended to the `.shp` after the last record (not counted in its header length).
    public var shpTrailer: [UInt8] = []
    /// DBF record count written in the header (nil = the real count).
    public var dbfRecordCountOverride: UInt32?
    /// DBF header length written (nil = 32 + 32·fields + 1).
    public var dbfHeaderLengthOverride: UInt16?
    /// Pad the DBF header with zeros up to `dbfHeaderLengthOverride` (false = records follow the terminator
    /// directly, so a wrong header length shifts every value).
    public var dbfPadHeader = true
    /// DBF record length written (nil = 1 + Σ widths).
    public var dbfRecordLengthOverride: UInt16?
    /// DBF version byte.
    public var dbfVersion: UInt8 = 0x03
    /// The byte written after the field descriptors (nil = none at all).
    public var dbfTerminator: UInt8? = 0x0D
    /// The deletion flag written for rows not in `deletedRows` (a space; some writers put 0x00).
    public var dbfLiveFlag: UInt8 = 0x20
    /// Raw record bytes (after the deletion flag) replacing `rows`, for binary fields.
    public var dbfRawRows: [[UInt8]]?
    /// Bytes of padding written after the last field of every record (with `dbfRecordLengthOverride`).
    public var dbfRecordPadding = 0
    /// Bytes appended to the `.dbf` after the records (the 0x1A end marker is written before them).
    public var dbfTrailer: [UInt8] = []
    /// Write the 0x1A end-of-file marker.
    public var dbfEndMarker = true
    /// More files of the set: extension (e.g. `dbt`) → bytes.
    public var extraFiles: [String: [UInt8]] = [:]
    /// Extension spellings (e.g. "SHP" or "Shp").
    public var extensions: (shp: String, shx: String, dbf: String, prj: String, cpg: String) =
        ("shp", "shx", "dbf", "prj", "cpg")

    /// Creates a fixture of a file type with shapes.
    public init(shapeType: ShapeType, shapes: [Shape]) {
        self.shapeType = shapeType.rawValue
        self.shapes = shapes
    }

    /// Creates a fixture with a raw file type code.
    public init(shapeTypeCode: Int32, shapes: [Shape]) {
        self.shapeType = shapeTypeCode
        self.shapes = shapes
    }

    /// Text as UTF-8 bytes.
    public static func utf8(_ s: String) -> [UInt8] { Array(s.utf8) }
    /// Text as ISO-8859-1 bytes (characters above U+00FF become `?`).
    public static func latin1(_ s: String) -> [UInt8] {
        s.unicodeScalars.map { $0.value < 256 ? UInt8($0.value) : 0x3F }
    }

    // MARK: - Bytes

    /// The `.shp` and `.shx` bytes.
    public func shpAndSHX() -> (shp: [UInt8], shx: [UInt8]) {
        var records: [[UInt8]] = []
        var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for s in shapes {
            records.append(s.rawContent ?? content(s))
            for p in s.parts {
                var i = 0
                while i + 1 < p.count {
                    box.minX = min(box.minX, p[i])
                    box.maxX = max(box.maxX, p[i])
                    box.minY = min(box.minY, p[i + 1])
                    box.maxY = max(box.maxY, p[i + 1])
                    i += 2
                }
            }
        }
        if box.minX > box.maxX { box = (0, 0, 0, 0) }
        var shp: [UInt8] = []
        var shx: [UInt8] = []
        var offset = 100
        var entries: [(Int32, Int32)] = []
        var body: [UInt8] = []
        for (i, c) in records.enumerated() {
            let words = Int32(c.count / 2) + (recordLengthExtraWords[i] ?? 0)
            let entry = shxEntryOverrides[i] ?? (Int32(offset / 2), words)
            entries.append((entry.offset, entry.length))
            body.appendBE(recordNumberOverrides[i] ?? Int32(i + 1))
            body.appendBE(words)
            body += c
            offset += 8 + c.count
        }
        shp = header(magic: shpMagic, length: 100 + body.count, box: box)
        shp += body + shpTrailer
        shx = header(magic: shxMagic, length: 100 + 8 * entries.count, box: box)
        for (o, l) in entries {
            shx.appendBE(o)
            shx.appendBE(l)
        }
        if let t = truncateSHX { shx = Array(shx.prefix(t)) }
        if let t = truncateSHP { shp = Array(shp.prefix(t)) }
        return (shp, shx)
    }

    private func header(magic: Int32, length: Int, box: (minX: Double, minY: Double, maxX: Double, maxY: Double))
        -> [UInt8]
    {
        var h: [UInt8] = []
        h.appendBE(magic)
        for _ in 0..<5 { h.appendBE(0) }
        h.appendBE(Int32(length / 2))
        h.appendLE(Int32(1000))
        h.appendLE(shapeType)
        for v in [box.minX, box.minY, box.maxX, box.maxY, 0, 0, 0, 0] { h.appendLE(v) }
        return h
    }

    private func content(_ s: Shape) -> [UInt8] {
        var c: [UInt8] = []
        c.appendLE(s.type)
        guard s.type != 0 else { return c }
        let type = ShapeType(rawValue: s.type)
        let xy = s.parts.flatMap { $0 }
        let n = xy.count / 2
        let zs = (s.z?.flatMap { $0 }) ?? [Double](repeating: 0, count: n)
        let ms = s.m?.flatMap { $0 }
        var bx = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for i in 0..<n {
            bx = (min(bx.0, xy[2 * i]), min(bx.1, xy[2 * i + 1]), max(bx.2, xy[2 * i]), max(bx.3, xy[2 * i + 1]))
        }
        func range(_ v: [Double]) -> (Double, Double) { (v.min() ?? 0, v.max() ?? 0) }
        switch s.type {
        case 1, 11, 21:
            c.appendLE(xy[0])
            c.appendLE(xy[1])
            if s.type == 11 {
                c.appendLE(zs[0])
                c.appendLE(ms?[0] ?? 0)
            } else if s.type == 21 {
                c.appendLE(ms?[0] ?? -1e39)
            }
        case 8, 18, 28:
            for v in [bx.0, bx.1, bx.2, bx.3] { c.appendLE(v) }
            c.appendLE(Int32(n))
            for v in xy { c.appendLE(v) }
            if type?.hasZ == true {
                let r = range(zs)
                c.appendLE(r.0)
                c.appendLE(r.1)
                for v in zs { c.appendLE(v) }
            }
            if let ms, type?.hasM == true {
                let r = range(ms)
                c.appendLE(r.0)
                c.appendLE(r.1)
                for v in ms { c.appendLE(v) }
            }
        default:
            // PolyLine, Polygon, MultiPatch and unknown types use the part layout.
            for v in [bx.0, bx.1, bx.2, bx.3] { c.appendLE(v) }
            c.appendLE(Int32(s.parts.count))
            c.appendLE(Int32(n))
            var start: Int32 = 0
            let starts: [Int32] =
                s.partStartsOverride
                ?? s.parts.map { p in
                    defer { start += Int32(p.count / 2) }
                    return start
                }
            for v in starts { c.appendLE(v) }
            if s.type == 31 { for t in s.partTypes ?? s.parts.map({ _ in 5 }) { c.appendLE(t) } }
            for v in xy { c.appendLE(v) }
            if type?.hasZ == true {
                let r = range(zs)
                c.appendLE(r.0)
                c.appendLE(r.1)
                for v in zs { c.appendLE(v) }
            }
            if let ms, type?.hasM == true {
                let r = range(ms)
                c.appendLE(r.0)
                c.appendLE(r.1)
                for v in ms { c.appendLE(v) }
            }
        }
        return c
    }

    /// The `.dbf` bytes.
    public func dbf() -> [UInt8] {
        var d: [UInt8] = [dbfVersion, 124, 1, 1]
        d.appendLE(Int32(bitPattern: dbfRecordCountOverride ?? UInt32(dbfRawRows?.count ?? rows.count)))
        let headerLength = dbfHeaderLengthOverride ?? UInt16(32 + 32 * fields.count + 1)
        let recordLength = dbfRecordLengthOverride ?? UInt16(1 + fields.reduce(0) { $0 + $1.width })
        d.appendLE(headerLength)
        d.appendLE(recordLength)
        d += [UInt8](repeating: 0, count: 17)
        d.append(languageDriver)  // byte 29
        d += [0, 0]
        for f in fields {
            var desc = [UInt8](repeating: 0, count: 32)
            for (k, b) in f.name.prefix(11).enumerated() { desc[k] = b }
            desc[11] = f.type
            desc[16] = UInt8(truncatingIfNeeded: f.width)
            desc[17] = UInt8(truncatingIfNeeded: f.decimals)
            d += desc
        }
        if let dbfTerminator { d.append(dbfTerminator) }
        while dbfPadHeader && d.count < Int(headerLength) { d.append(0) }
        if let raw = dbfRawRows {
            for (r, row) in raw.enumerated() {
                d.append(deletedRows.contains(r) ? 0x2A : dbfLiveFlag)
                d += row
                d += [UInt8](repeating: 0x20, count: dbfRecordPadding)
            }
            if dbfEndMarker { d.append(0x1A) }
            return d + dbfTrailer
        }
        for (r, row) in rows.enumerated() {
            d.append(deletedRows.contains(r) ? 0x2A : dbfLiveFlag)
            for (k, f) in fields.enumerated() {
                var v = k < row.count ? Array(row[k].prefix(f.width)) : []
                let pad = [UInt8](repeating: 0x20, count: f.width - v.count)
                let rightAlign = f.type == UInt8(ascii: "N") || f.type == UInt8(ascii: "F")
                v = rightAlign ? pad + v : v + pad
                d += v
            }
            d += [UInt8](repeating: 0x20, count: dbfRecordPadding)
        }
        if dbfEndMarker { d.append(0x1A) }
        return d + dbfTrailer
    }

    // MARK: - Files

    /// Writes the set as `<directory>/<baseName>.<ext>` and returns the `.shp` path.
    @discardableResult
    public func write(to directory: String, baseName: String = "layer") throws -> String {
        let (shp, shx) = shpAndSHX()
        let base = directory + "/" + baseName
        try Data(shp).write(to: URL(fileURLWithPath: base + "." + extensions.shp))
        if writeSHX { try Data(shx).write(to: URL(fileURLWithPath: base + "." + extensions.shx)) }
        if writeDBF { try Data(dbf()).write(to: URL(fileURLWithPath: base + "." + extensions.dbf)) }
        if let prj { try Data(prj).write(to: URL(fileURLWithPath: base + "." + extensions.prj)) }
        if let cpg { try Data(cpg).write(to: URL(fileURLWithPath: base + "." + extensions.cpg)) }
        for (ext, bytes) in extraFiles.sorted(by: { $0.key < $1.key }) {
            try Data(bytes).write(to: URL(fileURLWithPath: base + "." + ext))
        }
        return base + "." + extensions.shp
    }
}

extension Array where Element == UInt8 {
    mutating func appendBE(_ v: Int32) {
        let u = UInt32(bitPattern: v)
        append(contentsOf: [UInt8(u >> 24), UInt8(u >> 16 & 0xFF), UInt8(u >> 8 & 0xFF), UInt8(u & 0xFF)])
    }
    mutating func appendLE(_ v: Int32) {
        let u = UInt32(bitPattern: v)
        append(contentsOf: [UInt8(u & 0xFF), UInt8(u >> 8 & 0xFF), UInt8(u >> 16 & 0xFF), UInt8(u >> 24)])
    }
    mutating func appendLE(_ v: UInt16) {
        append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)])
    }
    mutating func appendLE(_ v: Double) {
        let u = v.bitPattern
        for k in 0..<8 { append(UInt8(u >> (8 * UInt64(k)) & 0xFF)) }
    }
}
