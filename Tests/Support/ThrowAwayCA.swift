import Foundation
import Glibc

/// A CA made with the openssl CLI for one test, and a server certificate for 127.0.0.1 signed by it.
public struct ThrowAwayCA {
    public let directory: String
    public var caFile: String { directory + "/ca.pem" }
    public var certificate: String { directory + "/server.pem" }
    public var key: String { directory + "/server.key" }

    public init(in parent: String) throws {
        directory = parent + "/tls"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let steps = [
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem"
                + " -days 2 -subj /CN=enbeacon-test-ca",
            "openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr"
                + " -subj /CN=127.0.0.1",
            "printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > server.ext",
            "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2"
                + " -extfile server.ext",
        ]
        for step in steps where try shell(step, in: directory) != 0 {
            throw TestFailure("openssl failed: \(step)")
        }
    }

    /// `openssl s_server -WWW` serving `root` (an independent HTTPS implementation), and its port.
    public func startOpenSSLServer(root: String) throws -> (ServerProcess, Int) {
        // s_server needs a fixed port: take a free one, retrying if another process grabbed it meanwhile.
        for _ in 0..<5 {
            let port = TestServers.closedPort()
            let server = try ServerProcess(["openssl", "s_server", "-WWW", "-accept", "127.0.0.1:\(port)",
                                            "-cert", certificate, "-key", key, "-quiet", "-naccept", "1000"],
                                           directory: root, stderrPath: directory + "/s_server.err")
            if waitForListener(port: port, timeout: .seconds(10)) { return (server, port) }
            server.kill()
        }
        throw TestFailure("openssl s_server did not start")
    }

    private func waitForListener(port: Int, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if connected { return true }
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
        }
        return false
    }
}
