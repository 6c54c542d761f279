import KartpackCore
import Reprojection

/// The input layers a run has opened already: the input probe opens each layer once — reader, header checks,
/// CRS — and hands the outcome to the read phase, which reads the records of that very reader instead of opening
/// the files again (issue 33: each input opened once per run). A layer the probe could not open keeps its error,
/// so the read phase rejects it without a second attempt (and without repeating its warnings).
///
/// Readers are kept open only while the descriptor limit leaves room (issue 15: many inputs must not need more
/// descriptors than one): at most `limit`, and only while they would hold at most a quarter of the soft
/// `RLIMIT_NOFILE` at `descriptorsPerReader` each (up to 32 at the usual 1,024; none under a limit of 24). The read
/// phase opens the others itself, as it does without a probe. Each outcome is handed out once. Used on one
/// thread: the probe fills it, then the read phase empties it in input order.
package final class OpenedLayers {
    /// What opening one layer gave.
    package enum Outcome {
        /// The reader, before its first record, and the layer's CRS.
        case opened(any LayerReading, CRSInfo)
        /// Why the layer is rejected, and the records counted before it failed (0 when unknown).
        case failed(any Error, recordsInFile: Int)
    }

    /// Layers kept open at most.
    package static let limit = 32
    /// Descriptors counted per kept reader (a Shapefile set's `.shp`, `.shx`, `.dbf`, memo, with a margin).
    package static let descriptorsPerReader: UInt64 = 8
    /// Readers this store keeps open at most: `limit`, fewer under a low descriptor limit.
    package let capacity: Int
    private struct Key: Hashable {
        var input: Int
        var layer: InputLayer
    }
    private var outcomes: [Key: Outcome] = [:]
    private var keptOpen = 0

    /// An empty store for a process whose soft descriptor limit is `descriptorLimit` (nil: unknown, keep none).
    package init(descriptorLimit: UInt64? = OpenFileLimit.soft) {
        let room = (descriptorLimit ?? 0) / 4 / Self.descriptorsPerReader
        capacity = Int(min(room, UInt64(Self.limit)))
    }

    /// True while another opened reader may be kept.
    package var hasRoom: Bool { keptOpen < capacity }

    /// Keeps what opening `layer` of input `input` (its index in the options) gave (an opened reader only while
    /// `hasRoom`); returns whether it was kept.
    @discardableResult
    package func keep(_ outcome: Outcome, for layer: InputLayer, input: Int) -> Bool {
        if case .opened = outcome {
            guard hasRoom else { return false }
            keptOpen += 1
        }
        outcomes[Key(input: input, layer: layer)] = outcome
        return true
    }

    /// What opening `layer` of input `input` gave, once; nil when it was not kept.
    package func take(_ layer: InputLayer, input: Int) -> Outcome? {
        outcomes.removeValue(forKey: Key(input: input, layer: layer))
    }
}
