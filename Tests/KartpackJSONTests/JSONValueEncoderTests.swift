import KartpackJSON
import Testing

@Suite struct JSONValueEncoderTests {
    struct Inner: Encodable {
        var name: String
        var counts: [String: Int]
    }

    struct Report: Encodable {
        var version: Int
        var ratio: Double
        var ok: Bool
        var missing: String?
        var items: [Inner]
        var tags: [String]
        var big: UInt64
    }

    @Test func encodesStructsArraysAndOptionalsInDeclarationOrder() throws {
        let r = Report(
            version: 1, ratio: 0.5, ok: true, missing: nil, items: [Inner(name: "a", counts: ["z": 2, "b": 1])],
            tags: ["x", "é"], big: 7)
        let v = try JSONValueEncoder.encode(r)
        #expect(v.objectMembers?.map(\.key) == ["version", "ratio", "ok", "items", "tags", "big"])
        #expect(
            v.sortingKeys().text(.canonical)
                == #"{"big":7,"items":[{"counts":{"b":1,"z":2},"name":"a"}],"ok":true,"ratio":0.5,"tags":["x","é"],"#
                + #""version":1}"#
        )
    }

    @Test func refusesWhatJSONCannotHold() {
        struct Bad: Encodable { var d: Double }
        struct Huge: Encodable { var u: UInt64 }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Bad(d: .infinity)) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Huge(u: .max)) }
    }

    @Test func encodesTopLevelScalarsAndEmptyContainers() throws {
        #expect(try JSONValueEncoder.encode(3) == .int(3))
        #expect(try JSONValueEncoder.encode([Int]()) == .array([]))
        #expect(try JSONValueEncoder.encode([String: Int]()) == .object([]))
        #expect(
            try JSONValueEncoder.encode(["b": [1], "a": [2]]).sortingKeys()
                == .object([("a", .array([.int(2)])), ("b", .array([.int(1)]))]))
    }
}
