// swift-tools-version: 6.1
import PackageDescription

/// Photomania: the Photos example as an app, written with typed classes only. The classes come
/// from Sources/Photomania/Photos.trove-model.json at build time, by Trove's build plugin.
let package = Package(
    name: "Photomania",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Trove", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "Photomania",
            dependencies: [.product(name: "Trove", package: "Trove")],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("InternalImportsByDefault")],
            plugins: [.plugin(name: "TroveGenerator", package: "Trove")]),
    ],
    swiftLanguageModes: [.v6]
)
