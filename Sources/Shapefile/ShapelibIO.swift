internal import CShapelib
import Glibc
import Synchronization

// shapelib 1.5 reads files only through `SAHooks`, whose callbacks are plain C function pointers without userdata.
// Kartpack serves every file shapelib opens from a process-wide registry of *virtual paths*:
//
// - a reader registers `/kartpack-vfs/<token>/layer.shp` → a descriptor it opened and checked itself (and keeps
//   open as long as its shapelib handles: they borrow it, reading with `pread`, so a set costs one descriptor per
//   file and shapelib never opens one that could fail with EMFILE), and
//   `…/layer.shx` → index bytes in memory (the real `.shx` normalized, or one rebuilt by scanning the `.shp`),
// - calls `SHPOpenLL`/`DBFOpenLL` with the virtual path and these hooks,
// - unregisters the paths at once (open handles keep their own state).
//
// So shapelib never opens a real path: mixed-case extensions (`.Shp`) work, a missing or broken `.shx` is replaced
// without writing next to the input, and nothing can be written (FWrite/Remove always fail). A handle (`SAFile`)
// is a pointer to a `VirtualHandle` allocated here; shapelib never dereferences it.
//
// SAHooks layout: this is shapelib 1.5's (FOpen, FRead, FWrite, FSeek, FTell, FFlush, FClose, Remove, Error,
// Atof). 1.6 adds `pvUserData` to FOpen/Remove, which this file would then need to follow. `Atof` keeps the
// default from `SASetupDefaultHooks`.

/// What a virtual path serves.
enum VirtualFileSource: Sendable {
    /// A descriptor owned by the registering reader, which keeps it open while shapelib's handles live; each open
    /// borrows it (reads use `pread`, so handles share no offset) and a close leaves it open.
    case descriptor(Int32, size: Int)
    /// Bytes in memory; each open copies them.
    case memory([UInt8])
    /// `prefix` in memory (a translated header), then the borrowed descriptor's bytes from offset `from` on;
    /// `size` in all.
    case spliced(prefix: [UInt8], fd: Int32, from: Int, size: Int)
}

/// Virtual path → source. Entries live only while a reader opens its files.
private let virtualFiles = Mutex<[String: VirtualFileSource]>([:])
/// Unique tokens for virtual folders.
private let virtualFileCounter = Atomic<Int>(0)
/// shapelib error messages, tagged with the thread that produced them (readers on other threads never see them).
private let shapelibMessages = Mutex<[(thread: UInt, message: String)]>([])

/// The state behind one `SAFile`: `memoryCount` bytes in memory, then the descriptor's bytes from `fdOffset` on.
private struct VirtualHandle {
    /// A borrowed descriptor (never closed here), or -1 for memory.
    var fd: Int32
    var memory: UnsafeMutableRawPointer?
    var memoryCount = 0
    var fdOffset = 0
    var size: Int
    var position: Int
    /// Bytes of the descriptor read ahead (`readAheadBytes`, allocated on the first small read): shapelib reads a
    /// record's shape and attributes in small reads, one `pread` each otherwise.
    var window: UnsafeMutableRawPointer?
    /// Where the window starts in the descriptor, and how many bytes it holds.
    var windowStart = 0
    var windowCount = 0
}

/// The read-ahead of a descriptor handle: reads smaller than a quarter of it are served from it.
private let readAheadBytes = 16 << 10

enum ShapelibIO {
    /// A fresh virtual base path (without extension) for one reader.
    static func makeVirtualBase() -> String {
        let n = virtualFileCounter.wrappingAdd(1, ordering: .relaxed).newValue
        return "/kartpack-vfs/\(n)/layer"
    }

    static func register(_ path: String, _ source: VirtualFileSource) {
        virtualFiles.withLock { $0[path] = source }
    }

    static func unregister(_ path: String) {
        virtualFiles.withLock { _ = $0.removeValue(forKey: path) }
    }

    /// Hooks serving virtual paths only.
    static func makeHooks() -> SAHooks {
        var hooks = SAHooks()
        SASetupDefaultHooks(&hooks)
        hooks.FOpen = { name, access in vfsOpen(name, access) }
        hooks.FRead = { p, size, n, file in vfsRead(p, size, n, file) }
        hooks.FWrite = { _, _, _, _ in 0 }
        hooks.FSeek = { file, offset, whence in vfsSeek(file, offset, whence) }
        hooks.FTell = { file in vfsTell(file) }
        hooks.FFlush = { _ in 0 }
        hooks.FClose = { file in vfsClose(file) }
        hooks.Remove = { _ in -1 }
        hooks.Error = { message in recordMessage(message) }
        return hooks
    }

    /// Removes and returns the messages shapelib produced on this thread since the last drain.
    static func drainMessages() -> [String] {
        let me = UInt(pthread_self())
        return shapelibMessages.withLock { all in
            guard !all.isEmpty else { return [] }
            var mine: [String] = []
            all.removeAll { entry in
                guard entry.thread == me else { return false }
                mine.append(entry.message)
                return true
            }
            return mine
        }
    }
}

