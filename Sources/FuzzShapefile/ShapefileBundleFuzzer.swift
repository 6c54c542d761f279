import FuzzSupport
import KartpackCore
import Reprojection
import Shapefile
import Synchronization

/// The Shapefile fuzz target: one input is a whole bundle, read to the end, plus the CRS of its `.prj`.
///
/// Input framing (`FuzzFraming`, 6 sections): flags, then `.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`, `.dbt`, each a
/// 4-byte little-endian length and the bytes (inputs with 5 sections still work: the sixth is then empty). Flag
/// bits:
/// - bit 0/1/2/3: the `.shx` / `.dbf` / `.prj` / `.cpg` exists (the `.shp` always does; a clear bit means the
///   file is missing, which is not the same as empty);
/// - bits 4–5: the `--encoding` option: 0 none, 1 `UTF-8`, 2 `CP1252`, 3 `CP850`;
/// - bit 6: `maxVertices` = 16 instead of the default, to reach the `too_complex` path;
/// - bit 7: the `.dbt` memo file exists (memo fields are read from it).
///
/// The files are written to `FuzzScratch.shared` as `f.shp` … (the reader takes paths), then `ShapefileReader`
/// reads every record and `CRSResolver` resolves the `.prj` text. Besides crashes, hangs and leaks, the target
/// checks the reader's promises and aborts when one breaks: every record accounted for once the reader is
/// exhausted (`recordsInFile == recordsRead == featuresEmitted + skipped`), finite coordinates, a consistent flat
/// geometry layout (parts, polygons, closed rings of 4+ points, Z/M arrays as long as the points), the feature
/// kind in the layer's family, one property per schema field in schema order, and record numbers that increase.
/// Thrown errors are answers, not bugs; their `description` is still built, since messages quote hostile bytes.
enum ShapefileBundleFuzzer {
    /// The bundle's file extensions, in section order.
    static let extensions = ["shp", "shx", "dbf", "prj", "cpg", "dbt"]
    /// The encodings bits 4–5 select.
    static let encodings: [String?] = [nil, "UTF-8", "CP1252", "CP850"]

    /// The flag bit saying section `k` (> 0) exists: bit k - 1 for `.shx` … `.cpg`, bit 7 for the memo file.
    static func flagBit(section k: Int) -> Int { k == 5 ? 7 : k - 1 }

    /// Runs one input.
    static func run(_ bytes: UnsafeRawBufferPointer) {
        let (flags, sections) = FuzzFraming.split(bytes, sections: extensions.count)
        let scratch = FuzzScratch.shared
        func present(_ k: Int) -> Bool { k == 0 || flags & (1 << flagBit(section: k)) != 0 }
        for (k, ext) in extensions.enumerated() {
            scratch.write("f." + ext, present(k) ? sections[k] : nil)
        }
        func path(_ k: Int) -> String? { present(k) ? scratch.file("f." + extensions[k]) : nil }
        guard let shp = path(0) else { return }
        let files = ShapefileSet(
            shp: shp, shx: path(1), dbf: path(2), prj: path(3), cpg: path(4), memo: path(5), baseName: "f")
        let options = ShapefileReadOptions(
            encoding: encodings[Int(flags >> 4 & 3)], maxVertices: flags & 0x40 != 0 ? 16 : 10_000_000)
        readAll(files, options: options)
        if flags & 0x04 != 0 { resolveCRS(sections[3]) }
    }

    /// Reads every record and checks the reader's promises.
    static func readAll(_ files: ShapefileSet, options: ShapefileReadOptions) {
        let sink = DiagnosticSink(sampleLimit: 2)
        let reader: ShapefileReader
        do {
            reader = try ShapefileReader(files: files, options: options, diagnostics: sink)
        } catch {
            _ = error.description
            return
        }
        let schema = reader.schema
        let fieldNames = schema.fields.map(\.name)
        var lastRecord = 0
        while true {
            let feature: Feature?
            do {
                feature = try reader.next()
            } catch {
                _ = error.description
                return
            }
            guard let feature else { break }
            let record = feature.provenance.record
            guard record > lastRecord, record <= reader.stats.recordsInFile else {
                FuzzDriver.fail("record \(record) after \(lastRecord) of \(reader.stats.recordsInFile)")
            }
            lastRecord = record
            if let problem = GeometryCheck.problem(in: feature.geometry) {
                FuzzDriver.fail("record \(record): \(problem)")
            }
            if let kind = schema.geometryKind, kind.family != feature.geometry.kind.family {
                FuzzDriver.fail("record \(record): a \(feature.geometry.kind) in a \(kind) layer")
            }
            guard feature.properties.keys == fieldNames else {
                FuzzDriver.fail("record \(record): properties \(feature.properties.keys) for fields \(fieldNames)")
            }
        }
        let s = reader.stats
        guard s.recordsRead == s.recordsInFile, s.isBalanced else {
            FuzzDriver.fail(
                "unbalanced: \(s.recordsInFile) in file, \(s.recordsRead) read, \(s.featuresEmitted) emitted, "
                    + "skipped \(s.skipped.sorted { $0.key < $1.key })")
        }
        // Again: nil after the end.
        do {
            if try reader.next() != nil { FuzzDriver.fail("a feature after the end") }
        } catch {
            FuzzDriver.fail("a throw after the end: \(error)")
        }
    }

    /// `.prj` texts already resolved (up to 512): most mutations leave the `.prj` alone, and resolving costs
    /// milliseconds (a PROJ context and `proj_identify`), so each text is resolved once per process.
    static let resolved = Mutex<Set<[UInt8]>>([])

    /// Resolves the `.prj` text decoded as the reader does (BOM dropped; UTF-8, else Latin-1).
    static func resolveCRS(_ prj: [UInt8]) {
        guard prj.count <= ShapefileReader.maxPRJBytes else { return }
        let isNew = resolved.withLock { seen -> Bool in
            if seen.count >= 512 { seen.removeAll() }
            return seen.insert(prj).inserted
        }
        guard isNew else { return }
        let bytes = prj.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(prj.dropFirst(3)) : prj
        let text =
            String(validating: bytes, as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        do {
            let resolution = try CRSResolver.resolveDetailed(prjText: text, override: nil, prjFile: "f.prj")
            if resolution.crs.definition.isEmpty { FuzzDriver.fail("a resolved CRS with an empty definition") }
        } catch {
            _ = error.description
        }
    }
}
