// swift-tools-version:6.0
import PackageDescription

// Kartpack: Shapefiles -> reprojected, simplified, styled MVT tiles in PMTiles / MBTiles.
// Each C library is a system-library target imported by exactly one Swift module (`internal import`).
// Test code is compiled without optimization even in release builds: scripts/test.sh runs one release build with
// testability (-c release -Xswiftc -enable-testing), where the code under test must be fast but the tests' own
// code (Swift Testing's expanded macros) is only slow to optimize.
let testCode: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

let package = Package(
    name: "Kartpack",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .executable(name: "kartpack", targets: ["kartpack"]),
        // The client library for offline iOS/macOS apps: Foundation + zlib only (scripts/check-kit-graph.py).
        .library(name: "KartpackKit", targets: ["KartpackKit"]),
    ],
    targets: [
        // C libraries from Debian -dev packages.
        .systemLibrary(name: "CShapelib", pkgConfig: "shapelib", providers: [.apt(["libshp-dev"])]),
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev", "proj-data"])]),
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        // glibc's malloc tuning (part of libc: nothing to link).
        .systemLibrary(name: "CMalloc"),
        // The wrapper of CMalloc: the process heap's arenas, mmap threshold and free pages (`ProcessHeap`).
        .target(name: "MallocTuning", dependencies: ["CMalloc"]),

        // C-free data model shared by every module.
        .target(name: "KartpackCore"),
        // The project's one JSON implementation: ordered members, positions, canonical output (no dependencies).
        .target(name: "KartpackJSON"),
        // Geometry algorithms written in Swift: Douglas–Peucker, polygon assembly, rectangle clipping, ring validation.
        .target(name: "GeometryAlgorithms", dependencies: ["KartpackCore"]),
        // Wrappers: the only importers of their C module.
        .target(name: "Shapefile", dependencies: ["KartpackCore", "GeometryAlgorithms", "CShapelib"]),
        .target(name: "Reprojection", dependencies: ["KartpackCore", "KartpackJSON", "CProj"]),
        .target(name: "GeometryOps", dependencies: ["KartpackCore", "GeometryAlgorithms", "CGEOS"]),
        .target(name: "SQLiteStore", dependencies: ["CSQLite3"]),
        .target(name: "Gzip", dependencies: ["CZlib"]),
        // Whole-buffer compression for convert's tiles and sort runs (libdeflate; not in KartpackKit, zlib only).
        .target(name: "Deflate", dependencies: ["CDeflate"]),
        .target(name: "Glyphs", dependencies: ["CFreeType"]),
        .target(name: "SVGRaster", dependencies: ["CRsvg"]),
        // Pure Swift encoders and archive formats.
        .target(name: "VectorTile", dependencies: ["KartpackCore", "GeometryAlgorithms"]),
        .target(name: "Styling", dependencies: ["KartpackCore"]),
        // Client side of a stylesheet: MapLibre style JSON, pattern sprites (PNG), SVG previews.
        .target(
            name: "MapStyle",
            dependencies: [
                "KartpackCore", "KartpackJSON", "GeometryAlgorithms", "Styling", "VectorTile", "TileArchive", "Gzip",
                "Glyphs", "SVGRaster",
            ]),
        // PMTiles reader/writer and the archive vocabulary, free of SQLite; TileArchive adds MBTiles and re-exports it.
        .target(name: "PMTiles", dependencies: ["KartpackCore", "KartpackJSON", "Gzip"]),
        .target(name: "TileArchive", dependencies: ["PMTiles", "KartpackCore", "KartpackJSON", "SQLiteStore", "Gzip"]),
        // Client library (docs/kartpack-kit.md): open packages, query features, client styles, catalogs.
        .target(
            name: "KartpackKit",
            dependencies: [
                "KartpackCore", "KartpackJSON", "GeometryAlgorithms", "VectorTile", "PMTiles", "Gzip", "Checksum",
            ]),
        // SHA-256: input fingerprints in Nightly, package digests in KartpackKit's catalogs. Nettle on Linux (the
        // CPU's SHA extensions), Swift alone elsewhere (the client library on Apple platforms).
        .target(name: "Checksum", dependencies: [.target(name: "CNettle", condition: .when(platforms: [.linux]))]),
        // Nightly-job infrastructure: locks, fingerprints, signals, disk space, JSON logs.
        .target(name: "Nightly", dependencies: ["KartpackCore", "KartpackJSON", "Checksum"]),
        // GeoPackage input (OGC GeoPackage 1.2+ feature tables) through SQLiteStore: binary header, WKB, SRS.
        .target(name: "GeoPackage", dependencies: ["KartpackCore", "GeometryAlgorithms", "SQLiteStore"]),
        // The convert engine (docs/architecture.md): read -> features -> order -> encode -> publish, and the spill.
        .target(
            name: "ConvertEngine",
            dependencies: [
                "KartpackCore", "KartpackJSON", "GeometryAlgorithms", "Shapefile", "Reprojection", "GeometryOps",
                "VectorTile", "TileArchive", "Gzip", "Deflate", "Styling", "Nightly", "Checksum", "MallocTuning",
                "GeoPackage",
            ]),
        // Staging, completeness checks and the atomic publish of one converted package.
        .target(
            name: "Publishing",
            dependencies: [
                "ConvertEngine", "KartpackCore", "KartpackJSON", "Reprojection", "Shapefile", "TileArchive",
            ]),
        // Pipeline files and stylesheets: parsing, validation (with the region file), fingerprints, and `run`.
        .target(
            name: "PipelineFiles",
            dependencies: [
                "ConvertEngine", "Publishing", "KartpackCore", "KartpackJSON", "Checksum", "GeometryOps", "Nightly",
                "Reprojection", "Shapefile", "Styling", "TileArchive",
            ]),
        // One package per region: `package`, catalogs and their generations, `verify`, `extract`.
        .target(
            name: "RegionPackages",
            dependencies: [
                "ConvertEngine", "Publishing", "PipelineFiles", "KartpackCore", "KartpackJSON", "KartpackKit",
                "Checksum", "GeometryOps", "Nightly", "Reprojection", "Shapefile", "Styling", "TileArchive",
            ]),
        // `inspect` of Shapefiles and packages.
        .target(
            name: "Inspection",
            dependencies: [
                "ConvertEngine", "KartpackCore", "KartpackJSON", "Reprojection", "Shapefile", "TileArchive",
                "VectorTile",
            ]),
        // GIS exports: safe zip extraction, Shapefile discovery in folder trees, and the `import` job.
        .target(name: "Import", dependencies: ["ConvertEngine", "Publishing", "KartpackCore", "Shapefile", "Gzip"]),
        .executableTarget(
            name: "kartpack",
            dependencies: [
                "ConvertEngine", "Publishing", "PipelineFiles", "RegionPackages", "Inspection", "Nightly",
                "Reprojection", "KartpackCore", "KartpackJSON", "VectorTile", "MapStyle",
                "Styling", "TileArchive",
                "Shapefile", "Import", "KartpackKit", "MallocTuning", "GeoPackage",
            ]),

        // Tests.
        .target(
            name: "KartpackTestSupport", dependencies: ["KartpackCore"], path: "Tests/KartpackTestSupport",
            swiftSettings: testCode),
        .testTarget(name: "KartpackCoreTests", dependencies: ["KartpackCore"]),
        .testTarget(name: "KartpackJSONTests", dependencies: ["KartpackJSON"]),
        .testTarget(name: "GeometryAlgorithmsTests", dependencies: ["GeometryAlgorithms", "KartpackTestSupport"]),
        .testTarget(name: "ShapefileTests", dependencies: ["Shapefile", "KartpackTestSupport"]),
        .testTarget(name: "ReprojectionTests", dependencies: ["Reprojection", "KartpackJSON", "KartpackTestSupport"]),
        .testTarget(name: "GeometryOpsTests", dependencies: ["GeometryOps", "KartpackTestSupport"]),
        .testTarget(name: "StylingTests", dependencies: ["Styling", "KartpackTestSupport"]),
        .testTarget(
            name: "MapStyleTests",
            dependencies: [
                "MapStyle", "Styling", "GeometryAlgorithms", "KartpackJSON", "TileArchive", "VectorTile", "Gzip",
                "Glyphs", "SVGRaster", "KartpackTestSupport",
            ]),
        .testTarget(
            name: "VectorTileTests", dependencies: ["VectorTile", "GeometryAlgorithms", "KartpackTestSupport"]),
        .testTarget(
            name: "TileArchiveTests",
            dependencies: [
                "TileArchive", "PMTiles", "KartpackJSON", "Gzip", "Deflate", "SQLiteStore", "KartpackTestSupport",
            ]),
        .testTarget(
            name: "KartpackKitTests",
            dependencies: [
                "KartpackKit", "PMTiles", "VectorTile", "GeometryAlgorithms", "KartpackJSON", "Checksum",
                "KartpackTestSupport",
            ]),
        .testTarget(
            name: "PipelineTests",
            dependencies: [
                "ConvertEngine", "Publishing", "PipelineFiles", "RegionPackages", "Inspection", "GeometryAlgorithms",
                "GeometryOps", "KartpackJSON", "Nightly", "Checksum", "Import",
                "KartpackTestSupport", "MallocTuning",
            ]),
        .testTarget(
            name: "GeoPackageTests",
            dependencies: ["GeoPackage", "GeometryAlgorithms", "SQLiteStore", "KartpackCore", "KartpackTestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["KartpackJSON", "KartpackTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
for target in package.targets where target.type == .test {
    target.swiftSettings = (target.swiftSettings ?? []) + testCode
}

// Fuzzing (docs/fuzzing.md, scripts/fuzz-long.sh): libFuzzer targets when built with `-sanitize=fuzzer,address
// -DKARTPACK_FUZZING`, plain replayers of their input files in a normal build.
package.targets += [
    .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
    .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
    .executableTarget(
        name: "FuzzShapefile", dependencies: ["FuzzSupport", "KartpackCore", "Shapefile", "Reprojection"]),
    .executableTarget(
        name: "FuzzPackage",
        dependencies: [
            "FuzzSupport", "KartpackCore", "KartpackJSON", "Inspection", "TileArchive", "VectorTile", "Gzip",
        ]),
]
package.targets += [
    .executableTarget(name: "FuzzZip", dependencies: ["FuzzSupport", "KartpackCore", "Import"]),
    .executableTarget(name: "FuzzPipeline", dependencies: ["FuzzSupport", "PipelineFiles"]),
    .executableTarget(name: "FuzzStylesheet", dependencies: ["FuzzSupport", "KartpackCore", "Styling"]),
    .executableTarget(
        name: "FuzzGeoPackage", dependencies: ["FuzzSupport", "GeoPackage", "GeometryAlgorithms", "KartpackCore"]),
]
package.products += [
    .executable(name: "FuzzZip", targets: ["FuzzZip"]),
    .executable(name: "FuzzPipeline", targets: ["FuzzPipeline"]),
    .executable(name: "FuzzStylesheet", targets: ["FuzzStylesheet"]),
    .executable(name: "FuzzShapefile", targets: ["FuzzShapefile"]),
    .executable(name: "FuzzPackage", targets: ["FuzzPackage"]),
    .executable(name: "FuzzGeoPackage", targets: ["FuzzGeoPackage"]),
]
// The MapKit adapter of KartpackKit (docs/kartpack-kit.md): only where MapKit exists, so Linux never sees it.
#if os(macOS) || os(iOS)
    package.targets.append(.target(name: "KartpackKitMapKit", dependencies: ["KartpackKit"]))
    package.products.append(.library(name: "KartpackKitMapKit", targets: ["KartpackKitMapKit"]))
#endif
