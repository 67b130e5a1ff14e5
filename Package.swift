// swift-tools-version: 6.0
// enbeacon: a GAEN (Exposure Notification) badge agent for Linux single-board computers.
// No Swift package dependencies: the toolchain's modules plus three C libraries every SBC
// distribution ships (OpenSSL libcrypto, zlib, libcurl), reached through system-library targets.
import PackageDescription

/// Release builds optimise for size: the static binary has a 10 MB budget, and -Osize costs the event-driven
/// code nothing a badge notices. The one hot loop, matching millions of diagnosis keys, is marked
/// `@_optimize(speed)` where it runs (`KeyMatcher.match`, the key schedule). `Tools/build-release.sh` links
/// with full LTO, which drops what nothing calls (about 450 KB).
let leanRuntime: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])]
let sizeOptimised: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))] + leanRuntime

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
        // Kernel interfaces missing from Glibc's module (adjtimex, signalfd, the GPIO character device); no library to link.
        .systemLibrary(name: "CLinux"),
        // Headers only: libcurl itself is loaded with dlopen while a transfer runs (Network/CurlLibrary).
        .systemLibrary(name: "CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The system edge: EINTR-safe calls, one error type, atomic files, serial line set-up.
        .target(name: "SystemIO", dependencies: ["CLinux"], swiftSettings: sizeOptimised),
        // Pure logic, no I/O: keys, payload, sightings, matching, risk, export files, JSON.
        .target(name: "ENCore", dependencies: ["COpenSSL", "CZlib"], swiftSettings: sizeOptimised),
        // The single-threaded cooperative loop: poll(2) + timer heap, or virtual time for simulation.
        .target(name: "EventLoop", dependencies: ["SystemIO"], swiftSettings: sizeOptimised),
        // HCI packets, H4 framing, transports, controller driver, virtual controller and radio.
        .target(name: "HCI", dependencies: ["ENCore", "EventLoop", "SystemIO"], swiftSettings: sizeOptimised),
        // Crash-safe ring log of sightings and the data-directory lock.
        .target(name: "Store", dependencies: ["ENCore", "CZlib", "SystemIO"], swiftSettings: sizeOptimised),
        // The one module that owns libcurl (loaded only while a transfer runs): the HTTP client both network
        // services go through, behind the one transport protocol (NetworkTransport) their tests substitute.
        // No badge logic.
        .target(name: "Network", dependencies: ["EventLoop", "SystemIO", "CCurl"], swiftSettings: sizeOptimised),
        // What the badge's services share, below them all: the clock and its trust, the `key = value`
        // configuration, the exposure log and the notification of exposures, the services' random numbers, the
        // retry policy of the network services.
        .target(name: "AgentBase", dependencies: ["ENCore", "EventLoop", "Store", "SystemIO"], swiftSettings: sizeOptimised),
        // Key download: every configured key server's exports fetched on a schedule (index or day listing, the
        // cursor, limits and retries), verified and matched against the sightings in slices on the loop.
        .target(name: "KeyDownload", dependencies: ["AgentBase", "ENCore", "EventLoop", "Network", "Store", "SystemIO"],
                swiftSettings: sizeOptimised),
        // Key share: the wearer's keys shared through the health authority (verification code, certificate,
        // publication, with retries and chaff), its record kept across restarts.
        .target(name: "KeyShare", dependencies: ["AgentBase", "ENCore", "EventLoop", "Network", "SystemIO"],
                swiftSettings: sizeOptimised),
        // The indicators: the LED, buzzer and button (GPIO character device lines, or virtual ones), the patterns
        // of the badge's state and its signals, the button's gestures. Told the badge's state by the agent
        // (IndicatorInputs); they know nothing of it.
        .target(name: "Indicators", dependencies: ["ENCore", "EventLoop", "SystemIO"], swiftSettings: sizeOptimised),
        // The composition root: the badge's radio, sightings and retention services made and wired on the loop,
        // with the key download, the key share and the indicators, and `AgentControl`, the one interface the
        // console, the metrics and the demo reach the badge through.
        .target(name: "Agent", dependencies: ["AgentBase", "Indicators", "KeyDownload", "KeyShare", "ENCore", "EventLoop", "HCI", "Network", "Store", "SystemIO"],
                swiftSettings: sizeOptimised),
        // The REPL (terminal, serial line, pipe), the unix socket for `enbeacon ctl`, and the commands.
        .target(name: "Console", dependencies: ["Agent", "AgentBase", "Indicators", "KeyDownload", "KeyShare", "ENCore", "EventLoop", "HCI", "SystemIO"],
                swiftSettings: sizeOptimised),
        // The badge's metrics for a fleet's monitoring: Prometheus' text format, written for node_exporter's
        // textfile collector. Reads the badge only through AgentControl.
        .target(name: "Metrics", dependencies: ["Agent", "AgentBase", "KeyDownload", "EventLoop", "SystemIO"], swiftSettings: sizeOptimised),
        // Badges and phones on a virtual radio: the virtual board, whole-agent simulations, the demo.
        .target(name: "Simulation", dependencies: ["Agent", "AgentBase", "Indicators", "Network", "ENCore", "EventLoop", "HCI", "Store", "SystemIO"],
                swiftSettings: sizeOptimised),
        .executableTarget(name: "enbeacon", dependencies: ["Agent", "AgentBase", "KeyDownload", "Network", "Console", "Metrics", "Simulation", "ENCore", "EventLoop", "HCI",
                                                           "Store", "SystemIO"],
                          swiftSettings: sizeOptimised),
        // Appends sightings and acknowledges each flush on stdout: the process the power-cut tests kill.
        .executableTarget(name: "enbeacon-store-writer", dependencies: ["Store", "Simulation"], path: "Tools/store-writer"),

        // What several test targets share: temporary directories, child processes, the test health authority.
        .target(name: "TestSupport", dependencies: ["EventLoop"], path: "Tests/Support"),
        // The key sync world (a key server's signed exports beside a badge's stored sightings) that the key
        // download's tests and the agent's share.
        .target(name: "KeySyncTestSupport", dependencies: ["TestSupport", "AgentBase", "KeyDownload", "ENCore", "EventLoop",
                                                           "Network", "Store"], path: "Tests/KeySyncSupport"),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO", "TestSupport"]),
        // Resources: third-party test data read by path (#filePath), not bundled.
        .testTarget(name: "ENCoreTests", dependencies: ["ENCore", "SystemIO", "TestSupport"], exclude: ["Resources"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "SystemIO"]),
        .testTarget(name: "HCITests", dependencies: ["HCI"]),
        .testTarget(name: "StoreTests", dependencies: ["TestSupport", "Store", "Simulation", "enbeacon-store-writer"]),
        .testTarget(name: "NetworkTests", dependencies: ["TestSupport", "Network", "EventLoop"]),
        .testTarget(name: "KeyDownloadTests", dependencies: ["TestSupport", "KeySyncTestSupport", "KeyDownload", "AgentBase",
                                                             "Network"]),
        .testTarget(name: "KeyShareTests", dependencies: ["TestSupport", "KeyShare", "AgentBase", "Network"]),
        .testTarget(name: "IndicatorsTests", dependencies: ["Indicators", "EventLoop", "SystemIO"]),
        .testTarget(name: "AgentTests", dependencies: ["TestSupport", "KeySyncTestSupport", "Agent", "AgentBase", "Indicators", "KeyDownload", "KeyShare", "Network", "Store", "Console", "Metrics",
                                                       "Simulation", "SystemIO"]),
        .testTarget(name: "ConsoleTests", dependencies: ["TestSupport", "AgentBase", "KeyShare", "Console", "Simulation", "SystemIO"]),
        .testTarget(name: "MetricsTests", dependencies: ["TestSupport", "KeyDownload", "Metrics", "Console", "Simulation"]),
        .testTarget(name: "SimulationTests", dependencies: ["TestSupport", "AgentBase", "KeyDownload", "Simulation", "Console"]),
        // Runs the built executable: exit codes, stdout and stderr exactly as scripts see them.
        .testTarget(name: "enbeaconTests", dependencies: ["enbeacon", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
