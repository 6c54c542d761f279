import KartpackCore

/// A dBASE `.dbt` or FoxPro `.fpt` memo file, read block by block with every offset and length checked.
///
/// - dBASE III (`.dbt`, DBF version 0x83): 512-byte blocks; a memo runs from its block to the first `0x1A`.
/// - dBASE IV (`.dbt`, version 0x8B/0xCB): the block size is the 16-bit value at byte 20 of the header (512 when
///   0); a memo block starts `FF FF 08 00` followed by the memo's length (little-endian, including those 8 bytes).
///   A block without that signature is read the dBASE III way, as dBASE IV itself does for converted files.
/// - FoxPro (`.fpt`): the block size is the big-endian 16-bit value at byte 6; a block starts with a big-endian
///   type (1 = text, 0 = picture) and length.
///
/// Memos longer than `maxMemoBytes` are refused (`memo_too_large`) rather than read: a tile attribute of megabytes
/// is never useful and a hostile length must not allocate gigabytes.
final class MemoFile {
    enum Format: Equatable {
        case dBase
        case fox
    }

    /// Why a memo could not be read (the value becomes null, counted under `code`).
    struct Problem: Error, Equatable {
        var code: ReasonCode
        var message: String
    }

    let file: InputFile
    let format: Format
    let blockSize: Int

    /// The largest memo read, in bytes.
    static let maxMemoBytes = 1 << 20

    init(file: InputFile) throws(ShapefileError) {
        self.file = file
        let header = try file.bytes(at: 0, count: 512)
        let isFox = ShapefileLocator.extensionOf(file.name)?.lowercased() == "fpt"
        format = isFox ? .fox : .dBase
        var size = 512
        if isFox, header.count >= 8 {
            let declared = Int(header[6]) << 8 | Int(header[7])
            size = declared == 0 ? 1 : declared
        } else if header.count >= 22 {
            let declared = header.uint16LE(20)
            if declared >= 64 && declared % 64 == 0 { size = declared }
        }
        blockSize = size
    }

    /// The memo bytes at `block` (nil for an empty memo), or why they cannot be read.
    func read(block: Int) throws(ShapefileError) -> Result<[UInt8]?, Problem> {
        let (offset, overflow) = block.multipliedReportingOverflow(by: blockSize)
        guard !overflow, block > 0, offset >= min(512, blockSize), offset < file.size else {
            return .failure(
                Problem(
                    code: .badMemoBlock,
                    message: "memo block \(block) is outside the \(file.size)-byte \(file.name)"))
        }
        let head = try file.bytes(at: offset, count: 8)
        if format == .fox {
            guard head.count == 8 else { return .failure(cutShort(block)) }
            let length = Int(UInt32(bitPattern: head.int32BE(4)))
            return body(at: offset + 8, length: length, block: block)
        }
        if head.count == 8, head[0] == 0xFF, head[1] == 0xFF, head[2] == 0x08, head[3] == 0x00 {
            let total = Int(head.uint32LE(4))
            guard total >= 8 else { return .success(nil) }
            return body(at: offset + 8, length: total - 8, block: block)
        }
        // dBASE III: up to the first 0x1A, in bounded chunks.
        var out: [UInt8] = []
        var at = offset
        while at < file.size {
            let chunk = try file.bytes(at: at, count: 4096)
            if let end = chunk.firstIndex(of: 0x1A) {
                out += chunk[..<end]
                break
            }
            out += chunk
            at += chunk.count
            guard out.count <= Self.maxMemoBytes else { return .failure(tooLarge(block, out.count)) }
        }
        guard out.count <= Self.maxMemoBytes else { return .failure(tooLarge(block, out.count)) }
        return .success(out.isEmpty ? nil : out)
    }

    private func body(at start: Int, length: Int, block: Int) -> Result<[UInt8]?, Problem> {
        guard length <= Self.maxMemoBytes else { return .failure(tooLarge(block, length)) }
        guard start + length <= file.size else { return .failure(cutShort(block)) }
        guard length > 0 else { return .success(nil) }
        do {
            let bytes = try file.bytes(at: start, count: length)
            guard bytes.count == length else { return .failure(cutShort(block)) }
            return .success(bytes)
        } catch {
            return .failure(Problem(code: .badMemoBlock, message: "memo block \(block): \(error.description)"))
        }
    }

    private func tooLarge(_ block: Int, _ n: Int) -> Problem {
        Problem(
            code: .memoTooLarge,
            message: "memo block \(block) is larger than the \(Self.maxMemoBytes)-byte limit (at least \(n) bytes)")
    }

    private func cutShort(_ block: Int) -> Problem {
        Problem(code: .badMemoBlock, message: "memo block \(block) runs past the end of \(file.name)")
    }
}
