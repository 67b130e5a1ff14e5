import CCurl
import SystemIO

/// The options a transfer's libcurl easy handle is given: what it may fetch, how long and how slowly, where the
/// body goes, and a POST's body and headers.
extension HTTPClient.Transfer {
    /// Sets the easy handle up for `request`; false when libcurl could not take the headers (nothing to free then
    /// but the handle).
    func setUp(with library: CurlLibrary, userAgent: String) -> Bool {
        let request = self.request
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
                    return false
                }
                list = longer
            }
            headerList = list
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
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_ERRORBUFFER, errorText)
        if let caFile = request.caFile { enb_curl_easy_setopt_ptr(set, easy, CURLOPT_CAINFO, caFile) }
        // libcurl leaves its sockets inheritable; a notify command spawned meanwhile must not hold them open.
        enb_curl_easy_setopt_ptr(set, easy, CURLOPT_SOCKOPTFUNCTION, unsafeBitCast(Self.closeOnExec, to: UnsafeRawPointer.self))
        enb_curl_easy_set_writer(set, easy, { data, size, count, userdata in
            guard let data, let userdata else { return 0 }
            let transfer = Unmanaged<HTTPClient.Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let n = size * count
            // A redirect's own body (a "moved" page) is not the file.
            var status = 0
            enb_curl_easy_getinfo_long(transfer.getinfo, transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            if (300..<400).contains(status) { return n }
            // Anything but n aborts the transfer.
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: n)) ? n : 0
        }, Unmanaged.passUnretained(self).toOpaque())
        return true
    }

    private static let closeOnExec: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, curlsocktype) -> Int32 = {
        _, socket, _ in
        Posix.setCloseOnExec(socket)
        return CURL_SOCKOPT_OK
    }
}
