import Foundation
import KartpackCore
import Reprojection
import Shapefile
import ConvertEngine

/// The JSON description of one Shapefile layer printed by `kartpack inspect --format json`.
/// The key set is stable and documented in `docs/inspect.md`; new keys may be added, none renamed.
package struct LayerInspection: Codable, Sendable, Hashable {
    /// A field as reported by inspect.
    package struct Field: Codable, Sendable, Hashable {
        package var name: String
        package var type: String
        package var dbfType: String?
        package var width: Int
        package var decimals: Int
    }
    /// A CRS as reported by inspect.
    package struct CRS: Codable, Sendable, Hashable {
        package var name: String
        package var epsg: Int?
        package var origin: String
        package var geographic: Bool
        /// PROJ's identification confidence (0…100) for `epsg`.
        package var confidence: Int?
    }
    /// An encoding as reported by inspect.
    package struct Encoding: Codable, Sendable, Hashable {
        package var name: String
        /// `option`, `cpg`, `ldid` or `detected`.
        package var origin: String
        package var detail: String?
        /// `declared`, `ascii` or `high` (see `EncodingInfo.confidence`).
        package var confidence: String?
    }
    /// A warning or error with its stable code.
    package struct Message: Codable, Sendable, Hashable {
        package var severity: String
        package var code: ReasonCode
        package var message: String
        package var record: Int?
        /// How many times this code occurred in the layer (samples are limited).
        package var count: Int
    }

    package var path: String
    package var name: String
    package var shapeType: String?
    package var geometryKind: String?
    /// Index entries in the file (records read). For a rejected file, the records it still holds by its `.shx`, a
    /// scan of its `.shp` or its `.dbf` header (see `recordsSource`), all counted as `skipped.file_rejected`.
    package var records: Int
    /// Where `records` comes from: `shx`, `shp` (index rebuilt from the `.shp`), `dbf`, or `unknown` (a rejected
    /// file none of whose files can be counted).
    package var recordsSource: String
    /// Records that became features.
    package var features: Int
    package var nullShapes: Int
    package var deletedRecords: Int
    package var dbfRecords: Int?
    /// Records not turned into features, by reason code.
    package var skipped: [ReasonCode: Int]
    /// Features repaired, by kind.
    package var repaired: [ReasonCode: Int]
    /// Attribute values stored as null because they could not be parsed, by reason.
    package var coercedToNull: [ReasonCode: Int]
    /// Bounds of the geometry read, in the layer's own CRS.
    package var bounds: Bounds?
    /// The same bounds transformed to WGS84 longitude/latitude.
    package var boundsWGS84: Bounds?
    package var crs: CRS?
    package var encoding: Encoding?
    package var fields: [Field]
    package var warnings: [Message]
    /// Problems that make this layer unusable (rejected file, unknown CRS).
    package var errors: [Message]
    /// With `--features`: every feature read, in record order (nil otherwise).
    package var featureDump: [FeatureDump]?
    /// With `--features`: every record that did not become a feature, with its reason (nil otherwise).
    package var skippedRecords: [SkippedRecordDump]?
}

/// The whole `inspect --format json` document.
package struct InspectionReport: Codable, Sendable {
    package var kartpack: String
    package var layers: [LayerInspection]
    /// Exit code for the run: 0, or 65 when a layer had errors.
    package var exitCode: Int32 {
        layers.contains { !$0.errors.isEmpty } ? ExitCode.dataError.rawValue : 0
    }
}

/// Options for inspecting Shapefiles.
package struct InspectOptions: Sendable {
    package var sourceCRS: String?
    package var encoding: String?
    /// Also list every feature and skipped record (`--features`).
    package var features: Bool
    /// Creates options.
    package init(sourceCRS: String? = nil, encoding: String? = nil, features: Bool = false) {
        self.sourceCRS = sourceCRS
        self.encoding = encoding
        self.features = features
    }
}

