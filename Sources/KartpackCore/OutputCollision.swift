import Foundation

/// Finds a run's output paths that name one of its inputs or another of its outputs: `--report in.dbf` would
/// overwrite the input's table, `--report out.pmtiles` would replace the package with JSON.
///
/// Two paths are the same file when both exist and `stat` gives the same device and inode (hard links and
/// symbolic links included), or when their canonical forms are equal: the real path of the folder plus the file
/// name (for outputs that do not exist yet).
public enum OutputCollision {
    /// A file of the run, with the role it plays in messages ("input", "--report", "output package", …).
    public struct Role: Sendable {
        public var path: String
        public var role: String
        public init(_ path: String, as role: String) {
            self.path = path
            self.role = role
        }
    }

    /// The first collision found, as a message naming both roles; nil when all outputs are distinct from each
    /// other and from every input.
    public static func find(outputs: [Role], inputs: [Role]) -> String? {
        let keyed = outputs.map { ($0, key($0.path)) }
        let inputKeys = inputs.map { ($0, key($0.path)) }
        for (k, (output, outKey)) in keyed.enumerated() {
            for (input, inKey) in inputKeys where outKey.matches(inKey) {
                return "\(output.role) \(output.path) is the \(input.role) \(input.path); refusing to overwrite it"
            }
            for (other, otherKey) in keyed[..<k] where outKey.matches(otherKey) {
                return
                    "\(output.role) \(output.path) is also the \(other.role) (\(other.path)); give them different paths"
            }
        }
        return nil
    }

    struct Key {
        var canonical: String
        var inode: (dev: UInt64, ino: UInt64)?

        func matches(_ o: Key) -> Bool {
            if let a = inode, let b = o.inode { return a.dev == b.dev && a.ino == b.ino }
            return canonical == o.canonical
        }
    }

    static func key(_ path: String) -> Key {
        var st = stat()
        let inode = stat(path, &st) == 0 ? (UInt64(st.st_dev), UInt64(st.st_ino)) : nil
        return Key(canonical: canonical(path), inode: inode)
    }

    /// The real path of the folder plus the last component (lexically normalized when the folder is missing).
    public static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let (folder, name) = RegularFile.split(absolute)
        let base = RegularFile.realPath(folder) ?? (folder as NSString).standardizingPath
        return (base == "/" ? "" : base) + "/" + name
    }
}
