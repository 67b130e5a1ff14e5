// swift-tools-version: 6.0
// enbeacon: a GAEN (Exposure Notification) badge agent for Linux single-board computers.
// No Swift package dependencies: the toolchain's modules plus three C libraries every SBC
// distribution ships (OpenSSL libcrypto, zlib, libcurl), reached through system-library targets.
import PackageDescription

/// Release builds of everything but the matching core optimise for size: the static binary has a 10 MB
/// budget, and -Osize costs the event-driven code nothing a badge notices. ENCore keeps -O: matching
/// millions of diagnosis keys is the one hot loop (-Osize there cost ~7 % of `bench match`).
let sizeOptimised: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))]

let package = Package(
    name: "enbeacon",
    products: [
        .executable(name: "enbeacon", targets: ["enbeacon"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // Kernel interfaces missing from Glibc's module (adjtimex, signalfd); no library to link.
        .systemLibrary(name: "CLinux"),
        // Headers only: libcurl itself is loaded with dlopen while downloading (Agent/KeySync/CurlLibrary).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Pure logic, no I/O: key schedule, payload codec, matching, risk, export decoding.
        .target(name: "ENCore", dependencies: ["COpenSSL", "CZlib"]),
        // The single-threaded cooperative loop: poll(2) + timer heap, or virtual time for simulation.
        .target(name: "EventLoop", dependencies: ["CLinux"], swiftSettings: sizeOptimised),
        // HCI packets, H4 framing, transports, controller driver, virtual controller and radio.
        .target(name: "HCI", dependencies: ["ENCore", "EventLoop"], swiftSettings: sizeOptimised),
        // Crash-safe ring log and small atomic state files.
        .target(name: "Store", dependencies: ["ENCore", "CZlib"], swiftSettings: sizeOptimised),
        // Event loop, clock, services, console.
        .target(name: "Agent", dependencies: ["ENCore", "EventLoop", "HCI", "Store", "CCurl", "CLinux"], swiftSettings: sizeOptimised),
        .executableTarget(name: "enbeacon", dependencies: ["Agent"], swiftSettings: sizeOptimised),
        // Appends sightings and acknowledges each flush on stdout: the process the power-cut tests kill.
        .executableTarget(name: "enbeacon-store-writer", dependencies: ["Store"], path: "Tools/store-writer"),

        .testTarget(name: "ENCoreTests", dependencies: ["ENCore"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
        .testTarget(name: "HCITests", dependencies: ["HCI"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "enbeacon-store-writer"]),
        .testTarget(name: "AgentTests", dependencies: ["Agent"]),
        // Runs the built executable: exit codes, stdout and stderr exactly as scripts see them.
        .testTarget(name: "enbeaconTests", dependencies: ["enbeacon"]),
    ],
    swiftLanguageModes: [.v6]
)
