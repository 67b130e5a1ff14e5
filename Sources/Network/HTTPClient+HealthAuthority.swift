
/// The key share's requests go through the same client as key downloads: one libcurl, loaded only while
/// either is under way.
extension HTTPClient: HealthAuthorityTransport {
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
