/// One `Range: bytes=…` request against a file of a known size (RFC 9110 §14.1.2).
enum ByteRange: Equatable {
    /// No usable range: send the whole file with 200 (no header, another unit, or several ranges).
    case whole
    /// Send bytes `lower...upper` with 206.
    case part(lower: Int, upper: Int)
    /// No byte of the range is in the file: 416.
    case unsatisfiable

    /// Reads the header value for a file of `size` bytes.
    init(header: String?, size: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst(6).trimmingSpaces
        let ends = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2 else {
            self = .whole
            return
        }
        let first = ends[0].trimmingSpaces
        let last = ends[1].trimmingSpaces
        let digits: (Substring) -> Bool = {
            !$0.isEmpty && $0.count <= 18 && $0.allSatisfy { $0.isASCII && $0.isNumber }
        }
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard digits(last), let n = Int(last) else {
                self = .whole
                return
            }
            guard n > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(lower: max(0, size - n), upper: size - 1)
            return
        }
        guard digits(first), let a = Int(first) else {
            self = .whole
            return
        }
        var b = size - 1
        if !last.isEmpty {
            guard digits(last), let v = Int(last), v >= a else {
                self = .whole
                return
            }
            b = min(v, size - 1)
        }
        self = a < size ? .part(lower: a, upper: b) : .unsatisfiable
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
