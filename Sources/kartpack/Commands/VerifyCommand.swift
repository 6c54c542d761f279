import Foundation
import KartpackCore
import RegionPackages

/// `kartpack verify OUTDIR [--pubkey KEY.pub]`: checks a package folder against its catalog.
struct VerifyCommand: Command {
    static let name = "verify"
    static let summary = "check a package folder: hashes, packages and the catalog's signature"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "pubkey", kind: .value, help: "minisign public key: the catalog.json.minisig signature must hold",
            valueName: "KEY.pub"),
        OptionSpec(
            name: "since", kind: .value,
            help: "the catalog's sequence must be greater than N (the last one accepted): refuses a rollback",
            valueName: "N"),
        OptionSpec(name: "quiet", kind: .flag, help: "print only the mismatches"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack verify OUTDIR [--pubkey KEY.pub] [--since N]",
            summary: """
                Reads OUTDIR/catalog.json, re-hashes every package it lists (size and SHA-256), opens each one and
                reads every tile, checks its zoom range, and with --pubkey checks catalog.json.minisig with minisign.
                Only regular files are read, and a package is hashed only when its size is the listed one; each
                entry must name its own region's file. With --since N the catalog's signed sequence must be greater
                than N, so a folder rolled back to an older signed catalog fails. Prints one line per mismatch
                naming the region and file, and exits 65 when there is any (0 when all holds, 66 when there is no
                catalog, 69 when --pubkey is given but minisign is not installed).
                """,
            options: options,
            footer: "See docs/regions.md and docs/catalog.md.")
    }

    let folder: String
    let publicKey: String?
    let since: Int?
    let quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "verify needs exactly one OUTDIR") }
        folder = p.positionals[0]
        publicKey = p.value("pubkey")
        since = try p.int("since", in: 0...Int.max)
        quiet = p.flag("quiet")
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: folder + "/catalog.json") else {
            Console.error("\(folder)/catalog.json: no such file")
            return .noInput
        }
        if let publicKey {
            // A FIFO or device as the key would block minisign or feed it anything: refused before reading.
            do { try CatalogSigner.requireRegularFile(publicKey, what: "--pubkey") } catch {
                Console.error(error.description)
                return .noInput
            }
        }
        let result = CatalogVerifier.verify(folder: folder, publicKey: publicKey, since: since)
        if let unavailable = result.unavailable {
            Console.error(unavailable)
            return .unavailable
        }
        for p in result.problems { Console.error("mismatch: \(p)") }
        if !quiet {
            for n in result.notes { Console.error("note: \(n)") }
            let sig = result.signatureChecked ? ", signature good" : ""
            Console.out(
                "\(folder): \(result.regions) regions, \(result.tiles) tiles, \(result.problems.count) mismatches\(sig)"
            )
        }
        return result.problems.isEmpty ? .success : .dataError
    }
}
