import Glibc
import KartpackCore

/// The time a night writes into what it publishes (a catalog's `created`, its regions' `built`, the trusted
/// timestamp of its signature): now, or the fixed time in `SOURCE_DATE_EPOCH` (reproducible-builds.org) when that
/// is set. With it, two builds of the same inputs and options write the same bytes, times included: one machine
/// and the merge of a plan's shards, or a rebuild made to check a published night.
package enum BuildClock {
    /// The environment variable that fixes the time.
    package static let variable = "SOURCE_DATE_EPOCH"
    /// The largest time accepted: 9999-12-31T23:59:59Z (the catalog's dates have four-digit years).
    package static let latest: Double = 253_402_300_799

    /// Whole seconds since 1970 (UTC): `value` (the variable's value; by default read from the environment) when
    /// set, else now rounded down. A value that is not a whole number of seconds from 0 to `latest` (digits only,
    /// as reproducible-builds.org defines it) is refused rather than replaced by the current time.
    package static func seconds(value: String? = environmentValue()) throws(BuildClockError) -> Double {
        guard let value else { return UTCTimestamp.now().rounded(.down) }
        guard !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let seconds = Double(value), seconds <= latest
        else { throw BuildClockError(value: value) }
        return seconds
    }

    /// `SOURCE_DATE_EPOCH` as set in this process's environment; nil when unset.
    package static func environmentValue() -> String? {
        getenv(variable).map { String(cString: $0) }
    }
}

/// `SOURCE_DATE_EPOCH` is set to something that is not a time: a usage error (64), nothing is built.
package struct BuildClockError: KartpackError, Equatable {
    /// The variable's value as given.
    package var value: String

    package var exitCode: ExitCode { .usage }
    package var description: String {
        "\(BuildClock.variable)=\(value): not a whole number of seconds since 1970-01-01T00:00:00Z "
            + "(0 to \(Int(BuildClock.latest)), digits only)"
    }
}
