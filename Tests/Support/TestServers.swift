import Foundation
import Glibc

// Test servers as child processes: the HTTP client's tests and the key download's run against them.

/// A child process (a test server) whose stdout the test reads line by line; killed with SIGKILL when the
/// test lets go of it, since it may have inherited blocked SIGTERM/SIGINT from the loop tests.
public final class ServerProcess {
    public let process = Process()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    /// Every line read so far.
    public private(set) var lines: [String] = []

    public init(_ arguments: [String], directory: String? = nil, stderrPath: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        if let stderrPath {
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: stderrPath)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    deinit { kill() }

    public func kill() {
        guard process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The first line (of those not yet consumed) that contains `text`, or nil after `timeout`.
    public func waitForLine(containing text: String, timeout: Duration = .seconds(20)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                lines.append(line)
                if line.contains(text) { return line }
            }
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var poller = pollfd(fd: output.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress, $0.count) }
            if n > 0 { buffered += chunk[..<n] } else if n == 0 { return nil }
        }
    }
}

public enum TestServers {
    public static let keyServerScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/keyserver/keyserver.py").path

    /// `python3 -m http.server` on 127.0.0.1 serving `root` (on `port`, or one it chooses), and its port.
    public static func pythonHTTPServer(root: String, port: Int = 0) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["python3", "-u", "-m", "http.server", "\(port)", "--bind", "127.0.0.1",
                                        "--directory", root])
        guard let line = server.waitForLine(containing: "Serving HTTP"),
              let port = line.split(separator: " ").dropFirst(5).first.flatMap({ Int($0) }) else {
            throw TestFailure("python3 -m http.server did not start: \(server.lines)")
        }
        return (server, port)
    }

    /// Tools/keyserver/keyserver.py serving `root`, and the port it chose.
    public static func keyServer(root: String, arguments: [String] = []) throws -> (ServerProcess, Int) {
        let server = try ServerProcess(["python3", "-u", keyServerScript, "--root", root] + arguments)
        guard let line = server.waitForLine(containing: "port "), let port = Int(line.dropFirst(5)) else {
            throw TestFailure("keyserver.py did not start: \(server.lines)")
        }
        return (server, port)
    }

    /// A listening socket on 127.0.0.1 that nobody accepts from, and its port: connections complete (the
    /// kernel queues them) and then nothing is ever answered.
    public static func silentListener() -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A TCP port nobody listens on (bound, then released).
    public static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Runs `command` with /bin/sh and returns its exit status (setup steps: openssl, file preparation).
@discardableResult
public func shell(_ command: String, in directory: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
