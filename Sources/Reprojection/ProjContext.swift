internal import CProj
import Glibc

/// Owns one `PJ_CONTEXT`, set up the way Kartpack needs every context to be:
///
/// - a logger (`proj_log_func` with this object as userdata) that collects PROJ's error messages, the only useful
///   text PROJ gives (errno 4096 reads "Unknown error");
/// - the network turned off (`proj_context_set_enable_network(ctx, 0)`, checked), whatever `PROJ_NETWORK` says;
/// - the search path pinned to the directory holding `proj.db`, so a bare grid name can only resolve inside
///   proj-data (not `~/.local/share/proj` or the working directory);
/// - a file API (`ProjFileAccess`) that lets PROJ read regular files inside that directory only: a path in a CRS
///   text (`+nadgrids=/tmp/fifo`) is refused by PROJ's own file layer, and nothing is ever written;
/// - a clear error, never a crash, when `proj.db` cannot be found.
///
/// A context belongs to one thread; it is not `Sendable`. It is destroyed in `deinit`, after every `ProjObject`
/// that uses it (each holds a strong reference to its context).
final class ProjContext {
    /// The context handle. Only this object destroys it.
    let raw: OpaquePointer
    /// Messages logged since the last `clearMessages()`, at most `maxMessages`.
    private(set) var messages: [String] = []
    /// How many messages were dropped because the buffer was full.
    private(set) var droppedMessages = 0
    /// The directory holding `proj.db`.
    private(set) var dataDirectory = ""
    /// The file API's user data (the allowed directory), freed after the context.
    private var fileAccess: UnsafeMutablePointer<CChar>?

    private static let maxMessages = 16
    private static let maxMessageLength = 400

    /// Creates and configures a context.
    init() throws(ProjectionError) {
        guard let c = proj_context_create() else {
            throw .projSetupFailed(detail: "proj_context_create returned NULL (out of memory?)")
        }
        raw = c
        // From here on `self` is fully initialized, so a throw below still runs deinit and destroys the context.
        _ = proj_log_level(c, PJ_LOG_ERROR)
        proj_log_func(c, Unmanaged.passUnretained(self).toOpaque()) { userdata, _, message in
            guard let userdata, let message else { return }
            Unmanaged<ProjContext>.fromOpaque(userdata).takeUnretainedValue().record(String(cString: message))
        }
        guard proj_context_set_enable_network(c, 0) == 0, proj_context_is_network_enabled(c) == 0 else {
            throw .projSetupFailed(detail: "PROJ refused to turn network access off")
        }
        guard let dbPath = proj_context_get_database_path(c) else {
            // Out of descriptors, PROJ says it cannot find proj.db: blame the limit, not the installation.
            if let exhausted = ProjectionError.exhausted("proj.db: cannot open PROJ's database") { throw exhausted }
            throw .projDatabaseMissing(detail: logText(or: "proj_context_get_database_path returned NULL"))
        }
        let path = String(cString: dbPath)
        guard let slash = path.lastIndex(of: "/") else {
            throw .projDatabaseMissing(detail: "unexpected proj.db path \"\(path)\"")
        }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        dataDirectory = dir
        dir.withCString { cDir in
            let paths: [UnsafePointer<CChar>?] = [cDir]
            paths.withUnsafeBufferPointer { proj_context_set_search_paths(c, 1, $0.baseAddress) }
        }
        // Setting the search paths may reopen the database; make sure it is still there.
        guard proj_context_get_database_path(c) != nil else {
            if let exhausted = ProjectionError.exhausted("proj.db: cannot open PROJ's database") { throw exhausted }
            throw .projDatabaseMissing(detail: logText(or: "proj.db not found in \(dir)"))
        }
        guard let access = ProjFileAccess.install(on: c, allowing: dir) else {
            throw .projSetupFailed(detail: "PROJ refused the file API that limits it to \(dir)")
        }
        fileAccess = access
        clearMessages()
    }

    deinit {
        proj_context_destroy(raw)
        if let fileAccess { free(fileAccess) }
    }

    /// True when PROJ would use the network (it never should).
    var isNetworkEnabled: Bool { proj_context_is_network_enabled(raw) != 0 }

    private func record(_ message: String) {
        guard messages.count < Self.maxMessages else {
            droppedMessages += 1
            return
        }
        var m = message
        while let last = m.last, last == "\n" || last == " " { m.removeLast() }
        if m.count > Self.maxMessageLength { m = String(m.prefix(Self.maxMessageLength)) + "..." }
        if !m.isEmpty, messages.last != m { messages.append(m) }
    }

    /// Forgets the collected messages.
    func clearMessages() {
        messages.removeAll(keepingCapacity: true)
        droppedMessages = 0
    }

    /// The collected messages joined with "; ", or `fallback` when there are none.
    func logText(or fallback: String) -> String {
        guard !messages.isEmpty else { return fallback }
        var s = messages.joined(separator: "; ")
        if droppedMessages > 0 { s += " (and \(droppedMessages) more)" }
        return s
    }
}

/// Owns one `PJ` object (a CRS or an operation) and keeps its context alive until it is destroyed.
final class ProjObject {
    /// The context the object was created in; PROJ requires it for every call on the object.
    let context: ProjContext
    /// The object handle. Only this object destroys it.
    let raw: OpaquePointer

    /// Takes ownership of `raw`, which must have been created in `context`.
    init(_ raw: OpaquePointer, context: ProjContext) {
        self.raw = raw
        self.context = context
    }

    deinit {
        proj_destroy(raw)
    }

    /// `proj_get_name`, or nil.
    var name: String? {
        proj_get_name(raw).map { String(cString: $0) }
    }

    /// The object's PROJ type.
    var type: PJ_TYPE { proj_get_type(raw) }

    /// True when the object is a CRS.
    var isCRS: Bool { proj_is_crs(raw) != 0 }

    /// True for a geographic CRS, looking through a bound CRS to its source and a compound CRS to its horizontal
    /// part.
    var isGeographic: Bool {
        switch type {
        case PJ_TYPE_GEOGRAPHIC_CRS, PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS:
            return true
        case PJ_TYPE_BOUND_CRS:
            guard let s = proj_get_source_crs(context.raw, raw) else { return false }
            return ProjObject(s, context: context).isGeographic
        case PJ_TYPE_COMPOUND_CRS:
            guard let s = proj_crs_get_sub_crs(context.raw, raw, 0) else { return false }
            return ProjObject(s, context: context).isGeographic
        default:
            return false
        }
    }
}
