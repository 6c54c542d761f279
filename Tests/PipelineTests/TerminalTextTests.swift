import Testing

@testable import KartpackCore

/// `TerminalText.escaped`: no control character of an untrusted string reaches a terminal.
@Suite struct TerminalTextTests {
    @Test func controlCharactersBecomeVisibleEscapes() {
        #expect(TerminalText.escaped("Region \u{1B}]0;owned\u{07}\u{1B}[2J") == "Region \\e]0;owned\\u{7}\\e[2J")
        #expect(TerminalText.escaped("a\nb\rc\td\u{7F}\u{9B}") == "a\\nb\\rc\\td\\u{7F}\\u{9B}")
        #expect(TerminalText.escaped("abc\u{202E}fdp.exe") == "abc\\u{202E}fdp.exe")
    }

    @Test func ordinaryTextIsUnchanged() {
        for s in ["Göteborg", "Åre kommun – fjäll", "東京", "a\\b", ""] { #expect(TerminalText.escaped(s) == s) }
        #expect(TerminalText.escaped("line 1\nline 2\u{1B}", keepNewlines: true) == "line 1\nline 2\\e")
    }
}
