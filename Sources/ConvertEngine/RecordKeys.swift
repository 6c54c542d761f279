/// The attribute and flag keys of a `RecordTable`, numbered in first-seen order; compared byte for byte (as MVT
/// keys are), never by Unicode equivalence.
package struct RecordKeys: Sendable {
    private(set) var names: [String] = []
    private var index: [ExactKey: Int] = [:]

    /// The number of `key`, given it a new one when it is new. `hint` is the number it most likely has (a record's
    /// n-th property is mostly the table's n-th key): when that key is `key`, no lookup is needed.
    package mutating func number(_ key: String, hint: Int? = nil) -> Int {
        if let hint, hint >= 0, hint < names.count, ExactKey.sameBytes(names[hint], key) { return hint }
        if let i = index[ExactKey(key)] { return i }
        names.append(key)
        index[ExactKey(key)] = names.count - 1
        return names.count - 1
    }

    private struct ExactKey: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: ExactKey, b: ExactKey) -> Bool { sameBytes(a.text, b.text) }
        func hash(into h: inout Hasher) {
            var text = text
            text.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        /// Whether `a` and `b` hold the same UTF-8 bytes (compared as whole buffers, not byte by byte).
        static func sameBytes(_ a: String, _ b: String) -> Bool {
            guard a.utf8.count == b.utf8.count else { return false }
            var (a, b) = (a, b)
            return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
        }
    }
}
