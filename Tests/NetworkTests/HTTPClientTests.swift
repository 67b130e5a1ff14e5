import EventLoop
import Foundation
import Testing
import TestSupport
import Network

/// The libcurl multi client on a real PollLoop against real servers on 127.0.0.1.
@Suite struct HTTPClientTests {
    let folder = TemporaryDirectory()
    let loop = PollLoop()

    /// Fetches `url` and runs the loop until the answer arrives.
    func fetch(_ url: String, maximumBytes: Int = 1 << 20, client: HTTPClient? = nil,
               configure: (inout HTTPClient.Request) -> Void = { _ in }) throws -> Result<[UInt8], HTTPClient.Failure> {
        let client = try client ?? HTTPClient(loop: loop)
        var request = HTTPClient.Request(url: url, maximumBytes: maximumBytes)
        configure(&request)
        var result: Result<[UInt8], HTTPClient.Failure>?
        client.get(request) { result = $0 }
        #expect(loop.run(until: { result != nil }), "no answer from \(url)")
        #expect(client.activeTransfers == 0)
        return try #require(result)
    }

    func write(_ bytes: [UInt8], _ name: String) {
        _ = FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data(bytes))
    }

    static func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    @Test func bodyArrivesExactly() throws {
        let body = Self.randomBytes(300_000)
        write(body, "export.zip")
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        #expect(try fetch("http://127.0.0.1:\(port)/export.zip") == .success(body))
    }

    @Test func severalTransfersRunAtOnce() throws {
        let bodies = (0..<4).map { _ in Self.randomBytes(50_000) }
        for (i, body) in bodies.enumerated() { write(body, "f\(i)") }
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        let client = try HTTPClient(loop: loop)
        var results: [Int: Result<[UInt8], HTTPClient.Failure>] = [:]
        for i in bodies.indices {
            client.get(.init(url: "http://127.0.0.1:\(port)/f\(i)", maximumBytes: 1 << 20)) { results[i] = $0 }
        }
        #expect(loop.run(until: { results.count == bodies.count }))
        for i in bodies.indices { #expect(results[i] == .success(bodies[i])) }
    }

    @Test func missingFileIsAStatusError() throws {
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        #expect(try fetch("http://127.0.0.1:\(port)/absent.zip") == .failure(.httpStatus(404)))
    }

    @Test func serverErrorIsAStatusError() throws {
        write([1, 2, 3], "busy")
        let (server, port) = try TestServers.keyServer(root: folder.path, arguments: ["--fail", "/busy=1:503"])
        defer { server.kill() }
        #expect(try fetch("http://127.0.0.1:\(port)/busy") == .failure(.httpStatus(503)))
        #expect(try fetch("http://127.0.0.1:\(port)/busy") == .success([1, 2, 3]))
    }

    @Test func responseOverTheCapIsAborted() throws {
        write(Self.randomBytes(100_000), "big.zip")
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        // Announced by Content-Length: refused before the body.
        #expect(try fetch("http://127.0.0.1:\(port)/big.zip", maximumBytes: 99_999) == .failure(.tooLarge(limit: 99_999)))
        #expect(try fetch("http://127.0.0.1:\(port)/big.zip", maximumBytes: 100_000).get().count == 100_000)
    }

    @Test func responseOverTheCapWithoutLengthIsAborted() throws {
        // openssl s_server -WWW answers HTTP/1.0 without Content-Length: the cap must hold while streaming.
        write(Self.randomBytes(200_000), "big.zip")
        let tls = try ThrowAwayCA(in: folder.path)
        let (server, port) = try tls.startOpenSSLServer(root: folder.path)
        defer { server.kill() }
        let result = try fetch("https://127.0.0.1:\(port)/big.zip", maximumBytes: 10_000) { $0.caFile = tls.caFile }
        #expect(result == .failure(.tooLarge(limit: 10_000)))
    }

    @Test func refusedConnectionIsATransportError() throws {
        let port = TestServers.closedPort()
        guard case .failure(.transport(let text)) = try fetch("http://127.0.0.1:\(port)/index.txt") else {
            Issue.record("expected a transport error")
            return
        }
        #expect(text.contains("127.0.0.1"))
    }

    @Test func fileURLsAreRead() throws {
        let body = Self.randomBytes(10_000)
        write(body, "index.txt")
        #expect(try fetch("file://\(folder.path)/index.txt") == .success(body))
        #expect(try fetch("file://\(folder.path)/index.txt", maximumBytes: 100) == .failure(.tooLarge(limit: 100)))
        #expect(try fetch("file://\(folder.path)/absent") == .failure(.httpStatus(404)))
    }

    @Test func droppedConnectionMidFileIsATransportError() throws {
        write(Self.randomBytes(400_000), "export.zip")
        let (server, port) = try TestServers.keyServer(root: folder.path, arguments: ["--drop", "/export.zip=1"])
        defer { server.kill() }
        guard case .failure(.transport(let text)) = try fetch("http://127.0.0.1:\(port)/export.zip") else {
            Issue.record("expected a transport error")
            return
        }
        #expect(!text.isEmpty)
        // The next request is whole again.
        #expect(try fetch("http://127.0.0.1:\(port)/export.zip").get().count == 400_000)
    }

    @Test func httpsNeedsTheRightCA() throws {
        let body = Self.randomBytes(5_000)
        write(body, "index.txt")
        let tls = try ThrowAwayCA(in: folder.path)
        let (server, port) = try tls.startOpenSSLServer(root: folder.path)
        defer { server.kill() }
        let url = "https://127.0.0.1:\(port)/index.txt"
        guard case .failure(.transport(let text)) = try fetch(url) else {
            Issue.record("a server signed by an unknown CA must be refused")
            return
        }
        #expect(text.lowercased().contains("certificate"))
        #expect(try fetch(url) { $0.caFile = tls.caFile } == .success(body))
    }

    @Test func clientReleasedMidTransferLeavesTheLoopClean() throws {
        // A server that accepts connections (the kernel does) and never answers: the transfer stays in flight.
        let (listener, port) = TestServers.silentListener()
        defer { close(listener) }
        var client: HTTPClient? = try HTTPClient(loop: loop)
        var called = false
        client?.get(.init(url: "http://127.0.0.1:\(port)/never", maximumBytes: 1 << 20)) { _ in called = true }
        var waited = false
        loop.schedule(after: .milliseconds(50)) { waited = true }
        #expect(loop.run(until: { waited }))
        #expect(client?.activeTransfers == 1)
        // The transfer's socket must not leak into a spawned notify command.
        let sockets = (0..<Int32(4096)).filter { fd in
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let found = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
            }
            return found && peer.sin_family == sa_family_t(AF_INET) && Int(UInt16(bigEndian: peer.sin_port)) == port
        }
        #expect(sockets.count == 1)
        #expect(sockets.allSatisfy { fcntl($0, F_GETFD) & FD_CLOEXEC != 0 })
        client = nil
        var ticked = false
        loop.schedule(after: .milliseconds(50)) { ticked = true }
        #expect(loop.run(until: { ticked }))
        #expect(!called)
    }

    /// Downloads `url` into a file of the folder and runs the loop until the answer arrives.
    func download(_ url: String, maximumBytes: Int = 1 << 20,
                  configure: (inout HTTPClient.Request) -> Void = { _ in }) throws -> (Result<Int, HTTPClient.Failure>, [UInt8]) {
        let client = try HTTPClient(loop: loop)
        let path = folder.path + "/download-\(UUID().uuidString)"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        defer { close(fd) }
        var request = HTTPClient.Request(url: url, maximumBytes: maximumBytes)
        configure(&request)
        var result: Result<Int, HTTPClient.Failure>?
        client.download(request, to: fd, path: path) { result = $0 }
        #expect(loop.run(until: { result != nil }, timeout: .seconds(30)), "no answer from \(url)")
        return (try #require(result), Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    @Test func downloadsGoStraightToAFile() throws {
        let body = Self.randomBytes(2_000_000)
        write(body, "export.zip")
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        let (result, written) = try download("http://127.0.0.1:\(port)/export.zip", maximumBytes: 4_000_000)
        #expect(result == .success(2_000_000) && written == body)
        #expect(try download("http://127.0.0.1:\(port)/export.zip", maximumBytes: 1_000_000).0
                == .failure(.tooLarge(limit: 1_000_000)))
    }

    /// Issue 12, findings 5 and 9: a redirect is followed only to the request's own scheme, host and port —
    /// never to a local file, another port or another server — and only so many times.
    @Test func redirectsAreFollowedOnlyWithinTheOrigin() throws {
        let body = Self.randomBytes(50_000)
        write(body, "real.zip")
        let other = TestServers.closedPort()
        let (server, port) = try TestServers.keyServer(root: folder.path, arguments: [
            "--redirect", "/moved.zip=/real.zip", "--redirect", "/local.zip=file:///etc/passwd",
            "--redirect", "/port.zip=http://127.0.0.1:\(other)/real.zip", "--redirect", "/loop.zip=/loop.zip",
            "--redirect", "/upgrade.zip=https://127.0.0.1/real.zip",
        ])
        defer { server.kill() }
        let base = "http://127.0.0.1:\(port)"
        let (moved, written) = try download(base + "/moved.zip")
        #expect(moved == .success(50_000) && written == body, "the redirect's own body is not the file")
        #expect(try fetch(base + "/moved.zip") == .success(body))
        #expect(try fetch(base + "/local.zip") == .failure(.redirectRefused(to: "file:///etc/passwd")))
        #expect(try fetch(base + "/port.zip") == .failure(.redirectRefused(to: "http://127.0.0.1:\(other)/real.zip")))
        #expect(try fetch(base + "/upgrade.zip") == .failure(.redirectRefused(to: "https://127.0.0.1/real.zip")))
        #expect(try fetch(base + "/loop.zip") { $0.maximumRedirects = 3 } == .failure(.tooManyRedirects(limit: 3)))
        #expect(try fetch(base + "/moved.zip") { $0.maximumRedirects = 0 } == .failure(.tooManyRedirects(limit: 0)))
    }

    /// Issue 12, finding 5: a server that drips a byte a second is abandoned once the rate stays below the
    /// minimum for the window, as a network error; a Content-Length the body does not reach is one too.
    @Test func slowAndShortResponsesAreNetworkErrors() throws {
        write(Self.randomBytes(10_000), "slow.zip")
        write(Self.randomBytes(10_000), "short.zip")
        let (server, port) = try TestServers.keyServer(root: folder.path, arguments: [
            "--drip", "/slow.zip=1", "--wrong-length", "/short.zip=+1000",
        ])
        defer { server.kill() }
        let slow = try fetch("http://127.0.0.1:\(port)/slow.zip") {
            $0.minimumRate = 100
            $0.minimumRateWindow = .seconds(1)
        }
        guard case .failure(.transport(let reason)) = slow else {
            Issue.record("a dripping server must be abandoned: \(slow)")
            return
        }
        #expect(reason.lowercased().contains("too slow"), "\(reason)")
        guard case .failure(.transport(let short)) = try fetch("http://127.0.0.1:\(port)/short.zip") else {
            Issue.record("a body shorter than its Content-Length must fail")
            return
        }
        #expect(short.contains("1000 bytes remaining"), "\(short)")
        // Fast enough for the rate, too slow for the whole transfer's time limit.
        let late = try fetch("http://127.0.0.1:\(port)/slow.zip") { $0.timeout = .seconds(1) }
        guard case .failure(.transport(let timedOut)) = late else {
            Issue.record("a download over its time limit must be abandoned: \(late)")
            return
        }
        #expect(timedOut.lowercased().contains("timed out"), "\(timedOut)")
    }

    @Test func cancelledTransferNeverCompletes() throws {
        write(Self.randomBytes(1000), "a")
        let (server, port) = try TestServers.pythonHTTPServer(root: folder.path)
        defer { server.kill() }
        let client = try HTTPClient(loop: loop)
        var called = false
        let transfer = client.get(.init(url: "http://127.0.0.1:\(port)/a", maximumBytes: 1 << 20)) { _ in called = true }
        transfer?.cancel()
        #expect(client.activeTransfers == 0)
        var second: Result<[UInt8], HTTPClient.Failure>?
        client.get(.init(url: "http://127.0.0.1:\(port)/a", maximumBytes: 1 << 20)) { second = $0 }
        #expect(loop.run(until: { second != nil }))
        #expect(!called)
    }
}

