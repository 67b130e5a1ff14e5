import CCurl
import EventLoop
import SystemIO

/// HTTP(S) and file:// downloads, and JSON POSTs to the health authority, through libcurl's multi interface,
/// serviced by the event loop.
///
/// libcurl says which sockets to watch (socket callback) and when to wake it (timer callback); the loop
/// watches and wakes, and calls `curl_multi_socket_action`. Nothing blocks: a stalled key server costs a
/// watched descriptor and a timer, never the radio. Proxies come from the usual environment variables
/// (`https_proxy`, `no_proxy`), which libcurl reads itself; certificates from the system CA store or a
/// configured CA file.
///
/// Every transfer is bounded: its size, its total time, a minimum rate, and its redirects, which are
/// followed here rather than by libcurl so that each can be checked — same scheme, host and port as the
/// request, never another server and never a local file. A body goes to memory (`get`, for listings) or
/// straight to a file descriptor (`download`, for exports), so memory never depends on what a server sends.
///
/// A POST (`post`, for a key share's API calls) sends a body with its own headers and answers with the status
/// and body whatever the status: the health authority's refusals are JSON documents the badge must read. It
/// follows no redirect: an API that redirects a request carrying a code, a token or keys is misconfigured,
/// and the body must not go anywhere but where `share.*` says.
public final class HTTPClient {
    private let loop: any EventLoop
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    private var watches: [Int32: WatchHandle] = [:]
    private var timer: TimerHandle?
    private let userAgent: String
    /// libcurl and its multi handle exist only while there is work: created by the first `get`, released
    /// `idleUnload` after the last transfer ends (see `CurlLibrary` for why).
    private(set) var curl: CurlLibrary?
    private var multiHandle: UnsafeMutableRawPointer?
    private let idleUnload: Duration
    private var idleTimer: TimerHandle?

    public init(loop: any EventLoop, userAgent: String = "enbeacon", idleUnload: Duration = .seconds(30)) throws(Failure) {
        self.loop = loop
        self.userAgent = userAgent
        self.idleUnload = idleUnload
    }

    deinit { unload() }

    /// Whether libcurl is loaded right now.
    public var isLibraryLoaded: Bool { curl != nil }

    /// The library and multi handle, loading them if needed.
    private func session() throws(Failure) -> (CurlLibrary, UnsafeMutableRawPointer) {
        if let idleTimer { loop.cancel(idleTimer) }
        idleTimer = nil
        if let curl, let multiHandle { return (curl, multiHandle) }
        let library = try CurlLibrary()
        guard let multi = library.multiInit() else { throw .transport("libcurl could not create a multi handle") }
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = enb_curl_multi_set_callbacks(library.multiSetopt, multi, { _, socket, what, userdata, _ in
            guard let userdata else { return 0 }
            Unmanaged<HTTPClient>.fromOpaque(userdata).takeUnretainedValue().socketChanged(socket, what)
            return 0
        }, { _, milliseconds, userdata in
            guard let userdata else { return 0 }
            Unmanaged<HTTPClient>.fromOpaque(userdata).takeUnretainedValue().timerChanged(milliseconds)
            return 0
        }, me)
        curl = library
        multiHandle = multi
        return (library, multi)
    }

    /// Tears the multi handle down and lets go of libcurl.
    private func unload() {
        if let idleTimer { loop.cancel(idleTimer) }
        idleTimer = nil
        guard let curl, let multi = multiHandle else { return }
        // Removing handles calls the socket and timer callbacks; they must not reach an object being torn down.
        _ = enb_curl_multi_set_callbacks(curl.multiSetopt, multi, nil, nil, nil)
        for transfer in transfers.values {
            _ = curl.multiRemoveHandle(multi, transfer.easy)
            curl.easyCleanup(transfer.easy)
            curl.slistFreeAll(transfer.headerList)
            transfer.headerList = nil
        }
        for transfer in transfers.values { transfer.client = nil }
        transfers.removeAll()
        for watch in watches.values { loop.unwatch(watch) }
        watches.removeAll()
        if let timer { loop.cancel(timer) }
        timer = nil
        _ = curl.multiCleanup(multi)
        multiHandle = nil
        self.curl = nil
    }

