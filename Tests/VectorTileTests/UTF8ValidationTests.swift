import Testing

@testable import VectorTile

/// `UTF8Validation` accepts exactly what `String(validating:as:)` accepts.
@Suite struct UTF8ValidationTests {
    @Test func agreesWithTheStandardLibraryOnEdgeCases() {
        let cases: [[UInt8]] = [
            [], Array("plain ASCII".utf8), Array("Åre, Göteborg, 東京, 🗺".utf8),
            [0xC0, 0x80], [0xC1, 0xBF], [0xC2, 0x80], [0xDF, 0xBF],  // overlong 2-byte forms, first and last valid
            [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],  // overlong 3-byte form, first and last
            [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // last before the surrogates, surrogates
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x97],  // truncated
            [0x66, 0xC3, 0x28], [0xE2, 0x28, 0xA1], [0xF0, 0x28, 0x8C, 0xBC],
        ]
        for c in cases {
            #expect(UTF8Validation.isValid(c[...]) == (String(validating: c, as: UTF8.self) != nil), "\(c)")
        }
    }

    /// 200,000 random sequences, mostly of bytes ≥ 0x80 so that multi-byte forms and their errors are common.
    @Test func agreesWithTheStandardLibraryOnRandomBytes() {
        var rng = SplitMix64(seed: 0x5554_4638)
        var valid = 0
        for _ in 0..<200_000 {
            let n = Int.random(in: 1...6, using: &rng)
            let bytes: [UInt8] = (0..<n).map { _ in
                switch Int.random(in: 0...9, using: &rng) {
                case 0: UInt8.random(in: 0...0x7F, using: &rng)
                case 1...5: UInt8.random(in: 0x80...0xBF, using: &rng)
                default: UInt8.random(in: 0xC0...0xFF, using: &rng)
                }
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validation.isValid(bytes[...]) == expected, "\(bytes)")
            if expected { valid += 1 }
        }
        #expect(valid > 1_000)
    }
}
