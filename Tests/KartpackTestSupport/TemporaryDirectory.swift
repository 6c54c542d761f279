import Foundation

/// A unique temporary directory for one test, removed when the value is released.
public final class TemporaryDirectory {
    /// The directory's URL.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates a fresh directory under the system temp folder.
    public init(prefix: String = "kartpack-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
