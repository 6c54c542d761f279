import Foundation
import KartpackTestSupport
import Testing

/// Issues 12, 15 and 16 through the real binary: rejected files count their records, the feature dump, CRS
/// identification and messages, and the tolerance cases a user sees in `inspect`.
@Suite struct InspectToleranceTests {
    private struct Report: Decodable {
        struct Layer: Decodable {
            struct CRS: Decodable { var epsg: Int?; var confidence: Int? }
            struct Message: Decodable { var code: String; var message: String }
            struct Feature: Decodable {
                struct Geometry: Decodable { var type: String }
                var record: Int
                var geometry: Geometry
                var codes: [String]
            }
            struct Skipped: Decodable, Equatable { var record: Int; var code: String }
            var records: Int
            var recordsSource: String
            var features: Int
            var skipped: [String: Int]
            var coercedToNull: [String: Int]
            var crs: CRS?
            var errors: [Message]
            var warnings: [Message]
            var featureDump: [Feature]?
            var skippedRecords: [Skipped]?
        }
        var layers: [Layer]
    }

    private func hostile(_ name: String) -> String {
        RepositoryPaths.root.appendingPathComponent("SampleData/hostile/\(name)/layer.shp").path
    }

    private func inspect(_ args: [String]) throws -> (status: Int32, layer: Report.Layer?, stderr: String) {
        let r = try runKartpack(["inspect"] + args + ["--format", "json"])
        let layer = try? JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8)).layers.first
        return (r.status, layer, r.stderr)
    }

    @Test func rejectedFilesStillCountTheirRecords() throws {
        for name in ["dbf_header_length_shifted", "shp_bad_magic"] {
            let (status, layer, stderr) = try inspect([hostile(name)])
            #expect(status == 65, "\(name): \(stderr)")
            let l = try #require(layer, "\(name)")
            #expect(l.records == 3 && l.recordsSource == "shx" && l.skipped == ["file_rejected": 3], "\(name)")
            #expect(l.errors.first?.code == "file_rejected")
        }
        let text = try runKartpack(["inspect", hostile("shp_bad_magic")])
        #expect(text.stdout.contains("records:    3 (by the .shx; the file is rejected)"), "\(text.stdout)")
        // A .cpg that names no code page (`System`) no longer rejects the file: the text decides (issue 36).
        let system = try runKartpack(["inspect", hostile("cpg_system")])
        #expect(system.status == 0, "\(system.stderr)")
        #expect(system.stdout.contains("records:    3 (features 3"), "\(system.stdout)")
        #expect(system.stdout.contains("Windows ANSI code page of the computer that wrote the file"))
    }

    @Test func featureDumpListsFeaturesAndSkippedRecords() throws {
        let (status, layer, stderr) = try inspect([hostile("record_null"), "--features"])
        #expect(status == 0, "\(stderr)")
        let l = try #require(layer)
        #expect(l.featureDump?.map(\.record) == [1, 3])
        #expect(l.featureDump?.allSatisfy { $0.geometry.type == "Polygon" } == true)
        #expect(l.skippedRecords == [.init(record: 2, code: "null_geometry")])
        let repaired = try #require(try inspect([hostile("duplicate_points"), "--features"]).layer)
        #expect(repaired.featureDump?.first { $0.record == 2 }?.codes == ["removed_duplicates"])
        let usage = try runKartpack(["inspect", hostile("baseline"), "--features"])
        #expect(usage.status == 64 && usage.stderr.contains("--features applies to Shapefiles with --format json"))
    }

    @Test func toleranceCasesAreReadWithTheirWarning() throws {
        for (name, code) in [
            ("dbf_no_terminator", "dbf_no_terminator"), ("record_length_overrun_multipointz", "record_length_overrun"),
            ("dbf_long_character_field", "long_character_field"), ("dbf_memo_missing_dbt", "memo_file_missing"),
        ] {
            let (status, layer, stderr) = try inspect([hostile(name)])
            #expect(status == 0, "\(name): \(stderr)")
            #expect(layer?.warnings.contains { $0.code == code } == true, "\(name)")
            #expect(layer?.errors.isEmpty == true)
        }
        let numbers = try #require(try inspect([hostile("dbf_asterisk_and_nul_numbers")]).layer)
        #expect(numbers.coercedToNull == ["overflow_marker": 1, "nul_filled_number": 1])
    }

    @Test func crsIdentificationAndMessages() throws {
        let utm = try #require(try inspect([hostile("prj_unnamed_datum_utm18")]).layer)
        #expect(utm.crs?.epsg == 32618 && utm.crs?.confidence == 60)
        #expect(utm.warnings.contains { $0.code == "crs_identified_by_ellipsoid" && $0.message.contains("D_unknown") })

        let bare = try #require(try inspect([hostile("prj_missing"), "--source-crs", "4326"]).layer)
        #expect(bare.crs?.epsg == 4326 && bare.errors.isEmpty)

        // A --source-crs PROJ cannot use is a bad command line (64, as docs/diagnostics.md says), said once
        // before any file is read, with PROJ's closest match named but not used.
        let typo = try inspect([hostile("prj_missing"), "--source-crs", "foo"])
        #expect(typo.status == 64)
        #expect(typo.layer == nil)
        #expect(typo.stderr.contains("Amersfoort"), "\(typo.stderr)")

        let large = try #require(try inspect([hostile("prj_over_64k")]).layer)
        #expect(large.errors.first?.code == "prj_too_large")
        #expect(large.errors.first?.message.contains("larger than the 65536-byte limit") == true)

        for (name, code) in [("prj_absolute_grid_path", "hostile_prj"), ("prj_garbage", "unparseable_prj")] {
            let e = try #require(try inspect([hostile(name)]).layer?.errors.first, "\(name)")
            #expect(e.code == code, "\(name)")
            #expect(e.message.hasSuffix("[\(code)]"))
            // Each thing once: the file and the advice.
            #expect(e.message.components(separatedBy: "layer.prj").count == 2, "\(e.message)")
            #expect(e.message.components(separatedBy: "pass --source-crs").count == 2, "\(e.message)")
        }
    }
}
