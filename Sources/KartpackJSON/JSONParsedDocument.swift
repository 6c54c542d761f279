/// Where one value of a document starts.
public struct JSONValueLocation: Sendable, Hashable {
    /// The steps from the root to the value (empty for the root).
    public var path: JSONPath
    /// The value's first byte.
    public var location: JSONLocation

    /// Creates a value location.
    public init(path: JSONPath, location: JSONLocation) {
        self.path = path
        self.location = location
    }
}

/// A key that an object repeats.
public struct JSONDuplicateKey: Sendable, Hashable {
    /// The path of the object that holds the key.
    public var objectPath: JSONPath
    /// The repeated key.
    public var key: String
    /// Where the repeated key (its opening quote) is.
    public var location: JSONLocation
    /// Where the first occurrence of the key is.
    public var firstLocation: JSONLocation

    /// Creates a record of a repeated key.
    public init(objectPath: JSONPath, key: String, location: JSONLocation, firstLocation: JSONLocation) {
        self.objectPath = objectPath
        self.key = key
        self.location = location
        self.firstLocation = firstLocation
    }
}

/// A parsed document with the positions of its values and the keys its objects repeat (`JSONParser.parseDocument`).
public struct JSONParsedDocument: Sendable {
    /// The value; objects keep every member in file order, duplicates included.
    public var value: JSONValue
    /// The start of every value, in document order (a container before its contents).
    public var valueLocations: [JSONValueLocation]
    /// Every repeated key, in document order.
    public var duplicateKeys: [JSONDuplicateKey]

    /// Where the value at `path` starts; for a repeated key, the first occurrence's value. (A linear search: meant
    /// for reporting a few problems, not for walking every value.)
    public func location(of path: JSONPath) -> JSONLocation? {
        valueLocations.first { $0.path == path }?.location
    }
}
