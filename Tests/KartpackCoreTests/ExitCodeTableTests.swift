import Foundation
import KartpackCore
import Testing

/// `ExitCode` is the one table of exit statuses: the README lists the same codes, the binary's Sources return none
/// but its cases, and the scripts exit with nothing else (docs/testing.md, *Reason codes and exit codes*).
@Suite struct ExitCodeTableTests {
    /// The statuses in the first column of the README's *Exit codes* table (`130 / 143` names two).
    static func documentedStatuses(_ readme: String) -> [Int32] {
        guard let section = readme.split(separator: "\n## ").first(where: { $0.hasPrefix("Exit codes") }) else {
            return []
        }
        return section.split(separator: "\n").filter { $0.hasPrefix("| ") }.flatMap { row in
            row.split(separator: "|")[0].split(separator: "/").compactMap {
                Int32($0.trimmingCharacters(in: .whitespaces))
            }
        }
    }

    @Test func theReadmeListsEveryExitCodeAndNoOther() throws {
        let readme = try ReasonCodeDocsTests.read("README.md")
        let documented = Self.documentedStatuses(readme)
        #expect(documented.count == Set(documented).count, "a status listed twice")
        #expect(Set(documented) == Set(ExitCode.allCases.map(\.rawValue)), "README's table vs ExitCode")
        #expect(
            Self.documentedStatuses("\n## Exit codes\n\n| Code | Meaning |\n|---|---|\n| 0 | ok |\n| 1 / 2 | x |") == [
                0, 1, 2,
            ])
    }

    @Test func sourcesExitOnlyWithExitCodes() throws {
        let statuses = Set(ExitCode.allCases.map(\.rawValue).filter { $0 != 0 })
        var found: [String] = []
        for file in ReasonCodeDocsTests.swiftFiles(under: "Sources")
        where file != "Sources/KartpackCore/ExitCode.swift" && !file.hasPrefix("Sources/Fuzz") {
            for (n, line) in try ReasonCodeDocsTests.read(file).split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated()
            {
                let code = ReasonCodeDocsTests.code(line)
                let exitWithNumber = code.contains(/\b_?exit\([^)]*[0-9]/)
                let returnsStatus =
                    code.firstMatch(of: /\breturn\s+([0-9]+)\s*(\}|$)/).map {
                        statuses.contains(Int32($0.output.1) ?? 0)
                    } ?? false
                if exitWithNumber || returnsStatus { found.append("\(file):\(n + 1): \(code)") }
            }
        }
        #expect(found == [], "exit statuses come from ExitCode")
    }

    @Test func scriptsExitOnlyWithExitCodes() throws {
        // 0 and 1 (a check script's plain failure) are not kartpack statuses; any other `exit N` must be one.
        let statuses = Set(ExitCode.allCases.map(\.rawValue)).union([1])
        var found: [String] = []
        let walker = FileManager.default.enumerator(
            atPath: ReasonCodeDocsTests.root.appendingPathComponent("scripts").path)
        while let p = walker?.nextObject() as? String {
            guard [".sh", ".sbatch", ".py"].contains(where: { p.hasSuffix($0) }) else { continue }
            let text = try ReasonCodeDocsTests.read("scripts/" + p)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for m in line.matches(of: /(?:\bexit |sys\.exit\()([0-9]+)/) {
                    guard let status = Int32(m.output.1), !statuses.contains(status) else { continue }
                    found.append("scripts/\(p):\(n + 1): \(line)")
                }
            }
        }
        #expect(found == [], "scripts exit with a status of ExitCode's table (or 1)")
    }
}
