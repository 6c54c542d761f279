import Foundation
import KartpackTestSupport
import Styling
import Testing

/// The `=~` matcher: the same answers as Swift's `Regex` on the supported syntax, linear time on patterns that make
/// a backtracking engine explode, and clear refusals of what it does not support.
@Suite struct StyleRegexTests {
    static let patterns = [
        "a", "^a", "a$", "^a$", "ab|cd", "^(ab|cd)$", "a*", "^a*$", "^a+b?$", "a{2}", "^a{2,3}$", "^a{2,}$",
        "^(a|b)*c$", "[abc]+", "^[^abc]+$", "[a-f0-9]{3}", "\\d+", "^\\w+$", "\\s", "\\S+", "\\D", "\\W",
        "(?i)ab", "(?i)^[a-c]+$", "a.c", "^.*$", "\\.", "x\\+y", "\\bab\\b", "\\Bb", "^(a|ab)(c|bcd)$",
        "(?:ab)+", "(?<n>ab)+c", "a??b", "a*?b", "^$", "(a*)*b", "((a|b)*)*c", "^(a+)+$", "[\\d-]+", "[a\\-z]",
        "x{0}y", "^a{0,2}$", "(?i:ab)c", "\\u{41}", "\\x41", "[.]", "a|", "|a", "()", "^\\(1\\)$",
    ]
    static let texts = [
        "", "a", "b", "ab", "abc", "cd", "aab", "aaab", "aaa", "aaaa", "abcabc", "xyz", "12a", "a.c", "abd", "AB",
        "Ab c", "ab ab", "x+y", "abbcd", "abcd", "c", "ababc", "0-9", "-", "z", "y", "A", "(1)", "]", "a b\tc",
    ]

    @Test func agreesWithSwiftRegexOnTheSupportedSyntax() throws {
        for p in Self.patterns {
            let mine = try StyleRegex(p)
            let reference = try Regex(p)
            for t in Self.texts {
                #expect(mine.matches(t) == t.contains(reference), "pattern \(p) on \"\(t)\"")
            }
        }
    }

    @Test func randomPatternsAgreeWithSwiftRegex() throws {
        var rng = SplitMix64(seed: 15)
        let atoms = ["a", "b", "c", ".", "[ab]", "[^a]", "\\d", "(a|b)", "(ab)", "(a*)", "x"]
        let quantifiers = ["", "", "*", "+", "?", "{2}", "{1,2}"]
        for _ in 0..<400 {
            var p = Int.random(in: 0...3, using: &rng) == 0 ? "^" : ""
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                p += atoms.randomElement(using: &rng)! + quantifiers.randomElement(using: &rng)!
            }
            if Int.random(in: 0...3, using: &rng) == 0 { p += "$" }
            let mine = try StyleRegex(p)
            let reference = try Regex(p)
            for _ in 0..<10 {
                let t = String(
                    (0..<Int.random(in: 0...6, using: &rng)).map { _ in "abcx1".randomElement(using: &rng)! })
                #expect(mine.matches(t) == t.contains(reference), "pattern \(p) on \"\(t)\"")
            }
        }
    }

    @Test func catastrophicBacktrackingPatternsRunInLinearTime() throws {
        let text = String(repeating: "a", count: 5000) + "!"
        let clock = ContinuousClock()
        for p in ["^(a+)+$", "^(a|a)*$", "^(a*)*$", "^(a|aa)+$", "(x+x+)+y", "^([a-z]+)*[0-9]$", "^(.*a){20}$"] {
            let r = try StyleRegex(p)
            let t0 = clock.now
            #expect(!r.matches(text), "\(p)")
            // A hang guard, not a speed target: a backtracking engine needs longer than the universe's age on
            // 5,000 a's, a linear one milliseconds; 20 s leaves room for a debug build on a loaded machine.
            #expect(clock.now - t0 < .seconds(20), "\(p) took \(clock.now - t0)")
        }
        // The classic: forty a's and a '!'.
        #expect(try !StyleRegex("^(a+)+$").matches(String(repeating: "a", count: 40) + "!"))
        #expect(try StyleRegex("^(a+)+$").matches(String(repeating: "a", count: 40)))
    }

    @Test(arguments: [
        ("(a)\\1", "backreferences"), ("(?=a)", "lookahead"), ("(?!a)", "lookahead"), ("(?<=a)b", "lookbehind"),
        ("(?>a)", "atomic"), ("a*+", "possessive"), ("a**", "quantifier follows"), ("a{1001}", "above 1000"),
        ("(a{1000}){1000}", "too large"), ("[[:alpha:]]", "POSIX"), ("(a", "missing ')'"), ("a)", "unbalanced"),
        ("[a", "missing ']'"), ("*a", "nothing to repeat"), ("\\q", "unknown escape"), ("a{3,1}", "below"),
        ("(?x)a", "unsupported flag"), ("^*", "anchor"),
    ])
    func unsupportedOrBrokenPatternsAreRefusedWithTheReason(_ pattern: String, _ reason: String) {
        #expect {
            _ = try StyleRegex(pattern)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func unicodeAndCaseFolding() throws {
        #expect(try StyleRegex("(?i)^gravfält$").matches("GRAVFÄLT"))
        #expect(try StyleRegex("^\\w+$").matches("Östra_Göinge2"))
        #expect(try StyleRegex("^\\d+$").matches("٣٤"))
        #expect(try !StyleRegex("^.$").matches("\n"))
        #expect(try StyleRegex("(?s)^.$").matches("\n"))
        #expect(try StyleRegex("(?m)^b$").matches("a\nb\nc"))
        #expect(try !StyleRegex("^b$").matches("a\nb\nc"))
    }

    @Test func aMatcherPerThreadGivesTheSameAnswers() async throws {
        let r = try StyleRegex("^x[0-9]+$")
        await withTaskGroup(of: Bool.self) { group in
            for t in 0..<8 {
                group.addTask {
                    let m = r.makeMatcher()
                    return (0..<2000).allSatisfy { i in m.matches("x\(i * t)") && !m.matches("y\(i)") }
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
