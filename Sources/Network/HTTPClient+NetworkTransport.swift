/// Both network services go through the same client: one libcurl, loaded only while either is under way.
extension HTTPClient: NetworkTransport {
    public func fetch(_ request: Request, completion: @escaping (Result<[UInt8], Failure>) -> Void) -> () -> Void {
        let transfer = get(request, completion: completion)
        return { transfer?.cancel() }
    }

    public func fetch(_ request: Request, into descriptor: Int32, path: String,
                      completion: @escaping (Result<Int, Failure>) -> Void) -> () -> Void {
        let transfer = download(request, to: descriptor, path: path, completion: completion)
        return { transfer?.cancel() }
    }

    /// The health authority's answers are a few KB (padded to 1–2 KB); a megabyte is no answer of its API.
    static let healthAuthorityAnswerLimit = 1 << 20

    public func send(_ request: HealthAuthorityRequest,
                     completion: @escaping (Result<HealthAuthorityResponse, HealthAuthorityTransportFailure>) -> Void)
        -> () -> Void {
        var call = Request(url: request.url, maximumBytes: Self.healthAuthorityAnswerLimit, caFile: request.caFile)
        call.connectTimeout = .seconds(20)
        call.timeout = HealthAuthorityRequest.timeout
        // A verification server may think for most of the minute before it answers a few hundred bytes: no
        // rate is asked of it short of the timeout (the answer is capped at a megabyte, so a drip gains nothing).
        call.minimumRateWindow = HealthAuthorityRequest.timeout
        let transfer = post(call, Post(body: request.body, headers: request.headers)) { result in
            switch result {
            case .success(let response):
                completion(.success(HealthAuthorityResponse(status: response.status, body: response.body)))
            case .failure(.transport(let reason)):
                completion(.failure(.unreachable(reason)))
            case .failure(let failure):
                completion(.failure(.unusable(failure.description)))
            }
        }
        return { transfer?.cancel() }
    }
}