/// libcurl is mapped only while downloads are under way.
@Suite struct HTTPClientLibraryLifetimeTests {
    @Test func libcurlIsLoadedForATransferAndUnloadedWhenIdle() throws {
        let loop = VirtualLoop()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-curl-\(UUID().uuidString)")
        try Data("index line\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let client = try HTTPClient(loop: loop, idleUnload: .seconds(30))
        #expect(!client.isLibraryLoaded)
        var body: [UInt8]?
        client.get(HTTPClient.Request(url: "file://" + file.path, maximumBytes: 1024)) { result in
            body = try? result.get()
        }
        #expect(client.isLibraryLoaded)
        loop.run(for: .seconds(1))
        #expect(body.map { String(decoding: $0, as: UTF8.self) } == "index line\n")
        #expect(client.isLibraryLoaded, "kept for the next file of the same sync")
        loop.run(for: .seconds(30))
        #expect(!client.isLibraryLoaded, "released 30 s after the last transfer")
    }
}

/// POSTs to the test health authority (Tools/healthauthority): the body and headers arrive as sent, any status
/// comes back with its body, and a refused connection is a transport failure.
@Suite(.enabled(if: HealthAuthorityTestServer.isAvailable,
                "Python's cryptography package is missing (pip install cryptography): skipping"))
struct HTTPClientPostTests {
    let loop = PollLoop()

