/// Where the feature records of a conversion go once they pass their share of the memory budget: one scratch file
/// (`SpillFile`, unlinked at once) shared by every `RecordTable` of the run, created on the first spill.
///
/// A table keeps at most `heldLimit` bytes of coded records in memory; past that its full chunks are appended here
/// and only their place is kept (`RecordTable.spillIfOverLimit`). Appends come from the feature phase's one
/// collecting thread; reads (`pread`) come from any thread once the feature phase is over.
package final class RecordSpill: @unchecked Sendable {
    package let scratch: ScratchPlace
    /// Coded record bytes one table may hold in memory before its full chunks are spilled.
    let heldLimit: Int
    private var file: SpillFile?

    /// A spill whose tables each hold `heldLimit` bytes at most.
    package init(scratch: ScratchPlace, heldLimit: Int) {
        self.scratch = scratch
        self.heldLimit = heldLimit
    }

    /// A thirty-second of `--memory-budget` per table (8 MiB at the default): small next to the pieces, and 100k
    /// stands (about 5 MB of records) never touch the disk.
    package convenience init(scratch: ScratchPlace, budget: Int) {
        self.init(scratch: scratch, heldLimit: budget / 32)
    }

    /// Scratch bytes written so far.
    var scratchBytes: UInt64 { file?.size ?? 0 }

    /// Appends one chunk; returns where it starts.
    package func write(_ chunk: [UInt8]) throws(SpillError) -> UInt64 {
        if file == nil {
            file = try SpillFile(folder: scratch.folder, outputName: scratch.outputName)
        }
        try scratch.checkSpace(forBytes: UInt64(chunk.count))
        guard let file else { throw .corrupt("the record scratch file is gone") }
        return try file.append(chunk)
    }

    /// Reads `count` bytes at `offset` (written by `write`).
    package func read(offset: UInt64, count: Int) throws(SpillError) -> [UInt8] {
        guard let file else { throw .corrupt("no record scratch file to read from") }
        return try file.read(offset: offset, count: count)
    }
}
