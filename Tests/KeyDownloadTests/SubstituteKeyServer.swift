import EventLoop
import Foundation
import Network
import SystemIO
import Testing

/// A key server without a socket: it serves the files under `root` by the URL's path, answers on the loop a
/// millisecond later, and first fails each path as many times as `failures` says. For the key download's
/// rules that need no HTTP to show; the Python servers keep testing what does.
final class SubstituteKeyServer: NetworkTransport {
    static let origin = "https://keys.example"

    let loop: any EventLoop
    let root: String
    /// The paths asked for, in order ("/index.txt", "/a.zip", …).
    private(set) var requested: [String] = []
    /// What each path answers before it is served, the first failure first.
    var failures: [String: [HTTPClient.Failure]] = [:]

    init(loop: any EventLoop, root: String) {
        self.loop = loop
        self.root = root
    }

    /// The configuration line that points a key sync at this server.
    var indexURL: String { "keyserver.index_url = \(Self.origin)/index.txt" }

    func fetch(_ request: HTTPClient.Request,
               completion: @escaping (Result<[UInt8], HTTPClient.Failure>) -> Void) -> () -> Void {
        answer(request, completion) { .success($0) }
    }

    func fetch(_ request: HTTPClient.Request, into descriptor: Int32, path: String,
               completion: @escaping (Result<Int, HTTPClient.Failure>) -> Void) -> () -> Void {
        answer(request, completion) { body in
            do { try Posix.write(body, to: descriptor, at: 0, path: path) } catch {
                return .failure(.localWrite("\(error)"))
            }
            return .success(body.count)
        }
    }

    func send(_ request: HealthAuthorityRequest,
              completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>) -> Void)
        -> () -> Void {
        Issue.record("the key download posted to \(request.url)")
        let timer = loop.schedule(after: .zero) { completion(.failure(.unusable("a key server takes no POST"))) }
        return { [loop] in loop.cancel(timer) }
    }

    private func answer<T>(_ request: HTTPClient.Request, _ completion: @escaping (Result<T, HTTPClient.Failure>) -> Void,
                           deliver: @escaping ([UInt8]) -> Result<T, HTTPClient.Failure>) -> () -> Void {
        let path = String(request.url.dropFirst(Self.origin.count))
        requested.append(path)
        let failure = failures[path]?.first
        if failure != nil { failures[path]?.removeFirst() }
        let file = root + path
        let timer = loop.schedule(after: .milliseconds(1)) {
            if let failure { return completion(.failure(failure)) }
            guard let data = FileManager.default.contents(atPath: file) else { return completion(.failure(.httpStatus(404))) }
            guard data.count <= request.maximumBytes else {
                return completion(.failure(.tooLarge(limit: request.maximumBytes)))
            }
            completion(deliver([UInt8](data)))
        }
        return { [loop] in loop.cancel(timer) }
    }
}
