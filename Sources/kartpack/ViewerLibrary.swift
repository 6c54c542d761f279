import Foundation
import KartpackCore
import MapStyle

/// Where the binary finds MapLibre GL JS, its CSS and pmtiles.js (`ViewerPage.libraryFiles`), vendored from the
/// PyPI wheel `roadstyle` by `scripts/bootstrap.sh` into `vendor/viewer/` of the checkout (or installed into
/// `share/kartpack/viewer/` next to the binary's `bin/`). Nothing is fetched at run time.
enum ViewerLibrary {
    /// The folders looked in, in order: `$KARTPACK_VIEWER_DIR` alone when set; else `../share/kartpack/viewer`
    /// beside the binary's folder and `vendor/viewer` in the binary's folder and up to four folders above it (a
    /// checkout's `.build/…/release/kartpack`).
    static var candidates: [String] {
        if let env = ProcessInfo.processInfo.environment["KARTPACK_VIEWER_DIR"], !env.isEmpty { return [env] }
        var dir = RegularFile.parentPath(helperExecutable())
        var list = [
            (RegularFile.parentPath(dir) as NSString).appendingPathComponent("share/kartpack/viewer")
        ]
        for _ in 0..<5 {
            list.append((dir as NSString).appendingPathComponent("vendor/viewer"))
            let parent = RegularFile.parentPath(dir)
            if parent == dir || parent.isEmpty { break }
            dir = parent
        }
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// The first candidate holding every library file.
    static func find() -> String? {
        candidates.first { dir in
            ViewerPage.libraryFiles.allSatisfy {
                FileManager.default.isReadableFile(atPath: (dir as NSString).appendingPathComponent($0))
            }
        }
    }

    /// What to tell the user when `find()` is nil.
    static var missingMessage: String {
        "the viewer's MapLibre GL JS files (\(ViewerPage.libraryFiles.joined(separator: ", "))) were not found; "
            + "looked in " + candidates.joined(separator: ", ")
            + ". Run scripts/bootstrap.sh (it copies them from the roadstyle wheel into vendor/viewer/) or set "
            + "KARTPACK_VIEWER_DIR to a folder holding them"
    }
}
