import Foundation
import Testing

/// `metrics.listen`: a real agent serving GET /metrics on 127.0.0.1 while 200 connections are held open and
/// 10,000 malformed requests arrive; the console keeps answering within a second throughout.
@Suite struct MetricsEndpointTests {
    @Test func heldConnectionsAndAFloodOfGarbageNeverStallTheConsole() throws {
        let agent = try RunningAgent(extraArguments: ["--set", "metrics.listen=127.0.0.1:0"])
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        try agent.process.wait(for: "the metrics endpoint", timeout: 30) { agent.process.stderr.contains("metrics: serving http://") }
        let line = try #require(agent.process.stderr.split(separator: "\n").first { $0.contains("metrics: serving http://127.0.0.1:") })
        let port = try #require(UInt16(line.split(separator: ":").last?.split(separator: "/").first ?? ""))

        let good = try Self.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: badge\r\n\r\n")
        #expect(good.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), "\(good.prefix(200))")
        #expect(good.contains("\n# TYPE enbeacon_broadcasting gauge\nenbeacon_broadcasting "))
        #expect(try Self.exchange(port: port, "GET /secret HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        #expect(try Self.exchange(port: port, "DELETE /metrics HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 405 "))

        // 200 connections that never send, held open; then 10,000 malformed requests, from another thread.
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<200 { held.append(try Self.connect(port)) }
        let flood = DispatchGroup()
        nonisolated(unsafe) var answeredBadly = 0
        flood.enter()
        Thread.detachNewThread {
            for i in 0..<10_000 {
                let garbage = i % 2 == 0 ? "\u{1}\u{2}garbage \(i)\r\n\r\n" : String(repeating: "A", count: 9000)
                if let answer = try? Self.exchange(port: port, garbage), answer.hasPrefix("HTTP/1.1 4") { answeredBadly += 1 }
            }
            flood.leave()
        }
        var slowest = 0.0
        var asked = 0
        repeat {
            let started = Date()
            let status = try agent.ctl(["status"])
            slowest = max(slowest, Date().timeIntervalSince(started))
            asked += 1
            #expect(status.status == 0, "\(status.stderr)")
        } while flood.wait(timeout: .now() + 0.2) == .timedOut
        print("metrics endpoint: 200 held connections, 10,000 malformed requests (\(answeredBadly) answered 4xx): "
              + "ctl status asked \(asked) times, slowest \(Int(slowest * 1000)) ms")
        #expect(slowest < 1)
        #expect(asked >= 3)
        #expect(answeredBadly > 9_000, "the garbage was answered and closed, not left hanging")
        #expect(try Self.exchange(port: port, "GET /metrics HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 200 OK\r\n"),
                "still served afterwards")
    }

    static func connect(_ port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// One request, the whole answer (until the server closes).
    static func exchange(port: UInt16, _ request: String) throws -> String {
        let fd = try connect(port)
        defer { close(fd) }
        _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
