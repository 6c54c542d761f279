import Foundation
import KartpackCore

/// The checks on an output path before any work is done, the same for every command that writes a package.
package enum OutputTarget {
    /// Refuses an output whose folder does not exist, an output that is a folder (`badOutput`, exit 73), and an
    /// existing output without `force` (`outputExists`).
    package static func check(_ path: String, force: Bool) throws(PipelineError) {
        let fm = FileManager.default
        let dir = RegularFile.parentPath(path)
        var isDir: ObjCBool = false
        if !dir.isEmpty, !fm.fileExists(atPath: dir, isDirectory: &isDir) || !isDir.boolValue {
            throw .badOutput(path: path, reason: "folder \(dir) does not exist")
        }
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw .badOutput(path: path, reason: "is a folder") }
            if !force { throw .outputExists(path: path) }
        }
    }
}
