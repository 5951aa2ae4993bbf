// swift-tools-version: 6.1
import PackageDescription

// Trove's benchmarks: a separate package, built in release by `Benchmarks/run`, so that the main
// package's `swift build` and `swift test` never compile them. Each scenario runs Trove and a
// baseline written directly on SQLite's C API in the same process, on the same file, and reports
// the ratio.
let package = Package(
    name: "TroveBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Trove", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "trove-bench",
            dependencies: [
                .product(name: "Trove", package: "Trove"),
                // SQLite's C API, for the baselines (the same SQLite library Trove links).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // GRDB's records, for the import scenario's GRDB baseline.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/TroveBenchmarks",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
