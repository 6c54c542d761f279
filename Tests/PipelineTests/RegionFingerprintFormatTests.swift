import ConvertEngine
import Testing

@testable import RegionPackages

/// A region's fingerprint covers the output format: a Kartpack of the same version that writes other bytes
/// (`OutputFormat.version` raised) rebuilds every region instead of calling last night's packages up to date.
@Suite struct RegionFingerprintFormatTests {
    @Test func anotherOutputFormatIsAnotherFingerprint() {
        let settings = ["pipeline", "style", "buffer 0"]
        let now = RegionFingerprint(settings: settings)
        #expect(now.hex == RegionFingerprint(settings: settings, outputFormat: OutputFormat.version).hex)
        #expect(now.hex != RegionFingerprint(settings: settings, outputFormat: OutputFormat.version + 1).hex)
        #expect(now.hex != RegionFingerprint(settings: settings + ["zooms 0-14"]).hex)
    }
}
