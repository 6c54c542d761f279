import Dispatch
import Synchronization

extension Fingerprint {
    /// `compute(items())`, with the files `ahead` (those `items` will list, `.listed`) hashed on a second thread
    /// while `items` makes the items on this one: a Shapefile set's records are digested in any order
    /// (`ShapefileRecordDigest`) and its `.shp`, `.shx` and `.dbf` hashed whole for the report, two passes over the
    /// same files that need not wait for each other (a million stands: 420 MB each). The fingerprint and the
    /// report's digests are those of `compute`; a file that cannot be read fails as there. `aheadDone` is told when
    /// the files `ahead` are hashed (for tests).
    package static func compute(
        listing ahead: [String], aheadDone: (@Sendable () -> Void)? = nil, _ items: () -> [Item]
    ) throws(NightlyError) -> Fingerprint {
        let digests = AheadDigests()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for path in Set(ahead) {
                let digest: Result<FileDigest, NightlyError>
                do throws(NightlyError) { digest = .success(try FileDigest.sha256(path: path)) } catch {
                    digest = .failure(error)
                }
                digests.taken.withLock { $0[path] = digest }
            }
            aheadDone?()
        }
        let list = items()
        group.wait()
        return try compute(list, listed: digests.taken.withLock { $0 })
    }
}

/// The digests `compute(listing:_:)` takes on its second thread.
private final class AheadDigests: Sendable {
    let taken = Mutex<[String: Result<FileDigest, NightlyError>]>([:])
}
