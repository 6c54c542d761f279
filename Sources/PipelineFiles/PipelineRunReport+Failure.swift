import KartpackCore
import ConvertEngine
import Publishing

extension PipelineRunReport {
    /// The report of a `run` that ended by an error or a signal (another run's lock, a missing input, nothing to
    /// write, an interruption, …): nothing published, the cause as the one error finding (`code`), the exit code,
    /// and the conversion's report when there is one. `run --report` writes it on every exit path.
    package static func failure(
        _ spec: PipelineSpec, code: ReasonCode, message: String, exitCode: ExitCode, dryRun: Bool,
        conversion: ConvertReport? = nil
    ) -> PipelineRunReport {
        var r = PipelineRunReport(
            kartpack: Kartpack.version, pipeline: spec.file, output: spec.output.path, fingerprint: "",
            upToDate: false, dryRun: dryRun, inputs: [], conversion: conversion, timings: [:],
            exitCode: exitCode.rawValue)
        r.findings = [.endedRun(code: code, message: message)]
        return r
    }
}
