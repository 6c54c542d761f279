import Foundation
import KartpackCore
import Testing

/// docs/diagnostics.md is the list of reason codes and `ReasonCode` is the type that carries them: the two must name
/// the same codes, and no code may bypass the type as a string literal in Sources (docs/diagnostics.md, *Reason
/// codes in the source*).
@Suite struct ReasonCodeDocsTests {
    /// The repository root (three folders above this file).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The codes a Markdown text documents: every `backticked` word in the first cell of a row of a table whose
    /// header's first cell is `Code`.
    static func documentedCodes(_ markdown: String) -> [String] {
        var codes: [String] = []
        var header: String?
        var previousWasRow = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let isRow = line.hasPrefix("|")
            defer { previousWasRow = isRow }
            guard isRow else { continue }
            let firstCell = line.split(separator: "|", omittingEmptySubsequences: false)[1]
                .trimmingCharacters(in: .whitespaces)
            if !previousWasRow {
                header = firstCell
            } else if header == "Code", !line.hasPrefix("|---") {
                codes += firstCell.matches(of: /`([^`]+)`/).map { String($0.output.1) }
            }
        }
        return codes
    }

    @Test func everyCaseIsDocumentedAndEveryDocumentedCodeIsACase() throws {
        let documented = Set(Self.documentedCodes(try Self.read("docs/diagnostics.md")))
        let cases = Set(ReasonCode.allCases.map(\.rawValue))
        #expect(cases.subtracting(documented).sorted() == [], "cases missing from docs/diagnostics.md")
        #expect(documented.subtracting(cases).sorted() == [], "documented codes that are no ReasonCode case")
        #expect(cases.count >= 200)
    }

    @Test func rawValuesAreSnakeCaseAndDescribedAsThemselves() {
        for code in ReasonCode.allCases {
            #expect(code.rawValue.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) != nil, "\(code.rawValue)")
            #expect("\(code)" == code.rawValue)
        }
    }

    @Test func theTableRuleFindsCodesOnlyInCodeTables() {
        let markdown = """
            | Code | Meaning |
            |---|---|
            | `a_b`, `c` | text `not_me` |

            | Limit | Where |
            |---|---|
            | `x_y` | `z` |
            """
        #expect(Self.documentedCodes(markdown) == ["a_b", "c"])
    }

    /// Literals that equal a reason code's raw value but are something else, with the reason.
    static let notReasonCodes: [(file: String, literal: String, why: String)] = [
        ("Sources/ConvertEngine/Sharding/ShardPart.swift", "truncated", "the damage a shard part shows, in a message"),
        ("Sources/PipelineFiles/StyleLoader.swift", "unreadable", "a style-language diagnostic code and message"),
        ("Sources/Styling/Stylesheet+Lint.swift", "type_mismatch", "a style-language diagnostic code"),
    ]

    /// Swift files under `folder`, as paths relative to the root.
    static func swiftFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(atPath: base.path)
        var out: [String] = []
        while let p = walker?.nextObject() as? String {
            if p.hasSuffix(".swift") { out.append(folder + "/" + p) }
        }
        return out.sorted()
    }

    /// A line without its `//` comment (outside string literals; good enough for Sources).
    static func code(_ line: Substring) -> Substring {
        var inString = false
        var previous: Character = " "
        for i in line.indices {
            let c = line[i]
            if c == "\"", previous != "\\" { inString.toggle() }
            if !inString, c == "/", previous == "/" { return line[..<line.index(before: i)] }
            previous = c
        }
        return line
    }

    @Test func noReasonCodeIsWrittenAsAStringLiteralInSources() throws {
        let codes = Set(ReasonCode.allCases.map(\.rawValue))
        var found: [String] = []
        for file in Self.swiftFiles(under: "Sources") where file != "Sources/KartpackCore/ReasonCode.swift" {
            for (n, line) in try Self.read(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for m in Self.code(line).matches(of: /"([a-z][a-z0-9_]*)"/) where codes.contains(String(m.output.1)) {
                    let literal = String(m.output.1)
                    if Self.notReasonCodes.contains(where: { $0.file == file && $0.literal == literal }) { continue }
                    found.append("\(file):\(n + 1): \"\(literal)\"")
                }
            }
        }
        #expect(found == [], "use ReasonCode cases, not string literals")
    }

    @Test func noCodeArgumentIsAStringLiteralOutsideTheStyleLanguage() throws {
        var found: [String] = []
        for file in Self.swiftFiles(under: "Sources")
        where !file.hasPrefix("Sources/Styling/") && file != "Sources/PipelineFiles/StyleLoader.swift" {
            for (n, line) in try Self.read(file).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where Self.code(line).contains(/\bcode:\s*#*"/) {
                found.append("\(file):\(n + 1)")
            }
        }
        #expect(found == [], "a `code:` argument takes a ReasonCode")
    }
}
