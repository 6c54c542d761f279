import KartpackJSON

extension PipelineSpec {
    /// For `validate`: the pipeline as far as it decodes, with its schema problems. A pipeline with schema errors
    /// (a bad `tiles` value, an unknown key) is still decoded with defaults where values are bad, so one pass of
    /// `validate` also reports its missing files and field problems; the spec is nil only when the file cannot be
    /// read, is not JSON, or lacks a part nothing can be checked without.
    package static func loadLeniently(path: String, overrides: [String]) -> (
        spec: PipelineSpec?, error: PipelineSpecError?
    ) {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch { return (nil, error) }
        do {
            return (try parse(bytes, file: path, overrides: overrides), nil)
        } catch {
            return (partial(bytes, file: path, overrides: overrides), error)
        }
    }

    /// The decoded spec without the check that it had no problems.
    private static func partial(_ bytes: [UInt8], file: String, overrides: [String]) -> PipelineSpec? {
        guard let document = try? JSONParser.parseDocument(bytes, options: jsonOptions) else { return nil }
        var (overridden, _, setPaths) = SpecOverride.apply(overrides, to: document.value)
        overridden = SpecOverride.formatFollowingPath(overridden, setPaths: setPaths)
        var decoder = SpecDecoder(file: SpecPaths.absolute(file, base: SpecPaths.currentDirectory()))
        guard var spec = decoder.decode(overridden) else { return nil }
        spec.locations = SpecLocations(document: document, overridden: setPaths)
        return spec
    }
}
