import Styling
import Testing

@Suite struct RobustnessTests {
    /// Every prefix of a sheet parses to a result (no crash, no hang); a sheet with errors is never returned.
    @Test func everyPrefixOfASheetIsHandled() {
        let scalars = Array(ParserTests.issueSheet.unicodeScalars)
        for n in 0...scalars.count {
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars[0..<n])
            let (sheet, diags) = Stylesheet.parse(text, file: "p.kss")
            #expect((sheet == nil) == diags.hasErrors, "prefix \(n)")
            #expect(diags.allSatisfy { $0.line >= 1 && $0.column >= 1 }, "prefix \(n)")
        }
    }

    /// Random single-character damage (seeded, so reproducible) never crashes the parser, and every error points
    /// inside the text.
    @Test func randomDamageIsReportedNotFatal() {
        let base = Array(ParserTests.issueSheet.unicodeScalars)
        let alphabet = Array("{}[]();:,*=!<>^$~\"'/\\#@ \n-.0aZö\u{0}".unicodeScalars)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        let lineCount = ParserTests.issueSheet.split(separator: "\n", omittingEmptySubsequences: false).count
        for _ in 0..<300 {
            var s = base
            for _ in 0..<(1 + next() % 3) {
                let i = next() % s.count
                switch next() % 3 {
                case 0: s[i] = alphabet[next() % alphabet.count]
                case 1: s.remove(at: i)
                default: s.insert(alphabet[next() % alphabet.count], at: i)
                }
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: s)
            let (sheet, diags) = Stylesheet.parse(text, file: "m.kss")
            #expect((sheet == nil) == diags.hasErrors)
            #expect(diags.allSatisfy { $0.line >= 1 && $0.line <= lineCount + 2 && $0.column >= 1 })
            if let sheet {
                // A damaged sheet that still parses can be classified with.
                _ = StyleClassifier(sheet: sheet).style(
                    layer: "hansyn", properties: props(("TYP", .string("Natura2000"))), zoom: 12)
                _ = sheet.runExamples()
            }
        }
    }
}
