import FuzzSupport

/// libFuzzer's test function: one input as a GeoPackage geometry blob, or a whole `.gpkg` (see
/// `GeoPackageFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoPackageTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    GeoPackageFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzGeoPackage`: fuzzes (fuzzing build) or replays the input files given as arguments (normal build).
@main
enum FuzzGeoPackageMain {
    static func main() {
        FuzzDriver.main(name: "FuzzGeoPackage")
    }
}
