import CCurl
import SystemIO

/// What a finished transfer came to: its body, a redirect to check and follow, or a failure in the words a
/// log or staff read.
extension HTTPClient {
    enum Outcome {
        case done(Result<Received, Failure>)
        /// A 3xx answer naming where to go next (not yet checked).
        case redirect(String)
    }

    func outcome(of transfer: Transfer, _ code: CURLcode) -> Outcome {
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
}
