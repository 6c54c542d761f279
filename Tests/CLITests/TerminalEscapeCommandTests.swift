import Foundation
import KartpackTestSupport
import Testing

/// `inspect` prints package metadata (a region's display name, layer and field names) with control characters
/// escaped: a package cannot retitle, clear or recolour the terminal of whoever inspects it.
@Suite struct TerminalEscapeCommandTests {
    @Test func escapeBytesInMetadataArePrintedAsEscapes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("escapes.mbtiles")
        let script = """
            import sys, sqlite3, gzip
            c = sqlite3.connect(sys.argv[1])
            c.executescript('''
              CREATE TABLE metadata (name TEXT, value TEXT);
              CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);''')
            esc = "\\x1b"
            # Inside JSON the ESC is written as an escape (a raw one makes the JSON invalid); parsed, it is ESC.
            j = "\\\\u001b"
            layers = '{"vector_layers":[{"id":"roads' + j + '[31m","fields":{"na' + j + '[2Jme":"String"}}]}'
            c.executemany("INSERT INTO metadata VALUES (?, ?)", [
                ("name", "Region " + esc + "]0;owned\\x07" + esc + "[2J"), ("format", "pbf"),
                ("description", "line" + esc + "[1A\\roverwritten"), ("json", layers)])
            c.execute("INSERT INTO tiles VALUES (0, 0, 0, ?)", (gzip.compress(b"", mtime=0),))
            c.commit()
            """
        let made = try runProcess("/usr/bin/python3", ["-c", script, path])
        #expect(made.status == 0, "\(made.stderr)")
        let r = try runKartpack(["inspect", path])
        #expect(!r.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(r.stdout.debugDescription)")
        #expect(!r.stdout.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) })
        #expect(r.stdout.contains("Region \\e]0;owned\\u{7}\\e[2J"), "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("roads\\e[31m"), "\(r.stdout)")
        #expect(r.stdout.contains("line\\e[1A\\roverwritten"), "\(r.stdout)")
        // JSON output escapes them as JSON does.
        let json = try runKartpack(["inspect", path, "--format", "json"])
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B }, "\(json.stdout.debugDescription)")
    }

    @Test func diagnosticsQuotingAFileNameEscapeIt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("region \u{1B}]0;owned\u{07}.pmtiles")
        let r = try runKartpack(["inspect", path])
        #expect(r.status != 0)
        #expect(
            !r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(r.stderr.debugDescription)")
        #expect(r.stderr.contains("region \\e]0;owned\\u{7}.pmtiles"), "\(r.stderr)")
    }
}
