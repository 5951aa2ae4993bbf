// swift-tools-version: 6.1
import PackageDescription

/// Settings shared by every target: Swift 6 language mode is the package default; these add the
/// upcoming features we hold ourselves to.
let sharedSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Trove",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Trove", targets: ["Trove"]),
        .executable(name: "trove", targets: ["TroveCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "TroveModel", swiftSettings: sharedSettings),
        .target(
            name: "TroveStore",
            dependencies: ["TroveModel", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "GRDBSQLite", package: "GRDB.swift"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: sharedSettings),
        .target(name: "TroveContext", dependencies: ["TroveModel", "TroveStore"], swiftSettings: sharedSettings),
        .target(name: "TroveImport", dependencies: ["TroveModel", "TroveStore", "TroveContext"], swiftSettings: sharedSettings),
        .target(
            name: "Trove", dependencies: ["TroveModel", "TroveStore", "TroveContext", "TroveImport"],
            swiftSettings: sharedSettings),
        .executableTarget(
            name: "TroveCLI",
            dependencies: ["Trove", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: sharedSettings),
        .target(name: "TroveTesting", dependencies: ["Trove"], swiftSettings: sharedSettings),
        .testTarget(name: "TroveModelTests", dependencies: ["TroveModel", "TroveTesting"], swiftSettings: sharedSettings),
        .testTarget(name: "TroveStoreTests", dependencies: ["TroveStore", "TroveTesting"], swiftSettings: sharedSettings),
        .testTarget(name: "TroveContextTests", dependencies: ["TroveContext", "TroveTesting", "TroveCLI"], swiftSettings: sharedSettings),
        .testTarget(name: "TroveImportTests", dependencies: ["TroveImport", "TroveTesting"], swiftSettings: sharedSettings),
        .testTarget(name: "TroveCLITests", dependencies: ["TroveTesting", "TroveCLI"], swiftSettings: sharedSettings),
    ],
    swiftLanguageModes: [.v6]
)
