import Foundation

/// Runs the `enbeacon` binary that `swift build` put next to the test bundle, or the one `ENBEACON_BINARY`
/// names: the board build's, or a script that runs it under qemu-user (`Tools/board/test-binary`), so the
/// executable-level tests hold the board's binary to what they hold the standard build's.
enum Enbeacon {
    static let binary: URL = {
        if let path = ProcessInfo.processInfo.environment["ENBEACON_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // The test bundle may sit inside a .xctest directory on some layouts.
        while !FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("enbeacon").path),
              dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("enbeacon")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

extension Enbeacon.Result {
    /// How every command answers a command line it cannot run: status 2, nothing on stdout, one line on stderr.
    var isOneLineUsageError: Bool { status == 2 && stdout.isEmpty && stderrLines.count == 1 }
}
