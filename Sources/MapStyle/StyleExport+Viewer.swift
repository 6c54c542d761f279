import Foundation

extension StyleExport {
    /// Writes `index.html` and `viewer/viewer.js` into `folder` and copies MapLibre GL JS and pmtiles.js from
    /// `library` into `viewer/` (left out when `library` is nil); returns the files written.
    static func writeViewer(folder: String, styleName: String, library: String?) throws(MapStyleError) -> [String] {
        func inFolder(_ name: String) -> String {
            folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        }
        let viewer = inFolder("viewer")
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: viewer, isDirectory: &isDir) {
            guard mkdir(viewer, 0o755) == 0 || errno == EEXIST else {
                throw .cannotWrite(path: viewer, reason: String(cString: strerror(errno)))
            }
        } else if !isDir.boolValue {
            throw .cannotWrite(path: viewer, reason: "a file is in the way of the viewer folder")
        }
        var files: [String] = []
        let page = inFolder("index.html")
        try FileOutput.write(Array(ViewerPage.html(styleName: styleName).utf8), to: page)
        files.append(page)
        let script = (viewer as NSString).appendingPathComponent(ViewerPage.scriptName)
        try FileOutput.write(Array(ViewerPage.script.utf8), to: script)
        files.append(script)
        guard let library else { return files }
        for name in ViewerPage.libraryFiles {
            let from = (library as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: from) else {
                throw .cannotWrite(path: from, reason: "cannot read the vendored viewer file")
            }
            let to = (viewer as NSString).appendingPathComponent(name)
            try FileOutput.write(Array(data), to: to)
            files.append(to)
        }
        return files
    }
}