    private func scheduleUnloadIfIdle() {
        guard transfers.isEmpty, curl != nil, idleTimer == nil else { return }
        // The loop holds the client until this fires or `unload` cancels it (no weak references: see README's
        // board build); the same holds for every watch and timer below.
        idleTimer = loop.schedule(after: idleUnload) { [self] in
            self.idleTimer = nil
            if self.transfers.isEmpty { self.unload() }
        }
    }

    public var activeTransfers: Int { transfers.count }

    /// Lets go of libcurl now if no transfer is under way, rather than after `idleUnload`: for a caller about
    /// to spend a while on other work (checking and matching a large export), whose peak memory should not
    /// be libcurl's and its own at once. The next transfer loads it again.
    public func unloadIfIdle() {
        guard transfers.isEmpty, curl != nil else { return }
        if let idleTimer { loop.cancel(idleTimer) }
        // On the next turn, not now: the caller may be inside a transfer's completion, with libcurl's
        // message loop still to return to.
        idleTimer = loop.schedule(after: .zero) { [self] in
            self.idleTimer = nil
            if self.transfers.isEmpty { self.unload() }
        }
    }

    /// Starts a GET whose body is kept in memory (a listing); `completion` runs on the loop with the body
    /// or the reason it failed.
    @discardableResult
    public func get(_ request: Request, completion: @escaping (Result<[UInt8], Failure>) -> Void) -> Transfer? {
        var request = request
        request.post = nil
        return start(request, sink: .memory([])) { result in
            completion(result.map { received in
                if case .memory(let bytes) = received.sink { return bytes }
                return []
            })
        }
    }

    /// Starts a POST of `post` to `request.url`; `completion` runs on the loop with the status and body of the
    /// answer, whatever the status, or the reason there was none (`transport`: refused, reset, timed out).
    @discardableResult
    public func post(_ request: Request, _ post: Post, completion: @escaping (Result<Response, Failure>) -> Void) -> Transfer? {
        var request = request
        request.post = post
        return start(request, sink: .memory([])) { result in
            completion(result.map { received in
                if case .memory(let bytes) = received.sink { return Response(status: received.status, body: bytes) }
                return Response(status: received.status, body: [])
            })
        }
    }

    /// Starts a GET whose body is written to `descriptor` (an empty file opened for writing; `path` names it in
    /// errors); `completion` runs on the loop with the number of bytes written or the reason it failed. The
    /// file holds the body only after success.
    @discardableResult
    public func download(_ request: Request, to descriptor: Int32, path: String,
                         completion: @escaping (Result<Int, Failure>) -> Void) -> Transfer? {
        var request = request
        request.post = nil
        return start(request, sink: .file(descriptor: descriptor, path: path, written: 0)) { result in
            completion(result.map { $0.sink.count })
        }
    }

    private func start(_ request: Request, sink: Sink, completion: @escaping (Result<Received, Failure>) -> Void) -> Transfer? {
        let library: CurlLibrary, multi: UnsafeMutableRawPointer
        do { (library, multi) = try session() } catch {
            loop.schedule(after: .zero) { completion(.failure(error)) }
            return nil
        }
        guard let easy = library.easyInit() else {
            loop.schedule(after: .zero) { completion(.failure(.transport("libcurl could not create a transfer"))) }
            return nil
        }
        let transfer = Transfer(easy: easy, getinfo: library.easyGetinfo, request: request, sink: sink,
                                completion: completion)
        transfer.client = self
        guard transfer.setUp(with: library, userAgent: userAgent) else {
            library.easyCleanup(easy)
            loop.schedule(after: .zero) { completion(.failure(.transport("libcurl could not take the headers"))) }
            return nil
        }
        transfers[easy] = transfer
        guard library.multiAddHandle(multi, easy) == CURLM_OK else {
            transfers[easy] = nil
            library.easyCleanup(easy)
            library.slistFreeAll(transfer.headerList)
            transfer.headerList = nil
            loop.schedule(after: .zero) { completion(.failure(.transport("libcurl refused the transfer"))) }
            return nil
        }
        return transfer
    }

