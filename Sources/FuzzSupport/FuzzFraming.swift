/// Splits one fuzz input into a flag byte and several files (and back), so that one libFuzzer input can carry a
/// whole bundle such as `.shp` + `.shx` + `.dbf` + `.prj` + `.cpg`.
///
/// Layout: byte 0 is `flags`; then, for each section in order, a 4-byte little-endian length `N` and `N` bytes.
/// The format never fails: a length past the end of the input is cut to what is left, and sections after the end
/// of the input are empty. So every mutation libFuzzer makes still gives a bundle.
public enum FuzzFraming {
    /// The flag byte and `count` sections of `bytes`.
    public static func split(_ bytes: UnsafeRawBufferPointer, sections count: Int) -> (
        flags: UInt8, sections: [[UInt8]]
    ) {
        var sections: [[UInt8]] = []
        sections.reserveCapacity(count)
        guard let first = bytes.first else { return (0, Array(repeating: [], count: count)) }
        var at = 1
        for _ in 0..<count {
            var length = 0
            if at + 4 <= bytes.count {
                length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
                at += 4
            } else {
                at = bytes.count
            }
            let end = min(bytes.count, at + length)
            sections.append(Array(bytes[at..<end]))
            at = end
        }
        return (first, sections)
    }

    /// The input that `split` turns back into `flags` and `sections`.
    public static func join(flags: UInt8, sections: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [flags]
        for s in sections {
            let n = UInt32(truncatingIfNeeded: s.count)
            out += [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)]
            out += s
        }
        return out
    }
}
