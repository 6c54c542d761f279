/// The version of the bytes Kartpack writes for a given input and options.
///
/// Raised by every change that makes another package of the same input: Tests/CLITests/Golden/output-format.txt
/// pins it to the golden package digests (`scripts/interop/test_output_format.py` fails when the digests change and
/// it was not raised). An incremental `run` copies tiles only from a package built under the same Kartpack version
/// and output format (`TileReuse.settingsDigest`, Pipelines/README.md, *Incremental builds*), so a rebuild or
/// redeploy of the same source keeps last night's tile index.
package enum OutputFormat {
    package static let version = 4
}
