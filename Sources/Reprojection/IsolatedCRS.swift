import Foundation
import KartpackCore
import KartpackJSON
import Synchronization

/// Resolves the CRS of an untrusted `.prj` in a short-lived child process with a time limit, so a `.prj` that
/// crashes or hangs PROJ 9.1 (hostile-inputs.md §4 #40) rejects one file instead of taking the run down.
///
/// The child (`kartpack __resolve-crs`) parses the sanitized WKT and builds the transformations to WGS 84 and
/// Web Mercator — the calls known to crash or recurse — and prints the resulting `CRSInfo` as JSON. The parent
/// then rebuilds the CRS from that vetted definition. Overrides typed by the user (`--source-crs`) are trusted and
/// resolved in-process. Without a helper executable (library use, unit tests) the sanitized in-process path is used.
public enum IsolatedCRS {
    private static let helper = Mutex<String?>(nil)
    private static let cache = Mutex<[String: Result<CRSInfo, ProjectionError>]>([:])
    /// Wall-clock limit for one child.
    public static let timeout = 5.0

    /// The executable that answers `__resolve-crs` (the `kartpack` binary sets itself at start).
    public static var helperExecutable: String? {
        get { helper.withLock { $0 } }
        set { helper.withLock { $0 = newValue } }
    }

    /// Like `CRSResolver.resolve`, with `.prj` text parsed in a child process of `helper` when there is one.
    /// Answers are cached per (helper, text): a run with many layers sharing one `.prj` starts one child.
    public static func resolve(
        prjText: String?, override: String?, prjFile: String?, helper: String? = helperExecutable
    ) throws(ProjectionError) -> CRSInfo {
        guard override == nil, let prjText, let exe = helper else {
            return try CRSResolver.resolve(prjText: prjText, override: override, prjFile: prjFile)
        }
        let key = exe + "\u{0}" + prjText
        if let cached = cache.withLock({ $0[key] }) { return try cached.get() }
        let result = runChild(exe, prjText: prjText, prjFile: prjFile)
        cache.withLock { $0[key] = result }
        return try result.get()
    }

    /// What the child prints: `{"crs": {...}}`, or `{"error": "...", "failure": {...}}` where `failure` is the
    /// `ProjectionError` itself, so the parent keeps its code (`hostile_prj` vs `unparseable_prj`) and says its
    /// text once.
    struct Answer {
        var crs: CRSInfo?
        var error: String?
        var failure: ProjectionError?

        var json: JSONValue {
            guard let crs else {
                var members: [(String, JSONValue)] = [("error", .string(error ?? "unknown error"))]
                if let failure { members.append(("failure", failure.json)) }
                return .object(members)
            }
            return .object([
                (
                    "crs",
                    .object([
                        ("name", .string(crs.name)), ("epsg", crs.epsg.map { .int(Int64($0)) } ?? .null),
                        ("definition", .string(crs.definition)), ("origin", .string(crs.origin)),
                        ("isGeographic", .bool(crs.isGeographic)),
                        ("confidence", crs.confidence.map { .int(Int64($0)) } ?? .null),
                        ("identification", crs.identification.map { .string($0) } ?? .null),
                    ])
                )
            ])
        }

        /// Reads the child's text; nil when it is not an answer.
        init?(text: String) {
            guard let v = try? JSONParser.parse(text), v.objectMembers != nil else { return nil }
            error = v["error"]?.stringValue
            failure = v["failure"].flatMap(ProjectionError.init(json:))
            if let c = v["crs"], let name = c["name"]?.stringValue, let definition = c["definition"]?.stringValue,
                let origin = c["origin"]?.stringValue, case .bool(let geographic)? = c["isGeographic"]
            {
                crs = CRSInfo(
                    name: name, epsg: c["epsg"]?.intValue.flatMap { Int(exactly: $0) }, definition: definition,
                    origin: origin, isGeographic: geographic,
                    confidence: c["confidence"]?.intValue.flatMap { Int(exactly: $0) },
                    identification: c["identification"]?.stringValue)
            }
            guard crs != nil || error != nil else { return nil }
        }

        init() {}
    }

    private static func runChild(_ exe: String, prjText: String, prjFile: String?) -> Result<CRSInfo, ProjectionError> {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["__resolve-crs"] + (prjFile.map { ["--file", $0] } ?? [])
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in done.signal() }
        do { try p.run() } catch {
            // The helper cannot start (e.g. under valgrind): the sanitized in-process path is the remaining defence.
            return Result { () throws(ProjectionError) -> CRSInfo in
                try CRSResolver.resolve(prjText: prjText, override: nil, prjFile: prjFile)
            }
        }
        input.fileHandleForWriting.write(Data(prjText.utf8))
        try? input.fileHandleForWriting.close()
        // Read concurrently so a full pipe can never block the child.
        let box = Mutex(Data())
        let reader = DispatchGroup()
        reader.enter()
        DispatchQueue.global().async {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            box.withLock { $0 = data }
            reader.leave()
        }
        if done.wait(timeout: .now() + timeout) == .timedOut {
            kill(p.processIdentifier, SIGKILL)
            done.wait()
            reader.wait()
            return .failure(.hostilePrj(file: prjFile, reason: "PROJ did not finish within \(Int(timeout)) s on this .prj"))
        }
        reader.wait()
        if p.terminationReason == .uncaughtSignal {
            return .failure(.hostilePrj(file: prjFile, reason: "PROJ crashed on this .prj (signal \(p.terminationStatus))"))
        }
        let data = box.withLock { $0 }
        guard let answer = Answer(text: String(decoding: data, as: UTF8.self)) else {
            return .failure(.hostilePrj(file: prjFile, reason: "the CRS helper gave no answer (exit \(p.terminationStatus))"))
        }
        if let crs = answer.crs { return .success(crs) }
        if let failure = answer.failure { return .failure(failure) }
        return .failure(.unparseablePrj(file: prjFile, detail: answer.error ?? "unknown error"))
    }

    /// The child's side: reads `.prj` text from stdin, resolves it and builds its transformations, prints an
    /// `Answer`. Returns the process exit code.
    public static func serveChild(prjFile: String?) -> Int32 {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        var answer = Answer()
        do {
            let crs = try CRSResolver.resolve(prjText: text, override: nil, prjFile: prjFile)
            _ = try CoordinateTransformer(from: crs, to: .wgs84)
            _ = try CoordinateTransformer(from: crs, to: .webMercator)
            answer.crs = crs
        } catch {
            answer.error = error.description
            answer.failure = error
        }
        FileHandle.standardOutput.write(Data(answer.json.text(.compact).utf8))
        return answer.crs == nil ? ExitCode.dataError.rawValue : 0
    }
}
