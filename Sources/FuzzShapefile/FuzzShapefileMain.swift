import Foundation
import FuzzSupport

/// libFuzzer's test function: one Shapefile bundle (see `ShapefileBundleFuzzer`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzShapefileTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    ShapefileBundleFuzzer.run(UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size))
    return 0
}

/// `FuzzShapefile`: fuzzes (fuzzing build) or replays inputs (normal build); also converts between Shapefiles and
/// inputs:
///
/// - `FuzzShapefile --frame OUT PATH.shp [FLAGS]` writes the bundle next to `PATH.shp` as one input;
///   FLAGS defaults to the files that exist (bits 0–3).
/// - `FuzzShapefile --unframe INPUT FOLDER` writes the files an input holds as `FOLDER/f.shp` …, to look at
///   a finding with `kartpack inspect`.
@main
enum FuzzShapefileMain {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        if args.first == "--frame" { exit(frame(Array(args.dropFirst()))) }
        if args.first == "--unframe" { exit(unframe(Array(args.dropFirst()))) }
        FuzzDriver.main(name: "FuzzShapefile")
    }

    static func frame(_ args: [String]) -> Int32 {
        guard args.count == 2 || args.count == 3, args[1].lowercased().hasSuffix(".shp") else {
            FileHandle.standardError.write(Data("usage: FuzzShapefile --frame OUT PATH.shp [FLAGS]\n".utf8))
            return 64
        }
        let base = String(args[1].dropLast(4))
        var flags: UInt8 = 0
        var sections: [[UInt8]] = []
        for (k, ext) in ShapefileBundleFuzzer.extensions.enumerated() {
            let candidates = [base + "." + ext, base + "." + ext.uppercased()]
            if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }),
                let data = FileManager.default.contents(atPath: found)
            {
                sections.append(Array(data))
                if k > 0 { flags |= 1 << ShapefileBundleFuzzer.flagBit(section: k) }
            } else {
                guard k > 0 else {
                    FileHandle.standardError.write(Data("FuzzShapefile: \(args[1]): not found\n".utf8))
                    return 66
                }
                sections.append([])
            }
        }
        if args.count == 3 {
            guard let explicit = UInt8(args[2]) else {
                FileHandle.standardError.write(Data("FuzzShapefile: FLAGS must be 0...255\n".utf8))
                return 64
            }
            flags = explicit
        }
        let out = FuzzFraming.join(flags: flags, sections: sections)
        guard FileManager.default.createFile(atPath: args[0], contents: Data(out)) else {
            FileHandle.standardError.write(Data("FuzzShapefile: cannot write \(args[0])\n".utf8))
            return 73
        }
        return 0
    }

    static func unframe(_ args: [String]) -> Int32 {
        guard args.count == 2, let data = FileManager.default.contents(atPath: args[0]) else {
            FileHandle.standardError.write(Data("usage: FuzzShapefile --unframe INPUT FOLDER\n".utf8))
            return 64
        }
        let (flags, sections) = data.withUnsafeBytes {
            FuzzFraming.split($0, sections: ShapefileBundleFuzzer.extensions.count)
        }
        do {
            try FileManager.default.createDirectory(atPath: args[1], withIntermediateDirectories: true)
        } catch {
            FileHandle.standardError.write(Data("FuzzShapefile: cannot create \(args[1])\n".utf8))
            return 73
        }
        for (k, ext) in ShapefileBundleFuzzer.extensions.enumerated()
        where k == 0 || flags & (1 << ShapefileBundleFuzzer.flagBit(section: k)) != 0 {
            let path = args[1] + "/f." + ext
            guard FileManager.default.createFile(atPath: path, contents: Data(sections[k])) else {
                FileHandle.standardError.write(Data("FuzzShapefile: cannot write \(path)\n".utf8))
                return 73
            }
            print("\(path): \(sections[k].count) bytes")
        }
        let encoding = ShapefileBundleFuzzer.encodings[Int(flags >> 4 & 3)] ?? "none"
        print(
            "flags 0x\(String(flags, radix: 16)): --encoding \(encoding), maxVertices "
                + "\(flags & 0x40 != 0 ? 16 : 10_000_000)"
        )
        return 0
    }
}
