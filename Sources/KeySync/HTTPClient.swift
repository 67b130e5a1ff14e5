import CCurl
import EventLoop
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

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
    public struct Request: Sendable {
        public var url: String
        /// A response larger than this is aborted: a key server cannot fill the SD card or the memory.
        public var maximumBytes: Int
        public var connectTimeout: Duration = .seconds(20)
        /// The whole transfer, connection included (each redirect hop starts it again).
        public var timeout: Duration = .seconds(3600)
        /// A transfer that moves fewer than `minimumRate` bytes a second for `minimumRateWindow` is abandoned:
        /// a server dripping a byte a second costs the window, not the total timeout.
        public var minimumRate: Int = 1
        public var minimumRateWindow: Duration = .seconds(60)
        /// Redirects followed (each within the request's origin) before the transfer is refused.
        public var maximumRedirects: Int = 5
        /// PEM file of trusted CAs instead of the system store (e.g. a health authority's own CA).
        public var caFile: String?
        /// A POST's body and headers; nil for a GET.
        public var post: Post?

        public init(url: String, maximumBytes: Int, caFile: String? = nil) {
            self.url = url
            self.maximumBytes = maximumBytes
            self.caFile = caFile
        }
    }

    /// What a POST sends: the body and its headers (`Name: value`, e.g. `Content-Type: application/json`).
    public struct Post: Sendable {
        public var body: [UInt8]
        public var headers: [String]

        public init(body: [UInt8], headers: [String]) {
            self.body = body
            self.headers = headers
        }
    }

    /// A POST's answer: any status, with its body.
    public struct Response: Equatable, Sendable {
        public var status: Int
        public var body: [UInt8]

        public init(status: Int, body: [UInt8]) {
            self.status = status
            self.body = body
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case httpStatus(Int)
        /// The network or the connection failed: refused, reset, timed out, too slow, cut short.
        case transport(String)
        /// A redirect away from the request's scheme, host and port (or to a local file).
        case redirectRefused(to: String)
        case tooManyRedirects(limit: Int)
        /// A URL libcurl cannot use at all (malformed, or a scheme it does not speak).
        case badURL(String)
        /// The body could not be written to its file (a full disk): a local problem, not the server's.
        case localWrite(String)

        public var description: String {
            switch self {
            case .tooLarge(let limit): "response larger than \(limit) bytes, aborted"
            case .httpStatus(let code): "HTTP status \(code)"
            case .transport(let text): text
            case .redirectRefused(let url): "redirect to \(url) refused: only the same scheme, host and port are followed"
            case .tooManyRedirects(let limit): "more than \(limit) redirects"
            case .badURL(let text): "unusable URL: \(text)"
            case .localWrite(let text): "cannot write the download: \(text)"
            }
        }
    }

    /// Where a body goes, and what was received.
    fileprivate enum Sink {
        case memory([UInt8])
        /// A file opened for writing; bytes are written at their offset, so a redirect starts again at 0.
        case file(descriptor: Int32, path: String, written: Int)

        var count: Int {
            switch self {
            case .memory(let bytes): bytes.count
            case .file(_, _, let written): written
            }
        }
    }

    /// What a finished transfer received, and the final status (0 for file://).
    fileprivate struct Received {
        var sink: Sink
        var status: Int
    }

    /// A transfer in flight; `cancel()` drops it without calling its completion.
    public final class Transfer {
        fileprivate let easy: UnsafeMutableRawPointer
        /// libcurl's getinfo, for the write callback (a C function, which cannot capture it).
        fileprivate let getinfo: enb_curl_easy_getinfo_fn
        fileprivate let request: Request
        fileprivate let origin: URLOrigin?
        fileprivate var url: String
        fileprivate var redirects = 0
        fileprivate var sink: Sink
        fileprivate var overflowed = false
        fileprivate var writeError: SystemError?
        /// libcurl's own words for a failure ("SSL certificate problem: …"), more telling than its error code's.
        fileprivate let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        /// A POST's headers, which libcurl reads until the transfer is cleaned up; freed in `finish`.
        fileprivate var headerList: UnsafeMutablePointer<curl_slist>?
        fileprivate let completion: (Result<Received, Failure>) -> Void
        fileprivate weak var client: HTTPClient?

        fileprivate init(easy: UnsafeMutableRawPointer, getinfo: enb_curl_easy_getinfo_fn, request: Request,
                         sink: Sink, completion: @escaping (Result<Received, Failure>) -> Void) {
            self.easy = easy
            self.getinfo = getinfo
            self.request = request
            origin = URLOrigin(request.url)
            url = request.url
            self.sink = sink
            self.completion = completion
            errorText.initialize(to: 0)
        }

        deinit { errorText.deallocate() }

        public func cancel() { client?.finish(self, with: nil) }

        /// Takes `count` bytes at `data`; false to abort the transfer.
        fileprivate func receive(_ data: UnsafeRawBufferPointer) -> Bool {
            guard sink.count + data.count <= request.maximumBytes else {
                overflowed = true
                return false
            }
            switch sink {
            case .memory(var bytes):
                sink = .memory([])  // keeps `bytes` uniquely referenced while it grows
                bytes.append(contentsOf: data)
                sink = .memory(bytes)
            case .file(let fd, let path, let written):
                do {
                    try Posix.write(data, to: fd, at: written, path: path)
                } catch {
                    writeError = error
                    return false
                }
                sink = .file(descriptor: fd, path: path, written: written + data.count)
            }
            return true
        }

        /// Forgets a redirect's body: the next hop's starts from nothing.
        fileprivate func restart(at url: String) {
            self.url = url
            redirects += 1
            switch sink {
            case .memory: sink = .memory([])
            case .file(let fd, let path, _):
                _ = ftruncate(fd, 0)
                sink = .file(descriptor: fd, path: path, written: 0)
            }
        }
    }

    private let loop: any EventLoop
    private var transfers: [UnsafeMutableRawPointer: Transfer] = [:]
    private var watches: [Int32: WatchHandle] = [:]
    private var timer: TimerHandle?
    private let userAgent: String
    /// libcurl and its multi handle exist only while there is work: created by the first `get`, released
    /// `idleUnload` after the last transfer ends (see `CurlLibrary` for why).
    private var curl: CurlLibrary?
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
        idleTimer = loop.schedule(after: idleUnload) { [weak self] in
            guard let self else { return }
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
        idleTimer = loop.schedule(after: .zero) { [weak self] in
            guard let self else { return }
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
            completion(result.map(\.sink.count))
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
        let set = library.easySetopt
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_URL, request.url)
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_USERAGENT, userAgent)
        // Redirects are followed by `collectFinished`, one checked hop at a time (a GET's only).
        enb_curl_easy_setopt_long(set, easy, CURLOPT_FOLLOWLOCATION, 0)
        if let post = request.post {
            enb_curl_easy_setopt_ptr(set, easy, CURLOPT_PROTOCOLS_STR, "http,https")
            // The API's refusals are JSON bodies with 4xx statuses: read them.
            enb_curl_easy_setopt_long(set, easy, CURLOPT_FAILONERROR, 0)
            var list: UnsafeMutablePointer<curl_slist>?
            // "Expect:" stops libcurl from waiting for a 100 Continue before a larger body.
            for header in post.headers + ["Expect:"] {
                guard let longer = library.slistAppend(list, header) else {
                    library.slistFreeAll(list)
                    library.easyCleanup(easy)
                    loop.schedule(after: .zero) { completion(.failure(.transport("libcurl could not take the headers"))) }
                    return nil
                }
                list = longer
            }
            transfer.headerList = list
            enb_curl_easy_setopt_ptr(set, easy, CURLOPT_HTTPHEADER, list)
            enb_curl_easy_setopt_long(set, easy, CURLOPT_POST, 1)
            // The size first: COPYPOSTFIELDS copies that many bytes, so the body may hold anything.
            enb_curl_easy_setopt_long(set, easy, CURLOPT_POSTFIELDSIZE, post.body.count)
            post.body.withUnsafeBufferPointer { bytes in
                _ = enb_curl_easy_setopt_ptr(set, easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress)
            }
        } else {
            enb_curl_easy_setopt_ptr(set, easy, CURLOPT_PROTOCOLS_STR, "http,https,file")
            // An error status ends the transfer before its body: a 404 page is not worth downloading.
            enb_curl_easy_setopt_long(set, easy, CURLOPT_FAILONERROR, 1)
        }
        // No signals: the agent is single-threaded and handles its signals through signalfd.
        enb_curl_easy_setopt_long(set, easy, CURLOPT_NOSIGNAL, 1)
        enb_curl_easy_setopt_long(set, easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout.milliseconds))
        enb_curl_easy_setopt_long(set, easy, CURLOPT_TIMEOUT_MS, Int(request.timeout.milliseconds))
        enb_curl_easy_setopt_long(set, easy, CURLOPT_LOW_SPEED_LIMIT, max(1, request.minimumRate))
        enb_curl_easy_setopt_long(set, easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.minimumRateWindow.milliseconds / 1000)))
        // The `long` variant, not MAXFILESIZE_LARGE: its curl_off_t is 64 bits even where `long` is 32
        // (32-bit Raspberry Pi OS), and the shim passes a `long`.
        enb_curl_easy_setopt_long(set, easy, CURLOPT_MAXFILESIZE, request.maximumBytes)
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_ERRORBUFFER, transfer.errorText)
        if let caFile = request.caFile { enb_curl_easy_setopt_ptr(set, easy, CURLOPT_CAINFO, caFile) }
        // libcurl leaves its sockets inheritable; a notify command spawned meanwhile must not hold them open.
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_SOCKOPTFUNCTION, unsafeBitCast(Self.closeOnExec, to: UnsafeRawPointer.self))
        enb_curl_easy_set_writer(set, easy, { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let n = size * count
            // A redirect's own body (a "moved" page) is not the file.
            var status = 0
            enb_curl_easy_getinfo_long(transfer.getinfo, transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            if (300..<400).contains(status) { return n }
            // Anything but n aborts the transfer.
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
        }, Unmanaged.passUnretained(transfer).toOpaque())
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

    private static let closeOnExec: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, curlsocktype) -> Int32 = {
        _, socket, _ in
        _ = fcntl(socket, F_SETFD, FD_CLOEXEC)
        return CURL_SOCKOPT_OK
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
        watches[socket] = loop.watch(fd: socket, for: interest(what)) { [weak self] readiness in
            guard let self else { return }
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
        timer = loop.schedule(after: .milliseconds(milliseconds)) { [weak self] in
            guard let self else { return }
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

    private enum Outcome {
        case done(Result<Received, Failure>)
        /// A 3xx answer naming where to go next (not yet checked).
        case redirect(String)
    }

    private func outcome(of transfer: Transfer, _ code: CURLcode) -> Outcome {
        if let error = transfer.writeError { return .done(.failure(.localWrite(error.description))) }
        if transfer.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            return .done(.failure(.tooLarge(limit: transfer.request.maximumBytes)))
        }
        var status = 0
        guard let curl else { return .done(.failure(.transport("libcurl was unloaded"))) }
        enb_curl_easy_getinfo_long(curl.easyGetinfo, transfer.easy, CURLINFO_RESPONSE_CODE, &status)
        if code == CURLE_HTTP_RETURNED_ERROR { return .done(.failure(.httpStatus(status))) }
        // A missing file:// file reads as HTTP's 404, so a folder and a server are handled alike.
        if code == CURLE_FILE_COULDNT_READ_FILE { return .done(.failure(.httpStatus(404))) }
        let detail = transfer.errorText.pointee != 0
            ? String(cString: transfer.errorText)
            : (curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)")
        if code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL {
            return .done(.failure(.badURL("\(transfer.url): \(detail)")))
        }
        guard code == CURLE_OK else { return .done(.failure(.transport("\(transfer.url): \(detail)"))) }
        // A POST answers with whatever status the server gave; its caller reads the API's error codes.
        if transfer.request.post != nil { return .done(.success(Received(sink: transfer.sink, status: status))) }
        if (300..<400).contains(status) {
            var location: UnsafeMutablePointer<CChar>?
            enb_curl_easy_getinfo_string(curl.easyGetinfo, transfer.easy, CURLINFO_REDIRECT_URL, &location)
            guard let location else { return .done(.failure(.httpStatus(status))) }
            return .redirect(String(cString: location))
        }
        // file:// answers 0; HTTP must be 2xx.
        if status != 0 && !(200..<300).contains(status) { return .done(.failure(.httpStatus(status))) }
        return .done(.success(Received(sink: transfer.sink, status: status)))
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

    fileprivate func finish(_ transfer: Transfer, with result: Result<Received, Failure>?) {
        guard transfers.removeValue(forKey: transfer.easy) != nil else { return }
        if let curl, let multi = multiHandle {
            _ = curl.multiRemoveHandle(multi, transfer.easy)
            curl.easyCleanup(transfer.easy)
            // After the cleanup: libcurl reads the headers until then.
            curl.slistFreeAll(transfer.headerList)
        }
        transfer.headerList = nil
        if let result { transfer.completion(result) }
        scheduleUnloadIfIdle()
    }
}

extension Duration {
    var milliseconds: Int64 { nanosecondsValue / 1_000_000 }
}
