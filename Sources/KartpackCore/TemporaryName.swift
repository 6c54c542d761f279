/// The one naming rule for Kartpack's temporary and lock files next to an output: `<stem>.tmp-<pid>-<8 hex>` and
/// `<stem>.lock`, where the stem is the output's file name — or, when that would not fit NAME_MAX (255 bytes) with
/// the longest suffix, a UTF-8-safe prefix of it plus `~` and 8 hex digits of a hash of the whole name. The same
/// output always gets the same stem, so a sweep can tell which temporaries belong to which output.
public enum TemporaryName {
    /// NAME_MAX on Linux file systems.
    public static let maxNameBytes = 255
    /// The longest suffix added to a stem: `.tmp-` + a 10-digit pid + `-` + 8 hex digits + `-journal`.
    static let reservedBytes = 5 + 10 + 1 + 8 + 8

    /// The stem for an output file name (no folder).
    public static func stem(for name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count + reservedBytes > maxNameBytes else { return name }
        let keep = maxNameBytes - reservedBytes - 9
        var end = keep
        // Never cut inside a UTF-8 sequence: continuation bytes are 10xxxxxx.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        let prefix = String(decoding: bytes[..<end], as: UTF8.self)
        return prefix + "~" + hex8(fnv1a(bytes))
    }

    /// A fresh temporary name for `name` written by process `pid`.
    public static func make(for name: String, pid: Int32, random: UInt32 = UInt32.random(in: 0...UInt32.max)) -> String
    {
        stem(for: name) + ".tmp-\(pid)-" + hex8(UInt64(random))
    }

    /// The lock file name for an output file name.
    public static func lockName(for name: String) -> String { stem(for: name) + ".lock" }

    /// Parses a temporary name: its stem and the writer's pid, or nil when `fileName` is not
    /// `<stem>.tmp-<pid>-<8 lowercase hex digits>`, optionally followed by SQLite's `-journal`, `-wal` or `-shm`.
    public static func parse(_ fileName: String) -> (stem: String, pid: Int32)? {
        var bytes = Array(fileName.utf8)
        for side in ["-journal", "-wal", "-shm"] where fileName.hasSuffix(side) {
            bytes.removeLast(side.utf8.count)
            break
        }
        guard bytes.count > 9 + 6 else { return nil }
        let hex = bytes[(bytes.count - 8)...]
        guard bytes[bytes.count - 9] == UInt8(ascii: "-"),
            hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        var i = bytes.count - 10
        var digits = 0
        while i >= 0, (0x30...0x39).contains(bytes[i]) {
            digits += 1
            i -= 1
        }
        guard digits >= 1, digits <= 10, i >= 5 else { return nil }
        guard Array(bytes[(i - 4)...i]) == Array(".tmp-".utf8) else { return nil }
        let stemEnd = i - 4
        guard stemEnd > 0 else { return nil }
        let pidText = String(decoding: bytes[(i + 1)..<(i + 1 + digits)], as: UTF8.self)
        guard let pid = Int32(pidText), pid > 0 else { return nil }
        return (String(decoding: bytes[..<stemEnd], as: UTF8.self), pid)
    }

    static func hex8(_ v: UInt64) -> String {
        let h = String(v & 0xFFFF_FFFF, radix: 16)
        return String(repeating: "0", count: 8 - h.count) + h
    }

    /// 64-bit FNV-1a.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }
}
