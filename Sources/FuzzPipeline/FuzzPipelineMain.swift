import FuzzSupport

/// libFuzzer's test function: one input as a pipeline file (see `PipelineFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipelineTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    PipelineFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzPipeline`: fuzzes (fuzzing build) or replays the input files given as arguments (normal build).
@main
enum FuzzPipelineMain {
    static func main() {
        FuzzDriver.main(name: "FuzzPipeline")
    }
}