/// Describes Shapefiles: reads every record (streaming) to count what is there and what is wrong.
package enum ShapefileInspector {
    /// Inspects a `.shp`, every Shapefile in a folder, or every feature table of a `.gpkg`. Throws only when
    /// `path` itself is unusable.
    package static func inspect(path: String, options: InspectOptions) throws -> InspectionReport {
        let sets = try InputLayer.layers(at: path)
        var layers: [LayerInspection] = []
        for set in sets {
            layers.append(inspect(layer: set, options: options))
        }
        return InspectionReport(kartpack: Kartpack.version, layers: layers)
    }

    /// Inspects one layer (a Shapefile set or a GeoPackage table); every problem ends up in the result.
    package static func inspect(layer set: InputLayer, options: InspectOptions) -> LayerInspection {
        // The feature dump needs every diagnostic to tell each record's codes.
        let sink = DiagnosticSink(sampleLimit: options.features ? Int.max : 5)
        var result = LayerInspection(
            path: set.path, name: set.baseName, shapeType: nil, geometryKind: nil, records: 0, recordsSource: "unknown",
            features: 0, nullShapes: 0, deletedRecords: 0, dbfRecords: nil, skipped: [:], repaired: [:],
            coercedToNull: [:], bounds: nil, boundsWGS84: nil, crs: nil, encoding: nil, fields: [], warnings: [],
            errors: [])
        let reader: any LayerReading
        do {
            reader = try set.open(encoding: options.encoding, diagnostics: sink)
        } catch {
            let message = (error as? any KartpackError)?.description ?? "\(error)"
            result.errors.append(
                .init(severity: "error", code: .fileRejected, message: message, record: nil, count: 1))
            // Records read = written + rejected, for a rejected file too.
            if let probe = set.probeRecordCount() {
                result.records = probe.count
                result.recordsSource = probe.source
                if probe.count > 0 { result.skipped[.fileRejected] = probe.count }
            }
            if options.features { result.featureDump = []; result.skippedRecords = [] }
            result.warnings = messages(from: sink, severity: nil)
            return result
        }
        let schema = reader.schema
        result.shapeType = schema.sourceShapeType
        result.geometryKind = schema.geometryKind?.rawValue
        result.fields = schema.fields.map {
            .init(name: $0.name, type: $0.type.rawValue, dbfType: $0.nativeType, width: $0.width, decimals: $0.decimals)
        }
        result.encoding = schema.encoding.map {
            .init(name: $0.name, origin: $0.origin, detail: $0.detail, confidence: $0.confidence)
        }
        result.recordsSource =
            set.table != nil ? "gpkg" : reader.readerStats.repaired[.rebuiltIndex] == nil ? "shx" : "shp"

        var bounds = Bounds.empty
        var features: [Feature] = []
        do {
            while let feature = try reader.next() {
                if let b = feature.geometry.bounds { bounds.include(b) }
                if options.features { features.append(feature) }
            }
        } catch {
            result.errors.append(
                .init(
                    severity: "error", code: .fileRejected,
                    message: (error as? any KartpackError)?.description ?? "\(error)", record: nil, count: 1))
        }
        let stats = reader.readerStats
        result.records = stats.recordsInFile
        result.features = stats.featuresEmitted
        result.nullShapes = stats.skipped[.nullGeometry] ?? 0
        result.deletedRecords = stats.deletedRecords
        result.dbfRecords = stats.dbfRecordCount
        result.skipped = stats.skipped
        result.repaired = stats.repaired
        result.coercedToNull = stats.coercedToNull
        result.bounds = bounds.isEmpty ? nil : bounds

        do {
            let crs = try reader.resolveCRS(override: options.sourceCRS)
            result.crs = .init(
                name: crs.name, epsg: crs.epsg, origin: crs.origin, geographic: crs.isGeographic,
                confidence: crs.confidence)
            if let note = crs.identification {
                sink.report(
                    Diagnostic(
                        .warning, code: .crsIdentifiedByEllipsoid, note,
                        file: fileName(set.files.first { $0.lowercased().hasSuffix(".prj") } ?? set.path)))
            }
            if !bounds.isEmpty {
                let transformer = try CoordinateTransformer(from: crs, to: .wgs84)
                result.boundsWGS84 = transformer.transformBounds(bounds)
                if transformer.isBallpark {
                    sink.report(
                        Diagnostic(
                            .warning, code: .ballparkTransform,
                            "transformation to WGS84 is approximate: \(transformer.operationDescription)",
                            file: set.baseName))
                }
            }
        } catch {
            result.errors.append(
                .init(
                    severity: "error", code: error.inputErrorCode,
                    message: (error as? any KartpackError)?.description ?? "\(error)", record: nil, count: 1))
        }
        if options.features {
            let (perRecord, skipped) = recordCodes(sink.samples, stats: stats)
            result.featureDump = features.map { FeatureDump($0, codes: perRecord[$0.provenance.record] ?? []) }
            result.skippedRecords = skipped
        }
        result.warnings = messages(from: sink, severity: nil, counts: stats.warnings)
        return result
    }

    /// Per record: the sorted codes of its diagnostics, and the records skipped (by their skip code).
    private static func recordCodes(_ samples: [Diagnostic], stats: ReaderStats)
        -> ([Int: [ReasonCode]], [SkippedRecordDump])
    {
        var codes: [Int: Set<ReasonCode>] = [:]
        var skipped: [SkippedRecordDump] = []
        for d in samples {
            guard let r = d.record else { continue }
            if stats.skipped[d.code] != nil {
                skipped.append(SkippedRecordDump(record: r, code: d.code))
            } else {
                codes[r, default: []].insert(d.code)
            }
        }
        return (codes.mapValues { $0.sorted() }, skipped.sorted { ($0.record, $0.code) < ($1.record, $1.code) })
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// One message per code; `counts` (the reader's own per-occurrence counts) win over the sink's, which sees
    /// once-per-file warnings once.
    private static func messages(
        from sink: DiagnosticSink, severity: Severity?, counts readerCounts: [ReasonCode: Int] = [:]
    ) -> [LayerInspection.Message] {
        var counts = Dictionary(uniqueKeysWithValues: sink.counts.map { ($0.code, $0.count) })
        for (k, v) in readerCounts { counts[k] = max(counts[k] ?? 0, v) }
        var seen = Set<ReasonCode>()
        var out: [LayerInspection.Message] = []
        // One message per code (the first sample), with the code's total count.
        for d in sink.samples where seen.insert(d.code).inserted {
            out.append(
                .init(
                    severity: d.severity.rawValue, code: d.code, message: d.formatted, record: d.record,
                    count: counts[d.code] ?? 1))
        }
        return out
    }
}