    func post(_ client: HTTPClient, _ url: String, _ body: String, _ headers: [String]) -> Result<HTTPClient.Response, HTTPClient.Failure>? {
        var result: Result<HTTPClient.Response, HTTPClient.Failure>?
        client.post(.init(url: url, maximumBytes: 1 << 20), .init(body: Array(body.utf8), headers: headers)) { result = $0 }
        #expect(loop.run(until: { result != nil }), "no answer from \(url)")
        return result
    }

    @Test func bodyAndHeadersArriveAndEveryStatusComesBackWithItsBody() throws {
        let server = try HealthAuthorityTestServer()
        let client = try HTTPClient(loop: loop, idleUnload: .milliseconds(100))
        let verify = server["verify_url"]
        let json = "Content-Type: application/json"

        // 401 without the API key: the status and the body, not a failure.
        let unauthorized = try #require(post(client, verify, #"{"code":"12345678","padding":""}"#, [json]))
        let answer = try unauthorized.get()
        #expect(answer.status == 401)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("unauthorized"))

        // 400 with the API's error code in the body; a body of 5,000 bytes goes out whole (no 100-continue wait).
        let padding = String(repeating: "A", count: 5_000 - 32)
        let body = #"{"code":"12345678","padding":"\#(padding)"}"#
        let refused = try #require(post(client, verify, body, [json, "X-API-Key: " + server["api_key"]])).get()
        let refusal = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 400)
        #expect(refusal.contains("code_invalid"))

        // A chaff header reaches the server; its answer (not JSON) comes back as it is.
        let chaff = try post(client, verify, body, [json, "X-API-Key: " + server["api_key"], "X-Chaff: 1"])?.get()
        #expect(chaff?.status == 200 && (chaff?.body.count ?? 0) >= 1000)

        let records = try server.requests()
        #expect(records.count == 3)
        #expect(records.map { $0["bodyBytes"] as? Int ?? 0 } == [32, body.utf8.count, body.utf8.count])
        #expect(records.map { $0["method"] as? String ?? "" } == ["POST", "POST", "POST"])
        #expect(records.map { $0["chaff"] as? Bool ?? true } == [false, false, true])
        #expect(records[1]["body"] as? String == body)

        // Nobody listening: a transport failure, which the key share retries.
        let closed = post(client, "http://127.0.0.1:\(TestServers.closedPort())/api/verify", "{}", [json])
        guard case .failure(.transport)? = closed else {
            Issue.record("a refused connection is a transport failure: \(String(describing: closed))")
            return
        }
        #expect(client.activeTransfers == 0)
        #expect(loop.run(until: { !client.isLibraryLoaded }), "libcurl is let go once the POSTs are done")
    }
}
