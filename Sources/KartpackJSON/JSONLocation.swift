/// A place in JSON text: byte offset, 1-based line and 1-based column in characters.
public struct JSONLocation: Sendable, Hashable, CustomStringConvertible {
    /// The byte offset in the UTF-8 text.
    public var offset: Int
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters (UTF-8 continuation bytes do not count).
    public var column: Int

    /// Creates a location.
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }
}

/// Turns byte offsets into lines and columns, cheaply for offsets that only grow (as a parser's do).
struct JSONLineCounter {
    private var offset = 0
    private var line = 1
    private var column = 1

    /// The location of byte `target` of `bytes` (offsets past the end count as the end).
    mutating func location(of target: Int, in bytes: [UInt8]) -> JSONLocation {
        let end = min(max(target, 0), bytes.count)
        if end < offset {
            self = JSONLineCounter()
        }
        while offset < end {
            let b = bytes[offset]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            offset += 1
        }
        return JSONLocation(offset: target, line: line, column: column)
    }
}
