import Foundation

/// Paths inside the repository and to real data sets shipped by Debian packages.
public enum RepositoryPaths {
    /// The package root (the folder holding Package.swift).
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `SampleData/forest`.
    public static var sampleForest: URL { root.appendingPathComponent("SampleData/forest") }

    /// Debian's geopandas data sets (Natural Earth, NYC boroughs zip).
    public static let geopandasData = URL(fileURLWithPath: "/usr/lib/python3/dist-packages/geopandas/datasets")

    /// The `kartpack` executable built next to the test bundle (or `KARTPACK_BIN`).
    public static var kartpackBinary: String {
        if let env = ProcessInfo.processInfo.environment["KARTPACK_BIN"], !env.isEmpty { return env }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "kartpack"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("kartpack"),
            root.appendingPathComponent(".build/debug/kartpack"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }?.path
            ?? root.appendingPathComponent(".build/debug/kartpack").path
    }
}
