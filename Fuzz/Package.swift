// swift-tools-version:6.0
import PackageDescription

// libFuzzer harnesses for vpspack's parsers. Build and run them with Scripts/fuzz;
// the build needs `-sanitize=fuzzer,address -parse-as-library -use-ld=lld`.
let package = Package(
    name: "vpspack-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "vpspack", path: "..")],
    targets: [
        // One binary; VPSFUZZ_TARGET picks the parser under test.
        .executableTarget(
            name: "VPSFuzz",
            dependencies: [
                .product(name: "PackFormat", package: "vpspack"),
                .product(name: "VPSImageIO", package: "vpspack"),
                .product(name: "VPSCrypto", package: "vpspack"),
                .product(name: "Localizer", package: "vpspack"),
                .product(name: "PackBuilder", package: "vpspack"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        ),
    ]
)
