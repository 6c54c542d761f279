import Foundation
import KartpackCore

/// Writes to stdout/stderr. Results go to stdout, diagnostics to stderr.
///
/// Every write goes through `StandardStreams`: a closed, full or broken stream never traps; `main` turns a failed
/// write into exit 74 (141 for a broken pipe) after the command's work is done.
enum Console {
    /// Prints a line (or text) to stdout.
    static func out(_ text: String, terminator: String = "\n") {
        StandardStreams.write(text + terminator, to: .output)
    }

    /// Prints a line to stderr, prefixed with `kartpack: `. Diagnostics quote files (paths, metadata, catalog
    /// region names), so control characters are escaped (`TerminalText`); the message's own newlines are kept.
    static func error(_ text: String) {
        StandardStreams.write("kartpack: " + TerminalText.escaped(text, keepNewlines: true) + "\n", to: .error)
    }

    /// Prints raw text to stderr (progress lines).
    static func errRaw(_ text: String) {
        StandardStreams.write(text, to: .error)
    }

    /// True when stderr is a terminal (progress is shown only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