private func recordMessage(_ message: UnsafePointer<CChar>?) {
    let text = message.map { String(cString: $0) } ?? "unknown error"
    let me = UInt(pthread_self())
    shapelibMessages.withLock { all in
        // A bound, in case a thread never drains: keep the newest.
        if all.count >= 10_000 { all.removeFirst(all.count - 9_999) }
        all.append((me, text))
    }
}

private func handle(_ file: SAFile?) -> UnsafeMutablePointer<VirtualHandle>? {
    file.map { UnsafeMutablePointer<VirtualHandle>(OpaquePointer($0)) }
}

private func vfsOpen(_ name: UnsafePointer<CChar>?, _ access: UnsafePointer<CChar>?) -> SAFile? {
    guard let name, let access else { return nil }
    let mode = String(cString: access)
    // Read-only: anything that could write is refused.
    guard !mode.contains("w"), !mode.contains("a"), !mode.contains("+") else { return nil }
    let path = String(cString: name)
    guard let source = virtualFiles.withLock({ $0[path] }) else { return nil }
    var h = VirtualHandle(fd: -1, memory: nil, size: 0, position: 0)
    switch source {
    case .descriptor(let fd, let size):
        h.fd = fd
        h.size = size
    case .memory(let bytes):
        h.memory = copy(bytes)
        h.memoryCount = bytes.count
        h.size = bytes.count
    case .spliced(let prefix, let fd, let from, let size):
        h.memory = copy(prefix)
        h.memoryCount = prefix.count
        h.fd = fd
        h.fdOffset = from - prefix.count
        h.size = size
    }
    let p = UnsafeMutablePointer<VirtualHandle>.allocate(capacity: 1)
    p.initialize(to: h)
    return UnsafeMutablePointer<Int32>(OpaquePointer(p))
}

/// A copy of `bytes` that the handle owns.
private func copy(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
    let mem = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
    bytes.withUnsafeBytes { src in
        if let base = src.baseAddress { mem.copyMemory(from: base, byteCount: bytes.count) }
    }
    return mem
}

private func vfsRead(_ dst: UnsafeMutableRawPointer?, _ size: SAOffset, _ count: SAOffset, _ file: SAFile?) -> SAOffset
{
    guard let dst, let h = handle(file), size > 0 else { return 0 }
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow, total <= SAOffset(Int.max) else { return 0 }
    let want = min(Int(total), max(0, h.pointee.size - h.pointee.position))
    var got = 0
    if let mem = h.pointee.memory, h.pointee.position < h.pointee.memoryCount {
        got = min(want, h.pointee.memoryCount - h.pointee.position)
        if got > 0 { dst.copyMemory(from: mem + h.pointee.position, byteCount: got) }
    }
    if h.pointee.fd >= 0 {
        while got < want {
            let at = h.pointee.fdOffset + h.pointee.position + got
            if let window = h.pointee.window, at >= h.pointee.windowStart,
                at < h.pointee.windowStart + h.pointee.windowCount
            {
                let n = min(want - got, h.pointee.windowStart + h.pointee.windowCount - at)
                (dst + got).copyMemory(from: window + (at - h.pointee.windowStart), byteCount: n)
                got += n
                continue
            }
            if want - got < readAheadBytes / 4, fillWindow(h, at: at) { continue }
            let n = pread(h.pointee.fd, dst + got, want - got, off_t(at))
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            if n == 0 { break }
            got += n
        }
    }
    h.pointee.position += got
    return SAOffset(got) / size
}

/// Reads the window of `h` from descriptor offset `at`; false when nothing is there (the end, or an error, which
/// the direct read then meets).
private func fillWindow(_ h: UnsafeMutablePointer<VirtualHandle>, at: Int) -> Bool {
    let window = h.pointee.window ?? UnsafeMutableRawPointer.allocate(byteCount: readAheadBytes, alignment: 16)
    h.pointee.window = window
    h.pointee.windowCount = 0
    while true {
        let n = pread(h.pointee.fd, window, readAheadBytes, off_t(at))
        if n < 0, errno == EINTR { continue }
        guard n > 0 else { return false }
        h.pointee.windowStart = at
        h.pointee.windowCount = n
        return true
    }
}

private func vfsSeek(_ file: SAFile?, _ offset: SAOffset, _ whence: Int32) -> SAOffset {
    guard let h = handle(file) else { return SAOffset.max }
    let delta = Int(bitPattern: UInt(offset))
    let target: Int
    switch whence {
    case SEEK_SET: target = Int(clamping: offset)
    case SEEK_CUR: target = h.pointee.position &+ delta
    case SEEK_END: target = h.pointee.size &+ delta
    default: return SAOffset.max
    }
    guard target >= 0 else { return SAOffset.max }
    h.pointee.position = target
    return 0
}

private func vfsTell(_ file: SAFile?) -> SAOffset {
    guard let h = handle(file) else { return 0 }
    return SAOffset(h.pointee.position)
}

private func vfsClose(_ file: SAFile?) -> Int32 {
    guard let h = handle(file) else { return 0 }
    h.pointee.memory?.deallocate()
    h.pointee.window?.deallocate()
    h.deinitialize(count: 1)
    h.deallocate()
    return 0
}
