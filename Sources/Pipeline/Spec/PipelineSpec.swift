/// A declarative pipeline (`Pipelines/*.json`, `"version": 1`), parsed, validated and with every path resolved.
///
/// Build one with `PipelineSpec.load(path:overrides:)` (or `parse`); every problem in the file is reported at
/// once in a `PipelineSpecError`. `canonicalJSON` gives a stable text of the resolved spec for fingerprints.
package struct PipelineSpec: Sendable, Hashable {
    /// The only format version this build reads.
    package static let supportedVersion = 1

    /// The format version (always `supportedVersion` once parsed).
    package var version: Int
    /// Absolute path of the pipeline file.
    package var file: String
    /// Absolute folder of the pipeline file; relative paths resolve against it.
    package var directory: String
    /// The layers, in order (at least one).
    package var sources: [SourceSpec]
    /// Absolute path of the `.kss` stylesheet, if any.
    package var style: String?
    /// The clip area, if any.
    package var clip: ClipSpec?
    /// Tiling parameters, defaults filled in.
    package var tiles: TileSpec
    /// The package to write.
    package var output: OutputSpec
    /// Where the values were in the file (for line:column in messages); not part of the spec's identity.
    package var locations = SpecLocations()

    /// Creates a spec from parts (no validation; use `load` or `parse` for files). A relative `file` is resolved
    /// against the working folder.
    package init(
        file: String, sources: [SourceSpec], style: String? = nil, clip: ClipSpec? = nil, tiles: TileSpec = TileSpec(),
        output: OutputSpec
    ) {
        self.version = Self.supportedVersion
        let absolute = SpecPaths.absolute(file, base: SpecPaths.currentDirectory())
        self.file = absolute
        self.directory = SpecPaths.folder(of: absolute)
        self.sources = sources
        self.style = style
        self.clip = clip
        self.tiles = tiles
        self.output = output
    }

    /// Keys accepted at the top level.
    static let keys = ["version", "sources", "style", "clip", "tiles", "output"]

    /// `path` (absolute) written relative to the pipeline's folder, as in the canonical form.
    package func relativePath(_ path: String) -> String { SpecPaths.relative(path, to: directory) }

    /// Every file the pipeline reads, absolute: each source's `.shp`, the stylesheet, the clip file.
    package var inputFiles: [String] {
        var out = sources.map(\.path)
        if let style { out.append(style) }
        if let clip, case .file(let p, _) = clip.area { out.append(p) }
        return out
    }
}
