// swift-tools-version:6.0
import PackageDescription

// Every Swift target builds in Swift 6 language mode with these upcoming features.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "vpspack",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "vpspack", targets: ["vpspack"]),
        .library(name: "PackStore", targets: ["PackStore"]),
        .library(name: "Localizer", targets: ["Localizer"]),
        // For the fuzz package in Fuzz/, which depends on this one by path.
        .library(name: "PackFormat", targets: ["PackFormat"]),
        .library(name: "VPSImageIO", targets: ["VPSImageIO"]),
        .library(name: "VPSCrypto", targets: ["VPSCrypto"]),
        .library(name: "PackBuilder", targets: ["PackBuilder"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped exactly once below.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Thin Swift layer: owns C handles, turns C errors into typed Swift errors.
        .target(name: "VPSSQLite", dependencies: ["CSQLite"]),
        .target(name: "VPSCrypto", dependencies: ["COpenSSL"]),
        .target(name: "VPSArchive", dependencies: ["CLibArchive"]),
        .target(name: "VPSImageIO", dependencies: ["CJPEG", "CPNG"]),

        // Pack format: manifest, offer envelope, map binary layout, archive reader/writer.
        .target(name: "PackFormat", dependencies: ["VPSCrypto", "VPSArchive"]),
        // Store: SQLite catalog and content, atomic commit, verify, remove, attachments.
        .target(name: "PackStore", dependencies: ["PackFormat", "VPSSQLite", "VPSCrypto"]),
        // Transport: offers and archives from a directory or HTTP(S), resume, progress, trust.
        .target(name: "PackTransport", dependencies: ["PackStore", "PackFormat", "VPSCrypto", "CCurl"]),
        // Vision: decoding, features, matching, pose. Never depends on PackTransport.
        .target(name: "Localizer", dependencies: ["PackFormat", "VPSImageIO"]),
        // Building: synthetic venues, transforms.json and COLMAP importers, pack writer.
        .target(name: "PackBuilder", dependencies: ["Localizer", "PackFormat", "VPSImageIO", "VPSCrypto"]),

        // The command-line tool: argument parsing, output formatting, exit codes.
        .executableTarget(
            name: "vpspack",
            dependencies: ["PackStore", "PackTransport", "Localizer", "PackBuilder", "PackFormat", "VPSCrypto"]
        ),

        // Fixtures shared by the test targets (deterministic bytes, hand-made archives).
        .target(name: "TestSupport", dependencies: ["VPSArchive"], path: "Tests/Support"),

        .testTarget(name: "PackFormatTests", dependencies: ["PackFormat", "VPSCrypto", "VPSArchive", "TestSupport"]),
        .testTarget(name: "PackStoreTests", dependencies: ["PackStore", "PackFormat", "VPSSQLite", "VPSCrypto", "VPSArchive", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["PackTransport", "PackStore", "PackFormat", "VPSCrypto", "TestSupport"]),
        .testTarget(name: "LocalizerTests", dependencies: ["Localizer", "PackFormat", "VPSImageIO", "PackBuilder"]),
        .testTarget(name: "BuilderTests", dependencies: ["PackBuilder", "Localizer", "PackFormat", "VPSImageIO"]),
        .testTarget(name: "CLITests", dependencies: ["PackFormat", "PackStore", "VPSCrypto", "VPSImageIO", "TestSupport"]),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
