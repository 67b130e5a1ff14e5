import CCurl
import SystemIO

/// A transfer's bookkeeping: where its body goes and how much came, its redirects, and why it stopped.
extension HTTPClient {
    /// Where a body goes, and what was received.
    enum Sink {
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
    struct Received {
        var sink: Sink
        var status: Int
    }

    /// A transfer in flight; `cancel()` drops it without calling its completion.
    public final class Transfer {
        let easy: UnsafeMutableRawPointer
        /// libcurl's getinfo, for the write callback (a C function, which cannot capture it).
        let getinfo: enb_curl_easy_getinfo_fn
        let request: Request
        let origin: URLOrigin?
        var url: String
        var redirects = 0
        var sink: Sink
        var overflowed = false
        var writeError: SystemError?
        /// libcurl's own words for a failure ("SSL certificate problem: …"), more telling than its error code's.
        let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        /// A POST's headers, which libcurl reads until the transfer is cleaned up; freed in `finish`.
        var headerList: UnsafeMutablePointer<curl_slist>?
        let completion: (Result<Received, Failure>) -> Void
        /// The client, while the transfer is under way (for `cancel`); `finish` and `unload` let it go.
        var client: HTTPClient?

        init(easy: UnsafeMutableRawPointer, getinfo: enb_curl_easy_getinfo_fn, request: Request,
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
        func receive(_ data: UnsafeRawBufferPointer) -> Bool {
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
        func restart(at url: String) {
            self.url = url
            redirects += 1
            switch sink {
            case .memory: sink = .memory([])
            case .file(let fd, let path, _):
                try? Posix.truncate(fd, to: 0, path: path)
                sink = .file(descriptor: fd, path: path, written: 0)
            }
        }
    }
}
