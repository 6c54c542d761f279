import TileArchive

/// Test access to package metadata.
enum PMTilesReaderShim {
    static func metadata(_ path: String) throws -> String? {
        try PMTilesReader(path: path).metadata().objectMembers?.first { $0.key == "kartpack" }?.value.stringValue
    }
}
