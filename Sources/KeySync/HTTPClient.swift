import CCurl
import EventLoop
#if canImport(Glibc)
import Glibc
#endif

/// HTTP(S) and file:// downloads through libcurl's multi interface, serviced by the event loop.
///
/// libcurl says which sockets to watch (socket callback) and when to wake it (timer callback); the loop
/// watches and wakes, and calls `curl_multi_socket_action`. Nothing blocks: a stalled key server costs a
/// watched descriptor and a timer, never the radio. Proxies come from the usual environment variables
/// (`https_proxy`, `no_proxy`), which libcurl reads itself; certificates from the system CA store or a
/// configured CA file.
public final class HTTPClient {
    public struct Request: Sendable {
        public var url: String
        /// A response larger than this is aborted: a key server cannot fill the SD card or the memory.
        public var maximumBytes: Int
        public var connectTimeout: Duration = .seconds(20)
        /// The whole transfer, connection included: generous, since a 32 MiB file over a weak link takes minutes.
        public var timeout: Duration = .seconds(1800)
        /// A transfer that receives nothing for this long is abandoned: a stalled server costs little time
        /// even when the total timeout is long.
        public var stallTimeout: Duration = .seconds(60)
        /// PEM file of trusted CAs instead of the system store (e.g. a health authority's own CA).
        public var caFile: String?

        public init(url: String, maximumBytes: Int, caFile: String? = nil) {
            self.url = url
            self.maximumBytes = maximumBytes
            self.caFile = caFile
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLarge(limit: Int)
        case httpStatus(Int)
        case transport(String)

        public var description: String {
            switch self {
            case .tooLarge(let limit): "response larger than \(limit) bytes, aborted"
            case .httpStatus(let code): "HTTP status \(code)"
            case .transport(let text): text
            }
        }
    }

    /// A transfer in flight; `cancel()` drops it without calling its completion.
    public final class Transfer {
        fileprivate let easy: UnsafeMutableRawPointer
        fileprivate let request: Request
        fileprivate var body: [UInt8] = []
        fileprivate var overflowed = false
        /// libcurl's own words for a failure ("SSL certificate problem: …"), more telling than its error code's.
        fileprivate let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        fileprivate let completion: (Result<[UInt8], Failure>) -> Void
        fileprivate weak var client: HTTPClient?

        fileprivate init(easy: UnsafeMutableRawPointer, request: Request, completion: @escaping (Result<[UInt8], Failure>) -> Void) {
            self.easy = easy
            self.request = request
            self.completion = completion
            errorText.initialize(to: 0)
        }

        deinit { errorText.deallocate() }

        public func cancel() { client?.finish(self, with: nil) }
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

    /// Starts a GET; `completion` runs on the loop with the body or the reason it failed.
    @discardableResult
    public func get(_ request: Request, completion: @escaping (Result<[UInt8], Failure>) -> Void) -> Transfer? {
        let library: CurlLibrary, multi: UnsafeMutableRawPointer
        do { (library, multi) = try session() } catch {
            loop.schedule(after: .zero) { completion(.failure(error)) }
            return nil
        }
        guard let easy = library.easyInit() else {
            loop.schedule(after: .zero) { completion(.failure(.transport("libcurl could not create a transfer"))) }
            return nil
        }
        let transfer = Transfer(easy: easy, request: request, completion: completion)
        transfer.client = self
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_URL, request.url)
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_USERAGENT, userAgent)
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_PROTOCOLS_STR, "http,https,file")
        // A redirect may keep the scheme or upgrade it, never downgrade https or reach a local file.
        let isHTTPS = request.url.lowercased().hasPrefix("https:")
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_REDIR_PROTOCOLS_STR, isHTTPS ? "https" : "http,https")
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_FOLLOWLOCATION, 1)
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_MAXREDIRS, 5)
        // An error status ends the transfer before its body: a 404 page is not worth downloading.
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_FAILONERROR, 1)
        // No signals: the agent is single-threaded and handles its signals through signalfd.
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_NOSIGNAL, 1)
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout.milliseconds))
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_TIMEOUT_MS, Int(request.timeout.milliseconds))
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.stallTimeout.milliseconds / 1000)))
        // The `long` variant, not MAXFILESIZE_LARGE: its curl_off_t is 64 bits even where `long` is 32
        // (32-bit Raspberry Pi OS), and the shim passes a `long`.
        enb_curl_easy_setopt_long(library.easySetopt, easy, CURLOPT_MAXFILESIZE, request.maximumBytes)
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_ERRORBUFFER, transfer.errorText)
        if let caFile = request.caFile { enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_CAINFO, caFile) }
        // libcurl leaves its sockets inheritable; a notify command spawned meanwhile must not hold them open.
        enb_curl_easy_setopt_ptr(library.easySetopt, easy, CURLOPT_SOCKOPTFUNCTION, unsafeBitCast(Self.closeOnExec, to: UnsafeRawPointer.self))
        enb_curl_easy_set_writer(library.easySetopt, easy, { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let n = size * count
            guard transfer.body.count + n <= transfer.request.maximumBytes else {
                transfer.overflowed = true
                return 0  // anything but n aborts the transfer
            }
            data.withMemoryRebound(to: UInt8.self, capacity: n) { transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n)) }
            return n
        }, Unmanaged.passUnretained(transfer).toOpaque())
        transfers[easy] = transfer
        guard library.multiAddHandle(multi, easy) == CURLM_OK else {
            transfers[easy] = nil
            library.easyCleanup(easy)
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
            finish(transfer, with: outcome(of: transfer, code))
        }
    }

    private func outcome(of transfer: Transfer, _ code: CURLcode) -> Result<[UInt8], Failure> {
        if transfer.overflowed || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.tooLarge(limit: transfer.request.maximumBytes))
        }
        var status = 0
        guard let curl else { return .failure(.transport("libcurl was unloaded")) }
        enb_curl_easy_getinfo_long(curl.easyGetinfo, transfer.easy, CURLINFO_RESPONSE_CODE, &status)
        if code == CURLE_HTTP_RETURNED_ERROR { return .failure(.httpStatus(status)) }
        // A missing file:// file reads as HTTP's 404, so a folder and a server are handled alike.
        if code == CURLE_FILE_COULDNT_READ_FILE { return .failure(.httpStatus(404)) }
        guard code == CURLE_OK else {
            let detail = transfer.errorText.pointee != 0
                ? String(cString: transfer.errorText) : (curl.easyStrerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)")
            return .failure(.transport("\(transfer.request.url): \(detail)"))
        }
        // file:// answers 0; HTTP must be 2xx.
        if status != 0 && !(200..<300).contains(status) { return .failure(.httpStatus(status)) }
        return .success(transfer.body)
    }

    fileprivate func finish(_ transfer: Transfer, with result: Result<[UInt8], Failure>?) {
        guard transfers.removeValue(forKey: transfer.easy) != nil else { return }
        if let curl, let multi = multiHandle {
            _ = curl.multiRemoveHandle(multi, transfer.easy)
            curl.easyCleanup(transfer.easy)
        }
        if let result { transfer.completion(result) }
        scheduleUnloadIfIdle()
    }
}

extension Duration {
    var milliseconds: Int64 { nanosecondsValue / 1_000_000 }
}
