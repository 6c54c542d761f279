import Foundation
import KartpackJSON

/// The size, modification time, change time and inode of every file a shard plan's fingerprint hashed, taken
/// when the plan was made. A shard whose files all still have these stamps (the same files, in the same order)
/// takes the plan's fingerprint as its own instead of hashing every record again (`ShardPlanner.currentFingerprint`);
/// any difference, a file more or less, and it hashes them as before. A tool that rewrites a file keeping its size
/// and modification time (`touch -r`, `rsync -t`, `cp -p`) still changes its change time (ctime), which no user can
/// set; a file replaced by another (a rename over it) has another inode. The plan records no stamps when a file
/// changed while it was hashed or was changed in the last `racySeconds` before the plan was made (a change in the
/// same clock tick would leave the stamp as it was): the shards then hash.
package struct InputStamps: Sendable, Equatable {
    /// A file changed this recently when the plan was made is not trusted by its stamp.
    package static let racySeconds: Int64 = 2

    /// One file's stamp.
    package struct Stamp: Sendable, Equatable {
        package var path: String
        package var size: Int64
        /// Modification and change times, nanoseconds since 1970.
        package var mtime: Int64
        package var ctime: Int64
        package var inode: UInt64
    }

    package var stamps: [Stamp]

    package init(stamps: [Stamp]) { self.stamps = stamps }

    /// The stamps of `paths` now, in order; nil when one cannot be read (`stat` fails).
    package static func take(_ paths: [String]) -> InputStamps? {
        var out: [Stamp] = []
        for path in paths {
            var s = stat()
            guard stat(path, &s) == 0 else { return nil }
            out.append(
                Stamp(
                    path: path, size: Int64(s.st_size),
                    mtime: Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec),
                    ctime: Int64(s.st_ctim.tv_sec) * 1_000_000_000 + Int64(s.st_ctim.tv_nsec),
                    inode: UInt64(s.st_ino)))
        }
        return InputStamps(stamps: out)
    }

    /// The stamps to record for a fingerprint computed between `before` and `after` (both taken of the same
    /// files): nil when they differ (a file changed while it was hashed) or when a file was modified or changed
    /// less than `racySeconds` before `after` was taken.
    package static func settled(before: InputStamps?, after: InputStamps?, now: Date = Date()) -> InputStamps? {
        guard let before, let after, before == after else { return nil }
        let limit = Int64((now.timeIntervalSince1970 * 1e9).rounded(.down)) - racySeconds * 1_000_000_000
        guard after.stamps.allSatisfy({ $0.mtime < limit && $0.ctime < limit }) else { return nil }
        return after
    }

    /// The plan's `inputStamps` array.
    package var json: JSONValue {
        .array(
            stamps.map {
                .object([
                    ("file", .string($0.path)), ("size", .int($0.size)), ("mtimeNs", .int($0.mtime)),
                    ("ctimeNs", .int($0.ctime)), ("inode", .string(String($0.inode))),
                ])
            })
    }

    /// Reads a plan's `inputStamps` array; nil when it is damaged (the plan is refused).
    package init?(json: JSONValue) {
        guard let items = json.arrayValue else { return nil }
        var out: [Stamp] = []
        for i in items {
            guard let path = i["file"]?.stringValue, let size = i["size"]?.intValue,
                let mtime = i["mtimeNs"]?.intValue, let ctime = i["ctimeNs"]?.intValue,
                let inode = i["inode"]?.stringValue.flatMap({ UInt64($0) })
            else { return nil }
            out.append(Stamp(path: path, size: size, mtime: mtime, ctime: ctime, inode: inode))
        }
        stamps = out
    }

    /// A plan's optional `inputStamps` (absent or null: none recorded); throws `bad` when it is damaged.
    package static func read(_ json: JSONValue?, bad: (String) -> ShardError) throws -> InputStamps? {
        guard let json, json != .null else { return nil }
        guard let stamps = InputStamps(json: json) else { throw bad("inputStamps is damaged") }
        return stamps
    }
}
