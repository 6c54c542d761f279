import KartpackCore

/// One file written by `ZipExtractor`.
package struct ExtractedFile: Sendable, Hashable {
    /// The entry name as stored in the archive (control characters escaped).
    package var entry: String
    /// The path relative to the extraction root, `/`-separated (folder spelling unified by case, see
    /// `ZipExtractor`).
    package var relativePath: String
    /// The absolute path of the extracted file.
    package var path: String
    /// Its size in bytes.
    package var size: Int
}

/// The result of extracting a zip archive: a private temporary folder and what was written into it.
///
/// The owner of that folder: `remove()` deletes it, and it is deleted at the latest when this object is released.
/// Keep it alive for as long as the extracted files are read.
package final class ExtractedArchive: Sendable {
    /// The archive that was extracted.
    package let archive: String
    /// The private extraction folder (mode 0700), absolute.
    package var root: String { folder.path }
    /// The files written, in central directory order.
    package let files: [ExtractedFile]
    /// Entries skipped (nested archives, devices and FIFOs, duplicates by name or case, name conflicts), in central
    /// directory order.
    /// Codes: `zip_nested_archive`, `zip_special_file`, `zip_duplicate_entry`, `zip_path_conflict`.
    package let warnings: [Diagnostic]
    private let folder: TemporaryFolder

    package init(archive: String, folder: TemporaryFolder, files: [ExtractedFile], warnings: [Diagnostic]) {
        self.archive = archive
        self.folder = folder
        self.files = files
        self.warnings = warnings
    }

    /// Deletes the extraction folder now (idempotent). Returns false when something could not be removed.
    @discardableResult
    package func remove() -> Bool { folder.remove() }
}
