import Foundation

/// Golden files: reviewable text outputs (help, reports, inspections) kept next to the tests, so a change in
/// behaviour shows as a diff in review.
///
/// `KARTPACK_RECORD=1 swift test` (or `scripts/record-golden.sh`) rewrites them from the current output.
public enum Golden {
    /// True when golden files are being rewritten.
    public static var isRecording: Bool { ProcessInfo.processInfo.environment["KARTPACK_RECORD"] == "1" }

    /// Compares `text` with the golden file `name` in the `Golden` folder next to the calling test file; records
    /// it instead when `KARTPACK_RECORD=1`. Returns nil when they match (or were recorded), else a description of
    /// the first difference.
    public static func mismatch(_ text: String, named name: String, testFile: String = #filePath) -> String? {
        let folder = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Golden")
        let url = folder.appendingPathComponent(name)
        if isRecording {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
                return nil
            } catch {
                return "cannot record \(url.path): \(error)"
            }
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return "golden file \(name) is missing; record it with KARTPACK_RECORD=1 swift test"
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard expected != text else { return nil }
        let a = expected.components(separatedBy: "\n")
        let b = text.components(separatedBy: "\n")
        let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let want = line < a.count ? a[line] : "(end)"
        let got = line < b.count ? b[line] : "(end)"
        return "\(name) differs at line \(line + 1):\n  expected: \(want)\n  actual:   \(got)\n"
            + "(record with KARTPACK_RECORD=1 swift test if the change is intended)"
    }
}
