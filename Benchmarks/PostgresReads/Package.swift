// swift-tools-version: 6.1
import PackageDescription

// Concurrent reads on one PostgresStore (issue 22): a package of its own, built in release by
// `Benchmarks/postgres-reads`, so that neither Trove's build nor the other benchmarks' build
// postgres-nio for it.
let package = Package(
    name: "PostgresReads",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Trove", path: "../..")],
    targets: [
        .executableTarget(name: "postgres-reads", dependencies: [
            .product(name: "Trove", package: "Trove"),
            .product(name: "TrovePostgres", package: "Trove"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
