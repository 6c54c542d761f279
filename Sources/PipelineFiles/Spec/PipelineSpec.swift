import Publishing
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
    /// How `kartpack package` splits the pipeline into regions, if the file says.
    package var regions: RegionsSpec?
    /// Tiling parameters, defaults filled in.
    package var tiles: TileSpec
    /// The package to write.
    package var output: OutputSpec
    /// What a rejected input does: `.fail` publishes nothing (the default), `.skip` publishes the other layers and
    /// lists the missing ones in the package metadata.
    package var onInputError: InputErrorPolicy = .fail
    /// The default of every source's `maxShrink` (nil: no shrink guard).
    package var maxShrink: Double?
    /// Memory for tile pieces before they are sorted into runs on disk (`"memoryBudget"`: bytes, or a size such as
    /// `"512M"`); nil: the default. Not part of the fingerprint or the canonical form: it never changes the output.
    package var memoryBudget: Int?
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
    package static let keys = [
        "version", "sources", "style", "clip", "tiles", "output", "onInputError", "maxShrink", "memoryBudget",
        "regions",
    ]

    /// `path` (absolute) written relative to the pipeline's folder, as in the canonical form.
    package func relativePath(_ path: String) -> String { SpecPaths.relative(path, to: directory) }

    /// Every file the pipeline reads, absolute: each source's `.shp`, the stylesheet, the clip file.
    package var inputFiles: [String] {
        var out = sources.map(\.path)
        if let style { out.append(style) }
        if let clip, case .file(let p, _) = clip.area { out.append(p) }
        return out
    }

    /// Each source's record-count guards, `maxShrink` defaulting to the top-level value.
    package var expectations: [LayerExpectation] {
        sources.enumerated().map { i, s in
            LayerExpectation(
                layer: s.layer, source: "sources[\(i)]", minFeatures: s.minFeatures,
                maxShrink: s.maxShrink ?? maxShrink,
                requireFeatures: s.requireFeatures)
        }
    }
}
