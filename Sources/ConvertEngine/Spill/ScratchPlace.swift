import Foundation
import KartpackCore
import Nightly
import Shapefile

/// Where a conversion's sort runs go, and the disk-space checks for them: the `--scratch` folder, else
/// `--temp-dir`, else the output's folder.
package struct ScratchPlace: Sendable {
    package let folder: String
    /// The output's file name: the scratch file is `<name>.data.tmp-<pid>-<hex>`, which the output lock's sweep
    /// of killed runs' leftovers knows.
    package let outputName: String
    /// Deflate the runs' blocks where that pays (level 1).
    package var compress = true
    /// Room left free beside the runs, for the package being written and everyone else.
    static let margin: UInt64 = 64 << 20

    package init(options: ConvertOptions) {
        let (dir, name) = RegularFile.split(options.output)
        folder = options.scratchDirectory ?? options.temporaryDirectory ?? (dir.isEmpty ? "." : dir)
        // A staged build writes to the output's temporary name: the sweep knows the scratch by the output's.
        outputName = TemporaryName.parse(name)?.stem ?? name
    }

    package init(folder: String, outputName: String, compress: Bool = true) {
        self.folder = folder
        self.outputName = outputName
        self.compress = compress
    }

    /// Raw bytes per run block for a budget: 16 KiB to 256 KiB, so merging many runs holds little.
    static func blockBytes(budget: Int) -> Int { min(256 << 10, max(16 << 10, budget / 64)) }

    package func makeStore(budget: Int) throws(SpillError) -> SortRunStore {
        SortRunStore(
            file: try SpillFile(folder: folder, outputName: outputName), blockBytes: Self.blockBytes(budget: budget),
            compress: compress)
    }

    /// A run of pieces that hold `heldBytes` in memory takes at most a quarter of that on disk (delta varints
    /// instead of 32-bit coordinates, no per-piece headers, deflate; measured on 100k stands: a twentieth).
    /// Refuses (exit 74) when the folder has less free than that plus the margin.
    func checkSpace(forRunOf heldBytes: Int, store: SortRunStore) throws(SpillError) {
        let needed = UInt64(heldBytes / 4) + Self.margin
        let free: UInt64
        do { free = try DiskSpace.available(at: folder) } catch { return }
        guard free >= needed else {
            throw .insufficientSpace(folder: folder, available: free, needed: store.scratchBytes + needed)
        }
    }

    /// Refuses (exit 74) when the folder has less free than `bytes` plus the margin (finished tiles waiting to be
    /// published, `EncodedTiles`).
    func checkSpace(forBytes bytes: UInt64) throws(SpillError) {
        let needed = bytes + Self.margin
        let free: UInt64
        do { free = try DiskSpace.available(at: folder) } catch { return }
        guard free >= needed else { throw .insufficientSpace(folder: folder, available: free, needed: needed) }
    }

    /// About what the pieces and runs of a conversion need, from the inputs' `.shp` bytes: pieces take about 2
    /// bytes of memory per `.shp` byte per zoom level (100k stands at z6–14: 1.7) and runs an eighth of that
    /// (measured: a twentieth), plus the finished tiles waiting to be published, a sixteenth (100k stands: the
    /// package is about the `.shp`'s size, a ninth of a byte per `.shp` byte per zoom). Only an estimate: a
    /// polygon covering many tiles at the max zoom has far more pieces than its `.shp` bytes say; each run and
    /// each spill of tiles checks the free space again before it is written.
    package static func estimate(shpBytes: UInt64, zooms: Int) -> (held: UInt64, scratch: UInt64) {
        let held = shpBytes.multipliedReportingOverflow(by: UInt64(max(1, zooms)) * 2)
        let h = held.overflow ? UInt64.max / 2 : held.partialValue
        return (h, h / 8 + h / 16)
    }

    /// The check before the run: when the inputs are big enough to spill under `budget`, the folder must exist,
    /// be writable and have room for the estimated runs (exit 73 / 74 otherwise).
    func checkBeforeRun(shpBytes: UInt64, zooms: Int, budget: Int) throws(SpillError) {
        let (held, scratch) = Self.estimate(shpBytes: shpBytes, zooms: zooms)
        guard held > UInt64(budget) else { return }
        guard access(folder, W_OK | X_OK) == 0 else { throw .cannotCreate(folder: folder, errno: errno) }
        let free: UInt64
        do { free = try DiskSpace.available(at: folder) } catch {
            throw .cannotCreate(folder: folder, errno: ENOENT)
        }
        let needed = scratch + Self.margin
        guard free >= needed else { throw .insufficientSpace(folder: folder, available: free, needed: needed) }
    }

    /// Bytes of the inputs' `.shp` files (folders: every Shapefile set in them); what cannot be found counts 0.
    static func shpBytes(_ inputs: [ConvertInput]) -> UInt64 {
        var total: UInt64 = 0
        for input in inputs {
            // A GeoPackage counts once, however many of its tables the input reads.
            let paths =
                input.files.map { [$0.shp] } ?? Array(Set(((try? input.inputLayers()) ?? []).map(\.path))).sorted()
            for path in paths {
                var st = stat()
                if stat(path, &st) == 0 { total += UInt64(max(0, st.st_size)) }
            }
        }
        return total
    }
}
