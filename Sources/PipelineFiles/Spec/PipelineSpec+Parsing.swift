import Glibc
import KartpackCore
import KartpackJSON
import TileArchive
import ConvertEngine
import Publishing

extension PipelineSpec {
    /// The largest pipeline file read (a pipeline is a few kilobytes; this only stops accidents).
    package static let maxFileBytes = 4 << 20

    /// How pipeline files are read: strict JSON, a UTF-8 byte-order mark tolerated (editors on Windows write one),
    /// 64 nesting levels, `maxFileBytes`. Repeated keys are kept: the decoder reports them with their path.
    static let jsonOptions = JSONParseOptions(
        maxDepth: 64, maxBytes: maxFileBytes, allowsByteOrderMark: true, loneSurrogates: .reject, duplicateKeys: .keep,
        emptyDocumentMessage: "the file is empty; expected a JSON object")

    /// Reads, overrides and validates the pipeline file at `path` (relative paths in it resolve against its
    /// folder).
    ///
    /// - Parameter overrides: `--set` texts (`tiles.maxZoom=12`), applied in order before validation.
    /// - Throws: every problem at once; exit code `.noInput` when the file cannot be read, `.config` otherwise.
    package static func load(path: String, overrides: [String] = []) throws(PipelineSpecError) -> PipelineSpec {
        let bytes = try readFile(path)
        return try parse(bytes, file: path, overrides: overrides)
    }

    /// Parses pipeline text as if read from `file` (whose folder anchors relative paths; a relative `file` is
    /// resolved against the working folder). See `load(path:overrides:)`.
    package static func parse(_ bytes: [UInt8], file: String, overrides: [String] = []) throws(PipelineSpecError)
        -> PipelineSpec
    {
        let document: JSONParsedDocument
        do throws(JSONParseError) {
            document = try JSONParser.parseDocument(bytes, options: jsonOptions)
        } catch {
            throw PipelineSpecError(
                file: file,
                issues: [PipelineSpecIssue(path: .root, message: error.message, line: error.line, column: error.column)]
            )
        }
        var (overridden, overrideIssues, setPaths) = SpecOverride.apply(overrides, to: document.value)
        overridden = SpecOverride.formatFollowingPath(overridden, setPaths: setPaths)
        let locations = SpecLocations(document: document, overridden: setPaths)
        let absolute = SpecPaths.absolute(file, base: SpecPaths.currentDirectory())
        var decoder = SpecDecoder(file: absolute)
        let spec = decoder.decode(overridden)
        let issues = overrideIssues + decoder.reader.issues.map(locations.locate)
        guard var spec, issues.isEmpty else {
            throw PipelineSpecError(
                file: file,
                issues: issues.isEmpty ? [PipelineSpecIssue(path: .root, message: "invalid pipeline")] : issues)
        }
        spec.locations = locations
        return spec
    }

    /// Problems with files the pipeline names (a missing source `.shp`, stylesheet or clip file, an output folder
    /// that does not exist), for `validate` and before a run. Empty when everything is there.
    ///
    /// - Parameter forPackage: check what `kartpack package` needs instead of `run`: the `regions` section's
    ///   files (region Shapefile, signing key and password file) and the parent of its package folder, not the
    ///   folder of `output.path` (which `package` does not write).
    package func missingFiles(forPackage: Bool = false) -> [PipelineSpecIssue] {
        var out: [PipelineSpecIssue] = []
        func check(_ path: String, _ at: JSONPath) {
            var st = stat()
            if stat(path, &st) != 0 {
                out.append(
                    PipelineSpecIssue(path: at, message: "\(relativePath(path)): \(String(cString: strerror(errno)))"))
            } else if (st.st_mode & S_IFMT) != S_IFREG {
                out.append(PipelineSpecIssue(path: at, message: "\(relativePath(path)): not a regular file"))
            }
        }
        for (i, s) in sources.enumerated() {
            check(s.path, JSONPath.root.appending("sources").appending(i).appending("path"))
        }
        if let style { check(style, JSONPath.root.appending("style")) }
        if let clip, case .file(let p, _) = clip.area { check(p, JSONPath.root.appending("clip").appending("path")) }
        func checkFolder(of path: String, _ at: JSONPath) {
            let folder = SpecPaths.folder(of: path)
            var st = stat()
            if stat(folder, &st) != 0 || (st.st_mode & S_IFMT) != S_IFDIR {
                out.append(PipelineSpecIssue(path: at, message: "the folder \(relativePath(folder)) does not exist"))
            }
        }
        if forPackage {
            if let r = regions {
                let at = JSONPath.root.appending("regions")
                check(r.path, at.appending("path"))
                if let key = r.sign { check(key, at.appending("sign")) }
                if let file = r.signPasswordFile { check(file, at.appending("signPasswordFile")) }
                checkFolder(of: r.output, at.appending("output"))
            }
        } else {
            checkFolder(of: output.path, JSONPath.root.appending("output").appending("path"))
        }
        return out.map(locations.locate)
    }

    static func readFile(_ path: String) throws(PipelineSpecError) -> [UInt8] {
        func failure(_ message: String) -> PipelineSpecError {
            PipelineSpecError(
                file: path, issues: [PipelineSpecIssue(path: .root, message: message)], exitCode: .noInput)
        }
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a regular file).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            // Out of descriptors is the machine's fault (74, naming the limit), not a missing pipeline.
            if OpenFileLimit.isExhausted(e) {
                throw PipelineSpecError(
                    file: path,
                    issues: [
                        PipelineSpecIssue(
                            path: .root, message: "cannot open the pipeline file: \(OpenFileLimit.message(errno: e))")
                    ],
                    exitCode: .ioError)
            }
            throw failure("cannot open the pipeline file: \(String(cString: strerror(e)))")
        }
        defer { _ = close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw failure("cannot read the pipeline file: \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw failure("not a regular file (a \(RegularFile.describe(st.st_mode)))")
        }
        guard st.st_size <= maxFileBytes else {
            throw PipelineSpecError(
                file: path,
                issues: [
                    PipelineSpecIssue(path: .root, message: "the pipeline file is larger than \(maxFileBytes) bytes")
                ])
        }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read the pipeline file: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[..<n])
            if out.count > maxFileBytes {
                throw PipelineSpecError(
                    file: path,
                    issues: [
                        PipelineSpecIssue(
                            path: .root, message: "the pipeline file is larger than \(maxFileBytes) bytes")
                    ])
            }
        }
        return out
    }
}