    // MARK: libcurl → loop

    private func socketChanged(_ socket: curl_socket_t, _ what: Int32) {
        if let watch = watches[socket] {
            if what == CURL_POLL_REMOVE {
                loop.unwatch(watch)
                watches[socket] = nil
            } else {
                loop.update(watch, interest: interest(what))
            }
            return
        }
        guard what != CURL_POLL_REMOVE else { return }
        watches[socket] = loop.watch(fd: socket, for: interest(what)) { [self] readiness in
            var mask: Int32 = 0
            if readiness.contains(.readable) || readiness.contains(.hangup) { mask |= CURL_CSELECT_IN }
            if readiness.contains(.writable) { mask |= CURL_CSELECT_OUT }
            if readiness.contains(.error) || readiness.contains(.invalid) { mask |= CURL_CSELECT_ERR }
            var running: Int32 = 0
            guard let curl = self.curl, let multi = self.multiHandle else { return }
            _ = curl.multiSocketAction(multi, socket, mask, &running)
            self.collectFinished()
        }
    }

    private func interest(_ what: Int32) -> FDInterest {
        switch what {
        case CURL_POLL_IN: .readable
        case CURL_POLL_OUT: .writable
        case CURL_POLL_INOUT: [.readable, .writable]
        default: []
        }
    }

    private func timerChanged(_ milliseconds: Int) {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard milliseconds >= 0 else { return }
        // libcurl forbids calling back into it from this callback: act on the next loop turn at the earliest.
        timer = loop.schedule(after: .milliseconds(milliseconds)) { [self] in
            self.timer = nil
            var running: Int32 = 0
            guard let curl = self.curl, let multi = self.multiHandle else { return }
            _ = curl.multiSocketAction(multi, CURL_SOCKET_TIMEOUT, 0, &running)
            self.collectFinished()
        }
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        guard let curl, let multi = multiHandle else { return }
        while let message = curl.multiInfoRead(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = transfers[easy] else { continue }
            let code = message.pointee.data.result
            switch outcome(of: transfer, code) {
            case .redirect(let url):
                follow(transfer, to: url)
            case .done(let result):
                finish(transfer, with: result)
            }
        }
    }

    /// The next hop of a redirect, if it stays at the request's origin and within the limit.
    private func follow(_ transfer: Transfer, to url: String) {
        guard let origin = transfer.origin, URLOrigin(url) == origin, origin.scheme != "file" else {
            return finish(transfer, with: .failure(.redirectRefused(to: url)))
        }
        guard transfer.redirects < transfer.request.maximumRedirects else {
            return finish(transfer, with: .failure(.tooManyRedirects(limit: transfer.request.maximumRedirects)))
        }
        guard let curl, let multi = multiHandle else { return finish(transfer, with: .failure(.transport("libcurl was unloaded"))) }
        transfer.restart(at: url)
        _ = curl.multiRemoveHandle(multi, transfer.easy)
        enb_curl_easy_setopt_ptr(curl.easySetopt, transfer.easy, CURLOPT_URL, url)
        guard curl.multiAddHandle(multi, transfer.easy) == CURLM_OK else {
            return finish(transfer, with: .failure(.transport("libcurl refused the redirect to \(url)")))
        }
    }

    func finish(_ transfer: Transfer, with result: Result<Received, Failure>?) {
        guard transfers.removeValue(forKey: transfer.easy) != nil else { return }
        if let curl, let multi = multiHandle {
            _ = curl.multiRemoveHandle(multi, transfer.easy)
            curl.easyCleanup(transfer.easy)
            // After the cleanup: libcurl reads the headers until then.
            curl.slistFreeAll(transfer.headerList)
        }
        transfer.headerList = nil
        transfer.client = nil
        if let result { transfer.completion(result) }
        scheduleUnloadIfIdle()
    }
}

extension Duration {
    var milliseconds: Int64 { nanosecondsValue / 1_000_000 }
}
