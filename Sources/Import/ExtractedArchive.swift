import KartpackCore

/// One file written by `ZipExtractor`.
public struct ExtractedFile: Sendable, Hashable {
    /// The entry name as stored in the archive (control characters escaped).
    public var entry: String
    /// The path relative to the extraction root, `/`-separated (folder spelling unified by case, see
    /// `ZipExtractor`).
    public var relativePath: String
    /// The absolute path of the extracted file.
    public var path: String
    /// Its size in bytes.
    public var size: Int
}

/// The result of extracting a zip archive: a private temporary folder and what was written into it.
///
/// The owner of that folder: `remove()` deletes it, and it is deleted at the latest when this object is released.
/// Keep it alive for as long as the extracted files are read.
public final class ExtractedArchive: Sendable {
    /// The archive that was extracted.
    public let archive: String
    /// The private extraction folder (mode 0700), absolute.
    public var root: String { folder.path }
    /// The files written, in central directory order.
    public let files: [ExtractedFile]
    /// Entries skipped (nested archives, devices and FIFOs, duplicates by name or case, name conflicts), in central directory order.
    /// Codes: `zip_nested_archive`, `zip_special_file`, `zip_duplicate_entry`, `zip_path_conflict`.
    public let warnings: [Diagnostic]
    private let folder: TemporaryFolder

    init(archive: String, folder: TemporaryFolder, files: [ExtractedFile], warnings: [Diagnostic]) {
        self.archive = archive
        self.folder = folder
        self.files = files
        self.warnings = warnings
    }

    /// Deletes the extraction folder now (idempotent). Returns false when something could not be removed.
    @discardableResult
    public func remove() -> Bool { folder.remove() }
}
