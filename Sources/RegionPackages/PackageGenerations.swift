import Foundation
import KartpackCore
import TileArchive
import Publishing

/// The published states ("generations") of a region package folder, so that at every instant the folder is one
/// complete night — the previous one or the new one — whatever kills the run (issue 32: crash-consistent publish).
///
/// Layout of `OUTDIR`:
///
///     .generations/41/            the previous night: catalog.json, catalog.json.minisig, <id>.pmtiles …
///     .generations/42/            tonight's (unchanged packages are hard links to last night's files)
///     .generations/current -> 42  the one symbolic link whose rename publishes a night
///     catalog.json          -> .generations/current/catalog.json
///     catalog.json.minisig  -> .generations/current/catalog.json.minisig
///     <id>.pmtiles          -> .generations/current/<id>.pmtiles
///
/// A night is staged in full in `.generations/<sequence>.tmp-<pid>-<hex>/`, fsynced, renamed to
/// `.generations/<sequence>`, and published by renaming a new `current` link over the old one: one atomic step
/// switches the catalog, its signature and every package together. The top-level names are links through
/// `current`, so they never change at the switch; a new region's link is made before it (it dangles until then,
/// and no catalog lists it), and the links of regions that left are removed after it. The previous generation is
/// kept one more night for readers that resolved `current` before the switch; older ones are deleted.
///
/// A folder written before generations (regular files at the top) is adopted first: its files are hard-linked
/// into a generation of the previous catalog's sequence, and each top-level file is replaced by its link (an
/// atomic rename to the same bytes), so that step too never shows a mixed state.
package struct PackageGenerations {
    /// The folder (in `OUTDIR`) that holds the generations.
    static let storeName = ".generations"
    /// The link in the store that names the published generation.
    static let currentName = "current"

    package let folder: String
    package var store: String { folder + "/" + Self.storeName }

    /// The text of the top-level link for `name`.
    static func linkTarget(_ name: String) -> String { storeName + "/" + currentName + "/" + name }

    /// The published generation's folder name, or nil (a folder written before generations, or none yet).
    package func current() -> String? {
        guard let target = Self.readLink(store + "/" + Self.currentName), Self.isGenerationName(target) else {
            return nil
        }
        return target
    }

    /// The published generation's folder, or nil.
    func currentFolder() -> String? { current().map { store + "/" + $0 } }

    /// True for a generation folder name: a sequence number in decimal.
    static func isGenerationName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 19 && name.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// True when `path` is a top-level link this folder's packager made (it points into `current`).
    static func isOurLink(_ path: String) -> Bool {
        guard let target = readLink(path) else { return false }
        return target.hasPrefix(storeName + "/" + currentName + "/")
    }

    /// The text of the symbolic link at `path`, or nil when it is not one.
    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Staging

    /// Creates the staging folder of generation `sequence` (`.generations/<sequence>.tmp-<pid>-<hex>`).
    package func stage(sequence: Int) throws(PublishError) -> StagedGeneration {
        try makeStore()
        for _ in 0..<32 {
            let path = store + "/" + TemporaryName.make(for: String(sequence), pid: getpid())
            if mkdir(path, 0o755) == 0 { return StagedGeneration(path: path, sequence: sequence, store: store) }
            guard errno == EEXIST else {
                throw .cannotStage(path: folder, reason: "cannot create \(path): \(Self.message(errno))")
            }
        }
        throw .cannotStage(path: folder, reason: "no free staging folder name in \(store)")
    }

    private func makeStore() throws(PublishError) {
        var st = stat()
        if lstat(store, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw .cannotStage(
                    path: folder,
                    reason: "\(store) is a \(RegularFile.describe(st.st_mode)), not the generations folder")
            }
            return
        }
        guard mkdir(store, 0o755) == 0 || errno == EEXIST else {
            throw .cannotStage(path: folder, reason: "cannot create \(store): \(Self.message(errno))")
        }
        RegularFile.syncFolder(folder)
    }

    // MARK: Publishing

    /// Publishes a staged generation: adopts a folder written before generations, makes the links for `names`
    /// (the catalog, its signature, the packages), switches `current` to the new generation, then removes the
    /// links of names it no longer has and the generations older than the previous one.
    ///
    /// `checkpoint` is called after each step with its name (`finished`, `adopted`, `linked`, `switched`,
    /// `unlinked`); the tests throw from it to stop a publish where a kill could, and check the folder.
    package func publish(
        _ staged: StagedGeneration, names: [String], previousNames: [String],
        checkpoint: (String) throws(PublishError) -> Void = { _ in }
    ) throws(PublishError) {
        if let published = current(), published == String(staged.sequence) {
            throw .cannotPublish(path: store, reason: "generation \(published) is already the published one")
        }
        let generation = try staged.finish()
        try checkpoint("finished")
        if current() == nil { try adopt(previousNames) }
        try checkpoint("adopted")
        try makeLinks(names)
        try checkpoint("linked")
        try switchCurrent(to: generation)
        try checkpoint("switched")
        removeLinks(except: Set(names))
        try checkpoint("unlinked")
        prune(keeping: generation)
    }

    /// The step names `publish` passes to its checkpoint, in order.
    static let publishSteps = ["finished", "adopted", "linked", "switched", "unlinked"]

    /// Moves the regular files a folder written before generations holds (`names`, those that exist) into a
    /// generation of their own and puts links in their place: same bytes at every instant.
    private func adopt(_ names: [String]) throws(PublishError) {
        let present = names.filter { RegionPackager.regularFileSize(folder + "/" + $0) != nil }
        guard !present.isEmpty else { return }
        let staged = try stage(sequence: 0)
        for name in present {
            guard link(folder + "/" + name, staged.path + "/" + name) == 0 else {
                throw .cannotPublish(path: folder + "/" + name, reason: "cannot adopt it: \(Self.message(errno))")
            }
        }
        let generation = try staged.finish(name: "0")
        try switchCurrent(to: generation)
        for name in present { try replaceWithLink(name) }
        RegularFile.syncFolder(folder)
    }

    /// Makes the top-level link of each name that has none; a regular file of that name is replaced (the caller
    /// has checked that it is a file the previous catalog listed). Stale SQLite sidecars beside them are removed.
    private func makeLinks(_ names: [String]) throws(PublishError) {
        for name in names {
            try removeSidecars(name)
            let path = folder + "/" + name
            if Self.readLink(path) == Self.linkTarget(name) { continue }
            try replaceWithLink(name)
        }
        RegularFile.syncFolder(folder)
    }

    /// Removes SQLite's `-wal`, `-shm` and `-journal` regular files beside the top-level name of an MBTiles
    /// package: left by a killed reader or planted, they would be applied by a reader that opens the published
    /// package without `immutable` (`kartpack verify` reports them). Anything else of such a name refuses.
    private func removeSidecars(_ name: String) throws(PublishError) {
        for suffix in ArchiveFormat.from(path: name)?.sidecarSuffixes ?? [] {
            let path = folder + "/" + name + suffix
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            guard (st.st_mode & S_IFMT) == S_IFREG, unlink(path) == 0 else {
                throw .cannotPublish(
                    path: folder + "/" + name,
                    reason: "cannot remove the SQLite sidecar \(path) (a \(RegularFile.describe(st.st_mode)))")
            }
        }
    }

    private func replaceWithLink(_ name: String) throws(PublishError) {
        let temporary = folder + "/" + TemporaryName.make(for: name, pid: getpid())
        guard symlink(Self.linkTarget(name), temporary) == 0 else {
            throw .cannotPublish(path: folder + "/" + name, reason: "cannot make its link: \(Self.message(errno))")
        }
        guard rename(temporary, folder + "/" + name) == 0 else {
            let e = errno
            unlink(temporary)
            throw .cannotPublish(path: folder + "/" + name, reason: "cannot place its link: \(Self.message(e))")
        }
    }

    /// The atomic step: a new `current` link renamed over the old one.
    private func switchCurrent(to generation: String) throws(PublishError) {
        let temporary = store + "/" + TemporaryName.make(for: Self.currentName, pid: getpid())
        guard symlink(generation, temporary) == 0 else {
            throw .cannotPublish(path: store, reason: "cannot make the current link: \(Self.message(errno))")
        }
        guard rename(temporary, store + "/" + Self.currentName) == 0 else {
            let e = errno
            unlink(temporary)
            throw .cannotPublish(path: store, reason: "cannot switch to generation \(generation): \(Self.message(e))")
        }
        RegularFile.syncFolder(store)
    }

    /// Removes the top-level links (ours only) whose exact name is not in `names`.
    private func removeLinks(except names: Set<String>) {
        for name in Self.list(folder) where !names.contains(name) && TemporaryName.parse(name) == nil {
            if Self.isOurLink(folder + "/" + name) { unlink(folder + "/" + name) }
        }
        RegularFile.syncFolder(folder)
    }

    /// Deletes every generation but `generation` and the newest one before it.
    private func prune(keeping generation: String) {
        guard let newest = UInt64(generation) else { return }
        let older = Self.list(store).compactMap { Self.isGenerationName($0) ? UInt64($0) : nil }.filter { $0 < newest }
        let previous = older.max()
        for g in older where g != previous { Self.removeTree(store + "/" + String(g)) }
    }

    // MARK: Sweeping

    /// Removes what killed runs left: staging generations, temporary links in the store and at the top level,
    /// and generations newer than the published one, or all when none is (staged in full but never switched to).
    /// Call it holding the
    /// folder's `RunLock`.
    func sweep() {
        let published = current().flatMap { UInt64($0) }
        for name in Self.list(store) {
            let path = store + "/" + name
            if TemporaryName.parse(name) != nil {
                Self.removeTree(path)
            } else if Self.isGenerationName(name), let g = UInt64(name), published.map({ g > $0 }) ?? true {
                Self.removeTree(path)
            }
        }
        for name in Self.list(folder) where TemporaryName.parse(name) != nil {
            let path = folder + "/" + name
            if Self.readLink(path)?.hasPrefix(Self.storeName + "/") == true { unlink(path) }
        }
    }

    // MARK: Files

    package static func list(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    package static func message(_ code: Int32) -> String { String(cString: strerror(code)) }
}

/// A generation being staged: its folder exists under a temporary name until `finish` renames it to its
/// sequence. `discard` (or deinit, unless finished) deletes it with everything in it.
package final class StagedGeneration {
    package let path: String
    let sequence: Int
    private let store: String
    private var done = false

    package init(path: String, sequence: Int, store: String) {
        self.path = path
        self.sequence = sequence
        self.store = store
    }

    deinit { discard() }

    /// Fsyncs the staged folder and renames it to its final name (its sequence, unless given); returns that name.
    /// A complete generation of that name left by a killed run is replaced.
    package func finish(name: String? = nil) throws(PublishError) -> String {
        let final = name ?? String(sequence)
        RegularFile.syncFolder(path)
        let target = store + "/" + final
        if FileManager.default.fileExists(atPath: target) { PackageGenerations.removeTree(target) }
        guard rename(path, target) == 0 else {
            throw .cannotPublish(path: target, reason: PackageGenerations.message(errno))
        }
        done = true
        RegularFile.syncFolder(store)
        return final
    }

    /// Deletes the staged folder. Safe to call more than once.
    package func discard() {
        guard !done else { return }
        done = true
        PackageGenerations.removeTree(path)
    }
}
