import Foundation
import Glibc

/// Tools/healthauthority/healthauthority.py as a child process: the verification server, the key server and
/// the control listener on 127.0.0.1, with the servers' clock set where a test needs it. Killed (SIGKILL)
/// when the test lets go of it; `--seconds` is the safety net if the test process dies first.
public final class HealthAuthorityTestServer {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/healthauthority/healthauthority.py").path

    /// Whether the servers can run here: they need Python's `cryptography` (CI installs it).
    public static let isAvailable: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import cryptography"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Why tests that need the servers skip, for `.enabled(if:_:)`.
    public static let unavailableReason = "Python's cryptography package is missing (pip install cryptography): skipping"

    public let process = Process()
    /// The JSON line the server printed once it listened (`verification_url`, `publish_url`, `api_key`, …).
    public let ready: [String: Any]

    /// Starts the servers with their clock at `now` (Unix seconds); `arguments` are more `serve` options.
    public init(now: Int64? = nil, arguments: [String] = [], seconds: Int = 600) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.script, "serve", "--seconds", String(seconds)]
            + (now.map { ["--now", String($0)] } ?? []) + arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = stdout.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw TestFailure("healthauthority.py exited before it listened") }
            line += chunk
        }
        ready = try JSONSerialization.jsonObject(with: line.prefix { $0 != 0x0A }) as? [String: Any] ?? [:]
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public subscript(name: String) -> String { ready[name] as? String ?? "" }

    /// A request to one of the API services, as a client other than the badge would send it.
    public func post(_ url: String, _ body: String, headers: [String: String]) throws -> (status: Int, body: [UInt8]) {
        try PlainHTTP.request("POST", url, headers: headers, body: Array(body.utf8))
    }

    /// A call of the control listener's `/_test/…` API; its JSON answer.
    @discardableResult
    public func control(_ method: String, _ path: String, _ body: String = "{}") throws -> [String: Any] {
        let answer = try PlainHTTP.request(method, self["control_url"] + path, headers: ["Content-Type": "application/json"],
                                           body: method == "POST" ? Array(body.utf8) : [])
        guard answer.status == 200 else {
            throw TestFailure("\(method) \(path): HTTP \(answer.status): \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] ?? [:]
    }

    /// A new code (`spec`: the members of `POST /_test/codes`).
    public func issueCode(_ spec: String = "{}") throws -> String {
        try control("POST", "/_test/codes", spec)["code"] as? String ?? ""
    }

    /// Every request the API services received after `since` (their `seq`), oldest first.
    public func requests(since: Int = 0) throws -> [[String: Any]] {
        try control("GET", "/_test/requests?since=\(since)")["requests"] as? [[String: Any]] ?? []
    }

    /// Moves the servers' clock to `unixSeconds`; it runs on from there in real time.
    public func setClock(_ unixSeconds: Int64) throws {
        try control("POST", "/_test/clock", #"{"now": \#(unixSeconds)}"#)
    }

    /// Injects a failure (the members of `POST /_test/faults`).
    public func fault(_ spec: String) throws {
        try control("POST", "/_test/faults", spec)
    }

    public func clearFaults() throws {
        try control("POST", "/_test/faults/clear")
    }

    /// The keys the key server stores, each as its JSON object (`key` in base64, `rollingStartNumber`, …).
    public func published() throws -> [[String: Any]] {
        try control("GET", "/_test/published")["keys"] as? [[String: Any]] ?? []
    }
}

/// HTTP/1.1 over a plain socket to 127.0.0.1: enough for a server that closes every connection after its answer.
public enum PlainHTTP {
    public static func request(_ method: String, _ url: String, headers: [String: String],
                               body: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        let rest = url.dropFirst("http://".count)
        let hostPort = rest.prefix { $0 != "/" }
        let path = String(rest.dropFirst(hostPort.count))
        guard let port = UInt16(hostPort.split(separator: ":").last ?? "") else { throw TestFailure("bad URL \(url)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw TestFailure("connect \(url): errno \(errno)") }
        var head = "\(method) \(path.isEmpty ? "/" : path) HTTP/1.1\r\nHost: \(hostPort)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw TestFailure("send: errno \(errno)") }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[..<n]
        }
        guard let end = answer.indices.first(where: { answer[$0...].starts(with: [13, 10, 13, 10]) }) else {
            throw TestFailure("no HTTP answer from \(url)")
        }
        let statusLine = String(decoding: answer[..<end], as: UTF8.self).split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestFailure("bad status line") }
        return (status, Array(answer[(end + 4)...]))
    }
}
