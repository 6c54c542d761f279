import FuzzSupport

/// libFuzzer's test function: one input as a `.zip` for the import's extractor (see `ZipFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZipTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ZipFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzZip`: fuzzes (fuzzing build) or replays the input files given as arguments (normal build).
@main
enum FuzzZipMain {
    static func main() {
        FuzzDriver.main(name: "FuzzZip")
    }
}
