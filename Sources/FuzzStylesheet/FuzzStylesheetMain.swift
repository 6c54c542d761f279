import FuzzSupport

/// libFuzzer's test function: one input as `.kss` stylesheet text (see `StylesheetFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStylesheetTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    StylesheetFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzStylesheet`: fuzzes (fuzzing build) or replays the input files given as arguments (normal build).
@main
enum FuzzStylesheetMain {
    static func main() {
        FuzzDriver.main(name: "FuzzStylesheet")
    }
}
