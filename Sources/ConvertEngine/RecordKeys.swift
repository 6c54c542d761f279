/// The attribute and flag keys of a `RecordTable`, numbered in first-seen order; compared byte for byte (as MVT
/// keys are), never by Unicode equivalence.
package struct RecordKeys: Sendable {
    private(set) var names: [String] = []
    private var index: [ExactKey: Int] = [:]

    package mutating func number(_ key: String) -> Int {
        if let i = index[ExactKey(key)] { return i }
        names.append(key)
        index[ExactKey(key)] = names.count - 1
        return names.count - 1
    }

    private struct ExactKey: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: ExactKey, b: ExactKey) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
        func hash(into h: inout Hasher) {
            for b in text.utf8 { h.combine(b) }
        }
    }
}
