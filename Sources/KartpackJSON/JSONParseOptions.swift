/// How `JSONParser` reads a document: limits and the few choices where callers differ.
///
/// The default is strict RFC 8259 with a nesting cap of 128 levels and no size cap.
public struct JSONParseOptions: Sendable, Hashable {
    /// What to do with a `\u` escape of a UTF-16 surrogate that has no partner.
    public enum LoneSurrogates: Sendable, Hashable {
        /// A syntax error.
        case reject
        /// Decoded as U+FFFD (tolerant reading of files written by careless encoders).
        case replace
    }

    /// What to do when an object repeats a key.
    public enum DuplicateKeys: Sendable, Hashable {
        /// Every member is kept in file order, duplicates included (the caller decides; `parseDocument` lists them).
        case keep
        /// A syntax error at the repeated key.
        case reject
    }

    /// Values nested `maxDepth` containers deep (or deeper) are rejected; the top-level value is at depth 0, so
    /// `maxDepth: 2` allows `[[]]` and `[1]` but not `[[1]]`.
    public var maxDepth: Int
    /// The largest document in bytes, or nil for no cap.
    public var maxBytes: Int?
    /// Skips a leading UTF-8 byte-order mark (editors on Windows write one). Off: a BOM is a syntax error.
    public var allowsByteOrderMark: Bool
    /// Unpaired surrogate escapes.
    public var loneSurrogates: LoneSurrogates
    /// Repeated object keys.
    public var duplicateKeys: DuplicateKeys
    /// The message for a document that holds nothing but white space.
    public var emptyDocumentMessage: String

    /// Creates options; the defaults are strict.
    public init(
        maxDepth: Int = 128, maxBytes: Int? = nil, allowsByteOrderMark: Bool = false,
        loneSurrogates: LoneSurrogates = .reject, duplicateKeys: DuplicateKeys = .keep,
        emptyDocumentMessage: String = "the text is empty; expected a JSON value"
    ) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
        self.allowsByteOrderMark = allowsByteOrderMark
        self.loneSurrogates = loneSurrogates
        self.duplicateKeys = duplicateKeys
        self.emptyDocumentMessage = emptyDocumentMessage
    }

    /// Metadata read from archives written by other tools (PMTiles metadata, the MBTiles `json` row): 64 nested
    /// containers (values at depth 0 through 64), lone surrogates read as U+FFFD.
    public static let archiveMetadata = JSONParseOptions(maxDepth: 65, loneSurrogates: .replace)
}
