import Foundation
import KartpackCore
import Nightly
import ConvertEngine
import Shapefile

/// The checks every writing command makes before any work (issue 15, "hostile environments"):
///
/// - every output path (package, report, style, sprites, preview) must not be a FIFO, device, folder or symbolic
///   link, and its folder must exist (exit 73);
/// - no output may be an input of the run (any Shapefile sidecar, the stylesheet and its icons, a pipeline, a
///   package read) or another output of it (exit 64);
/// - a package output is locked like `run` locks it (`RunLock`, exit 75 while another run holds it), and under the
///   lock the temporaries that killed runs left for it (in its folder and in `--temp-dir`) are removed.
enum RunGuard {
    /// Every file of the Shapefile sets at `paths` (files or folders), the paths themselves included.
    static func shapefileInputs(_ paths: [String], role: String = "input") -> [OutputCollision.Role] {
        var out: [OutputCollision.Role] = []
        for path in paths {
            out.append(OutputCollision.Role(path, as: role))
            guard let sets = try? ShapefileLocator.shapefiles(at: path) else { continue }
            for set in sets {
                for file in [set.shp, set.shx, set.dbf, set.prj, set.cpg, set.memo].compactMap({ $0 }) {
                    out.append(OutputCollision.Role(file, as: role))
                }
            }
        }
        return out
    }

    /// The Shapefile a `--clip` reads, if any.
    static func clipFile(_ clip: ClipOptions?) -> String? {
        guard let clip, case .polygons(let path, _, _) = clip.source else { return nil }
        return path
    }

    /// A `--clip` file is an input like the others: missing, it stops the run before any work (false, exit 66,
    /// said on stderr); present, its sidecars are added to `inputs` so no output may overwrite them (exit 64).
    static func checkClip(_ clip: ClipOptions?, inputs: inout [OutputCollision.Role]) -> Bool {
        guard let path = clipFile(clip) else { return true }
        guard FileManager.default.fileExists(atPath: path) else {
            Console.error("\(path): no such file or folder (--clip)")
            return false
        }
        inputs += shapefileInputs([path], role: "--clip file")
        return true
    }

    /// Every regular file below `folder` (not following links), at most `limit`.
    static func filesBelow(_ folder: String, role: String, limit: Int = 100_000) -> [OutputCollision.Role] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var out: [OutputCollision.Role] = []
        while let name = walker.nextObject() as? String, out.count < limit {
            out.append(OutputCollision.Role((folder as NSString).appendingPathComponent(name), as: role))
        }
        return out
    }

    /// Refuses outputs that are not (or cannot become) regular files (73) and collisions (64).
    static func check(outputs: [OutputCollision.Role], inputs: [OutputCollision.Role]) throws {
        for o in outputs { try RegularFile.checkWritable(o.path) }
        if let clash = OutputCollision.find(outputs: outputs, inputs: inputs) { throw UsageError(message: clash) }
    }

    /// Takes the output's lock and removes what killed runs left for it; release the lock when done.
    static func lock(output: String, temporaryDirectory: String?, scratch: String? = nil) throws -> RunLock {
        let lock = try RunLock(output: output)
        let (folder, name) = RegularFile.split(output)
        for dir in Set([folder] + [temporaryDirectory, scratch].compactMap { $0 }) {
            let removed = (try? StaleTemporaryFiles.removeAbandoned(in: dir, targets: [name])) ?? []
            for path in removed { Console.error("removed \(path), left by a run that was killed") }
        }
        return lock
    }

    /// Removes temporaries of small outputs (reports, styles, previews) older than ten minutes whose writer is gone.
    static func sweep(smallOutputs: [String]) {
        for path in smallOutputs {
            let (folder, name) = RegularFile.split(path)
            _ = try? StaleTemporaryFiles.remove(in: folder, target: name, olderThan: 600)
        }
    }
}
