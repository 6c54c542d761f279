import Foundation
import KartpackJSON

extension Catalog {
    /// The catalog as the JSON text `kartpack package` writes (docs/catalog.md): keys in the documented order,
    /// two-space indentation, times as whole-second UTC (`2026-12-01T11:58:00Z`). A catalog read from such text
    /// gives the same text back, so a producer that keeps last night's entries keeps their bytes.
    public var text: String {
        let times = Self.timeFormatter()
        let list = regions.map { r -> JSONValue in
            .object([
                ("id", .string(r.id)), ("name", .string(r.name)), ("file", .string(r.file)),
                ("bytes", .int(r.bytes)), ("sha256", .string(r.sha256)),
                ("bounds", .array([r.bounds.west, r.bounds.south, r.bounds.east, r.bounds.north].map { .double($0) })),
                ("minZoom", .int(Int64(r.minZoom))), ("maxZoom", .int(Int64(r.maxZoom))),
                (
                    "layers",
                    .array(
                        r.layers.map { l in
                            .object([
                                ("name", .string(l.name)), ("features", .int(Int64(l.features))),
                                ("classes", .array(l.classes.map { .string($0) })),
                            ])
                        })
                ),
                ("built", .string(Self.timeText(r.built, times))), ("fingerprint", .string(r.fingerprint)),
            ])
        }
        let root = JSONValue.object([
            ("catalogVersion", .int(Int64(version))), ("sequence", .int(Int64(sequence ?? 0))),
            ("created", .string(Self.timeText(created, times))),
            ("kartpack", .string(kartpackVersion)), ("regions", .array(list)),
        ])
        return JSONWriter.text(root, format: .pretty)
    }

    /// `date` as the catalog writes times: ISO 8601 UTC, whole seconds (a fraction is dropped).
    public static func timeText(_ date: Date) -> String { timeText(date, timeFormatter()) }

    /// One formatter for a whole catalog (a formatter is costly to make; a catalog may list 100,000 regions).
    private static func timeFormatter() -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f
    }

    private static func timeText(_ date: Date, _ f: ISO8601DateFormatter) -> String {
        f.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }
}
