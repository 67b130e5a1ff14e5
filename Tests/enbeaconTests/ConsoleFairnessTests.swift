import Foundation
import Testing

/// Nobody can lock staff out of a running agent's console: idle connections give way, and the agent's own
/// console (stdin or a serial line) is never one of the socket's connections.
@Suite struct ConsoleFairnessTests {
    /// Before, the first 8 idle connections took every slot and `ctl status` was refused as busy.
    @Test func twentyIdleConnectionsKeepNeitherCtlNorTheOwnConsoleOut() throws {
        let agent = try RunningAgent(pipedConsole: true)
        defer { try? FileManager.default.removeItem(atPath: agent.directory) }
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<20 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            try #require(Self.connect(fd, to: agent.data + "/console.sock"))
            idle.append(fd)
        }

        let status = try agent.ctl(["status"])
        #expect(status.status == 0, "stderr: \(status.stderr)")
        #expect(status.stdout.contains("broadcasting yes"))

        agent.process.writeInput(Array("status\n".utf8))
        try agent.process.wait(for: "status on the agent's stdin", timeout: 10) {
            agent.process.stdout.contains("broadcasting yes")
        }

        // The first idle connection made room for a later one, and was told why.
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var answer = [UInt8](repeating: 0, count: 512)
        let count = answer.withUnsafeMutableBytes { recv(idle[0], $0.baseAddress, $0.count, 0) }
        #expect(String(decoding: answer.prefix(max(count, 0)), as: UTF8.self)
                == "error\nclosed: 8 console connections were open and this one had sent no command\n")
    }

    static func connect(_ fd: Int32, to path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }
}
