import Foundation
import KartpackCore
import Reprojection
import Shapefile
import ConvertEngine

/// Opens every input the way the converter's `ReadPhase` does before reading records — finding the Shapefile set,
/// the reader's header checks (`.shp`, `.shx`, `.dbf`, `.cpg`), the empty-layer rule, the CRS and the zoom range —
/// so a build knows which inputs
/// will be rejected before it converts anything: under `.fail` it stops at once, under `.skip` the package
/// metadata can list the missing layers. The converter still decides: a rejection it finds later (while reading
/// records) is caught after the conversion, before publishing.
package enum InputProbe {
    /// An input (or one Shapefile set of a folder input) that will be rejected.
    package struct Rejection: Sendable, Hashable {
        /// Index of the input in `ConvertOptions.inputs`.
        package var input: Int
        /// The layer name it would have had.
        package var layer: String
        /// The `.shp` (or the input path when no set was found), as the converter names it in its report.
        package var path: String
        package var code: ReasonCode
        package var message: String
        /// Records in the rejected file, as far as they can be counted, and where the count comes from
        /// (`ConvertReport.Input.recordsSource`).
        package var records: Int
        package var recordsSource: String
    }

    /// The rejections among the inputs of `options`, in input order. Throws (instead of rejecting) when the
    /// machine ran out of file descriptors (`too_many_open_files`, exit 74): that is no input's fault.
    ///
    /// With `opening`, the probe is the run's one opening of its inputs: readers are opened with `diagnostics`
    /// (their warnings are the run's) and kept, with their CRS or their error, for the read phase
    /// (`ProbedSets`); past `ProbedSets.limit` open readers, a layer is probed with a throwaway sink and the
    /// read phase opens it again. Without `opening`, nothing is kept and nothing is reported (`validate`).
    package static func rejections(
        _ options: ConvertOptions, opening: ProbedSets? = nil, diagnostics: DiagnosticSink? = nil
    ) throws -> [Rejection] {
        var out: [Rejection] = []
        for (k, input) in options.inputs.enumerated() {
            let sets: [InputSet]
            do {
                sets = try input.inputSets()
            } catch {
                if error.inputErrorCode == OpenFileLimit.code { throw error }
                out.append(
                    Rejection(
                        input: k, layer: input.layerName ?? "", path: input.path, code: error.inputErrorCode,
                        message: (error as? any KartpackError)?.description ?? "\(error)", records: 0,
                        recordsSource: "unknown"))
                continue
            }
            for set in sets {
                let name = input.layerName(for: set, setCount: sets.count)
                var records = 0
                // Kept for the read phase only while there is room (else its warnings would be said twice).
                let keeping = opening?.hasRoom == true ? opening : nil
                let sink = keeping != nil ? diagnostics ?? DiagnosticSink() : DiagnosticSink()
                do {
                    let reader = try set.open(encoding: input.encoding, diagnostics: sink)
                    records = reader.readerStats.recordsInFile
                    let crs = try reader.resolveCRS(override: input.sourceCRS)
                    _ = try input.zooms(of: set, packageZooms: options.minZoom, options.maxZoom)
                    keeping?.keep(.opened(reader, crs), for: set, input: k)
                } catch  where error.inputErrorCode == OpenFileLimit.code {
                    throw error
                } catch {
                    keeping?.keep(.failed(error, recordsInFile: records), for: set, input: k)
                    let message = (error as? any KartpackError)?.description ?? "\(error)"
                    let count = ReadPhase.recordCount(set, counted: records)
                    out.append(
                        Rejection(
                            input: k, layer: name, path: set.path, code: error.inputErrorCode, message: message,
                            records: count.count, recordsSource: count.source))
                }
            }
        }
        return out
    }
}
