/// Turns an `Encodable` value (a report, an inspection) into a `JSONValue`, so reports go through the project's
/// one JSON writer instead of Foundation's.
///
/// Members come in the order the type encodes them; a `Dictionary` encodes in hash order, so callers that need
/// deterministic text use `sortingKeys()` (as every report does). `nil` optionals are left out
/// (`encodeIfPresent`), as with Foundation's encoder. Non-finite doubles are refused.
public enum JSONValueEncoder {
    /// The value as JSON.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        return root.value
    }
}

/// One value under construction: a scalar, or a container whose children fill in later.
private final class Node {
    enum Content {
        case unset
        case scalar(JSONValue)
        case array([Node])
        case object([(String, Node)])
    }
    var content = Content.unset

    var value: JSONValue {
        switch content {
        case .unset: .object([])
        case .scalar(let v): v
        case .array(let a): .array(a.map(\.value))
        case .object(let m): .object(m.map { ($0.0, $0.1.value) })
        }
    }

    func member(_ key: String) -> Node {
        let child = Node()
        if case .object(var m) = content {
            content = .unset  // drop the second reference first, or every change copies the whole list
            m.removeAll { $0.0 == key }
            m.append((key, child))
            content = .object(m)
        } else {
            content = .object([(key, child)])
        }
        return child
    }

    func element() -> Node {
        let child = Node()
        if case .array(var a) = content {
            // Drop the second reference first: otherwise each append copies the array (quadratic: a 50 000-vertex
            // ring took 20 s in `inspect --features`).
            content = .unset
            a.append(child)
            content = .array(a)
        } else {
            content = .array([child])
        }
        return child
    }

    var count: Int {
        if case .array(let a) = content { return a.count }
        return 0
    }
}

/// Converts the scalar types `Encodable` offers.
private enum Scalar {
    static func value(_ v: Double, _ path: [any CodingKey]) throws -> JSONValue {
        guard v.isFinite else {
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "JSON cannot hold \(v)"))
        }
        return .double(v)
    }

    static func value(_ v: some BinaryInteger, _ path: [any CodingKey]) throws -> JSONValue {
        guard let i = Int64(exactly: v) else {
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "\(v) does not fit Int64"))
        }
        return .int(i)
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return Unkeyed(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(node: node, codingPath: codingPath) }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).content = .scalar(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        node.member(key.stringValue).content = .scalar(.bool(value))
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        node.member(key.stringValue).content = .scalar(.string(value))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.member(key.stringValue).content = .scalar(try Scalar.value(value, codingPath + [key]))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.member(key.stringValue).content = .scalar(try Scalar.value(Double(value), codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try value.encode(to: NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]))
    }

    private func integer(_ value: some BinaryInteger, _ key: Key) throws {
        node.member(key.stringValue).content = .scalar(try Scalar.value(value, codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

/// An array index as a coding key, for error paths.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { intValue.map(String.init) ?? "" }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private func next() -> (Node, [any CodingKey]) {
        let path = codingPath + [IndexKey(node.count)]
        return (node.element(), path)
    }

    mutating func encodeNil() throws { next().0.content = .scalar(.null) }
    mutating func encode(_ value: Bool) throws { next().0.content = .scalar(.bool(value)) }
    mutating func encode(_ value: String) throws { next().0.content = .scalar(.string(value)) }
    mutating func encode(_ value: Double) throws {
        let (n, p) = next()
        n.content = .scalar(try Scalar.value(value, p))
    }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }
    mutating func encode(_ value: some Encodable) throws {
        let (n, p) = next()
        try value.encode(to: NodeEncoder(node: n, codingPath: p))
    }

    private func integer(_ value: some BinaryInteger) throws {
        let (n, p) = next()
        n.content = .scalar(try Scalar.value(value, p))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let (n, p) = next()
        return NodeEncoder(node: n, codingPath: p).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (n, p) = next()
        return NodeEncoder(node: n, codingPath: p).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (n, p) = next()
        return NodeEncoder(node: n, codingPath: p)
    }
}

private struct Single: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .scalar(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .scalar(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .scalar(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .scalar(try Scalar.value(value, codingPath)) }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }
    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }

    private func integer(_ value: some BinaryInteger) throws {
        node.content = .scalar(try Scalar.value(value, codingPath))
    }
}

extension JSONValue {
    /// The same value with every object's members sorted by key (UTF-8 byte order), recursively: deterministic
    /// text for values built from dictionaries.
    public func sortingKeys() -> JSONValue {
        switch self {
        case .array(let a): return .array(a.map { $0.sortingKeys() })
        case .object(let m):
            return .object(
                m.map { ($0.key, $0.value.sortingKeys()) }.sorted {
                    Array($0.0.utf8).lexicographicallyPrecedes($1.0.utf8)
                })
        default: return self
        }
    }
}
