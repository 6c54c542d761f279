import FuzzSupport

/// libFuzzer's test function: one input read as gzip, as an MVT tile and as a PMTiles archive (see
/// `PackageFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackageTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    PackageFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzPackage`: fuzzes (fuzzing build) or replays the input files given as arguments (normal build).
@main
enum FuzzPackageMain {
    static func main() {
        FuzzDriver.main(name: "FuzzPackage")
    }
}
