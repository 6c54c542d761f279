import FuzzSupport
import PipelineFiles

/// The pipeline fuzz target: every input is the bytes of a pipeline file, parsed and validated in memory as
/// `kartpack validate` and `kartpack run` do before any work — strict JSON (`JSONParser`), `--set`-free decoding
/// and validation of every section (`PipelineSpec.parse`), the files it names (`missingFiles`, which only looks),
/// and compilation of its record filters, clip and options (`PipelineRunner.compile`, the stylesheet left out so
/// nothing is read from disk). Nothing is converted.
///
/// Invariants (a violation is a bug, not an answer):
/// - a rejected file carries at least one issue, each with a message, and every issue that has a line also has a
///   column, both within the input (line 1 … lines + 1, column ≥ 1);
/// - a parsed pipeline re-validates the same: its canonical JSON parses again (as the same file) to a spec with
///   the same canonical JSON, equal to the first;
/// - parsing and compilation are deterministic (same issues, same canonical form).
enum PipelineFuzzer {
    /// The file the input is read as: relative paths in it resolve under this folder, which does not exist.
    static let file = "/nonexistent-kartpack-fuzz/plan.json"

    /// Runs one input.
    static func run(_ raw: UnsafeRawBufferPointer) {
        let bytes = Array(raw)
        let lineCount = bytes.reduce(1) { $1 == 0x0A || $1 == 0x0D ? $0 + 1 : $0 }
        let spec: PipelineSpec
        do throws(PipelineSpecError) {
            spec = try PipelineSpec.parse(bytes, file: file)
        } catch {
            guard !error.issues.isEmpty else { FuzzDriver.fail("a rejected pipeline without an issue") }
            for issue in error.issues {
                guard !issue.message.isEmpty else { FuzzDriver.fail("an issue without a message at \(issue.path)") }
                guard (issue.line == nil) == (issue.column == nil) else {
                    FuzzDriver.fail("an issue with a line but no column (or the reverse): \(issue)")
                }
                if let line = issue.line, let column = issue.column {
                    guard line >= 1, line <= lineCount + 1, column >= 1 else {
                        FuzzDriver.fail("issue outside the input (\(lineCount) lines): \(issue)")
                    }
                }
            }
            do throws(PipelineSpecError) {
                _ = try PipelineSpec.parse(bytes, file: file)
                FuzzDriver.fail("a rejected pipeline parses the second time")
            } catch let again {
                guard again.issues == error.issues else { FuzzDriver.fail("issues are not deterministic") }
            }
            _ = error.description
            return
        }
        let canonical = spec.canonicalJSON
        let reparsed: PipelineSpec
        do throws(PipelineSpecError) {
            reparsed = try PipelineSpec.parse(Array(canonical.utf8), file: file)
        } catch {
            FuzzDriver.fail("the canonical form does not parse again: \(error.description)\n\(canonical)")
        }
        guard reparsed.canonicalJSON == canonical else {
            FuzzDriver.fail("the canonical form is not stable:\n\(canonical)\n\(reparsed.canonicalJSON)")
        }
        guard reparsed == spec else {
            FuzzDriver.fail("the reparsed canonical form is another pipeline:\n\(canonical)")
        }
        _ = spec.missingFiles(forPackage: spec.regions != nil)
        var inMemory = spec
        inMemory.style = nil
        let (options, problems) = PipelineRunner.compile(inMemory)
        let (optionsAgain, problemsAgain) = PipelineRunner.compile(inMemory)
        guard problems == problemsAgain, (options == nil) == (optionsAgain == nil) else {
            FuzzDriver.fail("compiling is not deterministic")
        }
        guard (options == nil) == !problems.isEmpty else {
            FuzzDriver.fail("compile gave options \(options == nil ? "nil" : "set") with \(problems.count) problem(s)")
        }
        for p in problems where p.isEmpty { FuzzDriver.fail("an empty compile problem") }
    }
}
