internal import CMalloc

/// The one wrapper of `CMalloc`: the process heap's hold on memory it no longer uses (glibc's malloc; elsewhere
/// every call does nothing).
///
/// A conversion frees most of what a step allocated before the next one starts (the held tile pieces once they are
/// in sort runs, a batch's pieces once its tiles are encoded), but by default glibc keeps freed memory: in up to
/// 8 arenas per core, in heaps that shrink only from the top, and with an mmap threshold that rises after every
/// large free, so later large arrays land in those heaps too. Measured on 1M stands (`docs/benchmarks.md`,
/// *Bounded memory, fifth step*): 150–185 MiB in use during the low zooms, 450–580 MiB resident.
public enum ProcessHeap {
    /// At most `4 × max(2, threads)` arenas (half of glibc's default: with one per thread, Dispatch's changing
    /// worker threads shared arenas and waited on their locks, 7 % of the samples of a stands-100k run; four per
    /// thread made it 10–15 % faster at the same peak RSS on 100k and 1M stands), allocations of 4 MiB and more
    /// straight from mmap (given back when freed), the top of a heap given back past 8 MiB. The mmap threshold was
    /// 256 KiB: every tile's per-piece arrays (a few hundred KiB to a few MiB) were then mapped, faulted in page by
    /// page and unmapped again, and system time was 6–7 % of user time; at 4 MiB they are reused from the heaps
    /// (page faults −35 % on points, −41 % on polygons, −21 % on stands, peak RSS within 2 %). The top was given
    /// back past 1 MiB: a thread's heap (glibc gives threads heaps of their own, which `giveBackFreePages` does not
    /// shrink from the top) then gave back its top each time an array of a few MiB at its top was freed, and
    /// faulted the pages in again for the next tile; past 8 MiB they stay (page faults −23 % on gshhs-europe, −13 %
    /// on stands-100k, peak RSS +4 % and −3 %, stands-1m 449 MiB: `docs/benchmarks.md`, *System time … twelfth
    /// session*). Process-wide: the CLI calls it once at start with the machine's core count (the default
    /// `--threads`), before any worker thread exists, so concurrent conversions (`kartpack package`) never set it
    /// against each other.
    ///
    /// Then each thread arena's heap is grown once to `arenaReserve` and shrunk again (`growArenas`): glibc grows
    /// a thread's heap (unlike the main one, without a top pad) with one `mprotect` per growth past the highest
    /// size it had, a page at a time for small blocks (rivers: 22,000 calls, 15 % of the run's kernel time).
    public static func configure(threads: Int) {
        let arenas = max(2, threads) * 4
        _ = kartpack_malloc_set(Int32(clamping: arenas), 4 << 20, 8 << 20)
        growArenas(min(arenas - 1, 2 * max(2, threads) + 3))
    }

    /// How far each thread arena's heap is grown ahead: most of glibc's 64 MiB heap (a thread's arena has one heap
    /// of this size before it needs another), in blocks under the mmap threshold.
    static let arenaReserve = 56 << 20

    /// Grows `count` thread arenas (each made by a thread of its own, which then exits and leaves it to the next
    /// thread that needs one) to `arenaReserve` and gives the pages back at once: the pages stay writable, so
    /// the heaps grow later without a system call. No page stays resident (the blocks are never written); the
    /// count of arenas grown (0 off glibc).
    @discardableResult
    static func growArenas(_ count: Int) -> Int {
        Int(kartpack_malloc_grow_arenas(Int32(clamping: count), arenaReserve, (4 << 20) - (64 << 10)))
    }

    /// Gives every arena's free pages back to the system: between phases and batches (about a millisecond).
    public static func giveBackFreePages() { _ = kartpack_malloc_trim() }

    /// Bytes malloc has handed out and not got back (0 where unknown): for tests and notes.
    public static var bytesInUse: Int { kartpack_malloc_in_use() }
}
