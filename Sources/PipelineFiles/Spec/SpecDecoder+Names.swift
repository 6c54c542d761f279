import KartpackJSON

extension SpecDecoder {
    /// A list of distinct attribute names under `key` of `o` (`keep`, `identity`); nil when absent or not a list.
    mutating func nameList(_ o: SpecObject, _ key: String) -> [String]? {
        guard let list = reader.array(o, key) else { return nil }
        var names: [String] = []
        for (j, v) in list.enumerated() {
            let at = o.path.appending(key).appending(j)
            guard let name = reader.string(v, at: at) else { continue }
            if names.contains(name) {
                reader.report(at, "\(JSONWriter.quoted(name)) is listed twice")
            } else {
                names.append(name)
            }
        }
        return names
    }
}
