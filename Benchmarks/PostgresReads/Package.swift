// swift-tools-version: 6.1
import PackageDescription

// Reads on one PostgresStore (issue 22), one thread against postgres-nio alone, then many
// threads at once: a package of its own, built in release by
// `Benchmarks/postgres-reads`, so that neither Trove's build nor the other benchmarks' build
// postgres-nio for it.
let package = Package(
    name: "PostgresReads",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Trove", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(name: "postgres-reads", dependencies: [
            .product(name: "Trove", package: "Trove"),
            .product(name: "TrovePostgres", package: "Trove"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
