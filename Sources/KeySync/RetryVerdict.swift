import Agent

extension RetryPolicy {
    /// What to do about a failed download.
    enum Verdict: Equatable {
        /// Worth another try: the network or the server may recover (transport errors, connections dropped
        /// mid-file, 5xx, 408, 429).
        case retry
        /// This file will not come: skip it and move on (gone: 404/410; larger than the cap).
        case skipFile
        /// Neither: stop the run; the next period starts again from the same cursor.
        case stopRun
    }

    static func verdict(for failure: HTTPClient.Failure, isListing: Bool) -> Verdict {
        switch failure {
        case .transport: return .retry
        case .tooLarge: return isListing ? .stopRun : .skipFile
        case .httpStatus(let code):
            if code >= 500 || code == 408 || code == 429 { return .retry }
            if !isListing && (code == 404 || code == 410) { return .skipFile }
            return .stopRun
        }
    }
}
