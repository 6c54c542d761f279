import Foundation

/// Writes to stdout/stderr. Results go to stdout, diagnostics to stderr.
enum Console {
    /// Prints a line (or text) to stdout.
    static func out(_ text: String, terminator: String = "\n") {
        FileHandle.standardOutput.write(Data((text + terminator).utf8))
    }

    /// Prints a line to stderr, prefixed with `kartpack: `.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data(("kartpack: " + text + "\n").utf8))
    }

    /// Prints raw text to stderr (progress lines).
    static func errRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// True when stderr is a terminal (progress is shown only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}
