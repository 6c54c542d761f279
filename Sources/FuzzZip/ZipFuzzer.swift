import FuzzSupport
import Foundation
import Import
/// The zip fuzz target: every input is a `.zip` handed to the import's extractor (the most hostile-input parser:
/// central directory, local headers, ZIP64, data descriptors, deflate, names, Zip Slip, case folding), with small
/// caps so a run stays fast, then the Shapefile discovery walks what was extracted.
///
/// Invariants checked (a violation is a bug, not an answer): every extracted file lies inside the extraction
/// folder and is a regular file no bigger than the caps; the folder is gone after `remove()`. Thrown errors are
/// answers; their descriptions are still built, since messages quote hostile bytes.
enum ZipFuzzer {
    static let limits = ZipLimits(
        maxTotalBytes: 4 << 20, maxEntryBytes: 1 << 20, maxEntries: 64, maxRatio: 100, ratioGraceBytes: 64 << 10,
        maxCentralDirectoryBytes: 1 << 20)

    /// Runs one input.
    static func run(_ raw: UnsafeRawBufferPointer) {
        let scratch = FuzzScratch.shared
        scratch.write("f.zip", Array(raw))
        do {
            let archive = try ZipExtractor(limits: limits, temporaryDirectory: scratch.path).extract(
                scratch.file("f.zip"))
            let root = archive.root
            var total = 0
            for f in archive.files {
                guard f.path.hasPrefix(root + "/"), !f.relativePath.contains("..") else {
                    FuzzDriver.fail("extracted outside the folder: \(f.path)")
                }
                var st = stat()
                guard lstat(f.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                    FuzzDriver.fail("not a regular file: \(f.path)")
                }
                guard f.size <= limits.maxEntryBytes, Int(st.st_size) == f.size else {
                    FuzzDriver.fail("size \(st.st_size) of \(f.path) breaks the cap or the record (\(f.size))")
                }
                total += f.size
            }
            guard total <= limits.maxTotalBytes else { FuzzDriver.fail("\(total) bytes extracted in all") }
            for w in archive.warnings { _ = w.message }
            if let found = try? ShapefileDiscovery(maxDepth: 8, maxEntries: 1000).discover(in: root) {
                _ = found.shapefiles.map(\.relativePath)
            }
            guard archive.remove(), !FileManager.default.fileExists(atPath: root) else {
                FuzzDriver.fail("the extraction folder \(root) was not removed")
            }
        } catch {
            _ = error.description
        }
        scratch.write("f.zip", nil)
    }
}
