import KartpackCore
import Testing

@testable import ConvertEngine

/// `FeatureIDScheme`: the documented string hash (vectors computed independently with Python's hashlib), the
/// choice of kind from the field type, and the duplicate/missing policies of `FeatureIDAssigner`.
@Suite struct FeatureIDSchemeTests {
    private let fields = [
        FieldDefinition(name: "AVDNR", type: .integer), FieldDefinition(name: "FASTIGHET", type: .string),
        FieldDefinition(name: "AREAL", type: .double), FieldDefinition(name: "INVDATUM", type: .date),
    ]

    private func props(_ v: PropertyValue, key: String = "FASTIGHET") -> Properties { Properties([(key, v)]) }

    /// `(int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big") >> 12) | 1 << 52`.
    @Test(arguments: [
        ("a", UInt64(8_067_632_497_205_691)), ("abc", 7_783_998_675_283_996),
        ("Vännäs Bränna 1:23", 5_849_604_478_600_372), ("22EN-1", 7_154_796_167_232_078), ("日本", 8_148_119_640_718_898),
    ])
    func stringIDsMatchTheDocumentedHash(text: String, expected: UInt64) {
        #expect(FeatureIDScheme.stringID(text) == expected)
    }

    @Test func stringIDsAreExactInJavaScriptAndAboveRecordNumbers() {
        for text in ["", "x", "Skog 1:1", String(repeating: "ö", count: 300)] {
            let id = FeatureIDScheme.stringID(text)
            #expect(id >= 1 << 52 && id < 1 << 53, "\(text)")
        }
    }

    @Test func theKindFollowsTheFieldType() throws {
        #expect(try FeatureIDScheme.forField("avdnr", in: fields, policy: .skip).kind == .integerField)
        let s = try FeatureIDScheme.forField("Fastighet", in: fields, policy: .reject)
        #expect(s.kind == .stringHash && s.field == "FASTIGHET")
        #expect(throws: FeatureIDSchemeError.self) {
            try FeatureIDScheme.forField("AREAL", in: fields, policy: .reject)
        }
        #expect(throws: FeatureIDSchemeError.self) {
            try FeatureIDScheme.forField("INVDATUM", in: fields, policy: .reject)
        }
        do {
            _ = try FeatureIDScheme.forField("NOPE", in: fields, policy: .reject)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("no such field") && error.description.contains("AVDNR"))
        }
    }

    @Test func idsComeFromTheValueNotTheRecord() throws {
        let integer = try FeatureIDScheme.forField("AVDNR", in: fields, policy: .reject)
        #expect(integer.id(for: props(.int(42), key: "AVDNR"), record: 1) == 42)
        #expect(integer.id(for: props(.int(42), key: "avdnr"), record: 900) == 42)
        #expect(integer.id(for: props(.int(-1), key: "AVDNR"), record: 1) == nil)
        #expect(integer.id(for: props(.null, key: "AVDNR"), record: 1) == nil)
        #expect(integer.id(for: props(.double(7), key: "AVDNR"), record: 1) == 7)
        #expect(integer.id(for: props(.double(7.5), key: "AVDNR"), record: 1) == nil)
        let hashed = try FeatureIDScheme.forField("FASTIGHET", in: fields, policy: .reject)
        #expect(hashed.id(for: props(.string("abc")), record: 3) == 7_783_998_675_283_996)
        #expect(hashed.id(for: props(.string("")), record: 3) == nil)
        #expect(hashed.id(for: props(.null), record: 3) == nil)
        #expect(FeatureIDScheme.recordNumber.id(for: Properties(), record: 17) == 17)
    }

    @Test func policiesDecideAndCount() throws {
        func run(_ policy: FeatureIDScheme.Policy, _ values: [PropertyValue]) throws
            -> ([FeatureIDAssigner.Outcome], FeatureIDAssigner)
        {
            var a = FeatureIDAssigner(scheme: try FeatureIDScheme.forField("AVDNR", in: fields, policy: policy))
            let outcomes = values.enumerated().map { a.assign(props($1, key: "AVDNR"), record: $0 + 1) }
            return (outcomes, a)
        }
        let values: [PropertyValue] = [.int(10), .int(11), .int(10), .null]
        let (rejected, r) = try run(.reject, values)
        #expect(rejected == [.id(10), .id(11), .rejectFile(.duplicateID), .rejectFile(.missingID)])
        #expect(r.duplicates == 1 && r.missing == 1)
        let (skipped, s) = try run(.skip, values)
        #expect(skipped == [.id(10), .id(11), .skip(.duplicateID), .skip(.missingID)])
        #expect(s.duplicates == 1 && s.missing == 1 && s.fellBack == 0)
        let (fallback, f) = try run(.record, values)
        #expect(fallback == [.id(10), .id(11), .fallback(3, problem: .duplicateID), .fallback(4, problem: .missingID)])
        #expect(f.fellBack == 2)
        // A record number that is already another feature's id cannot be used: that feature is skipped.
        let (taken, _) = try run(.record, [.int(2), .null])
        #expect(taken == [.id(2), .skip(.duplicateID)])
    }

    @Test func theSchemeIsRecordedInTheMetadata() throws {
        let hashed = try FeatureIDScheme.forField("FASTIGHET", in: fields, policy: .skip)
        let text = FeatureIDScheme.metadataText([("fastigheter", hashed), ("vagar", .recordNumber)])
        #expect(
            text
                == #"{"fastigheter":{"field":"FASTIGHET","policy":"skip","scheme":"sha256-52"},"#
                + #""vagar":{"scheme":"record"}}"#
        )
    }
}
