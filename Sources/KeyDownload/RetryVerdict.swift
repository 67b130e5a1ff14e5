import AgentBase
import Network

extension RetryPolicy {
    /// What to do about a failed download.
    enum Verdict: Equatable {
        /// Worth another try: the network or the server may recover (transport errors — refused, reset, timed
        /// out, too slow, cut short — and 5xx, 408, 429).
        case retry
        /// This file will not come, or must not: skip it, log it once, move the cursor past it (gone, refused
        /// by a limit, an unusable URL, any other 4xx).
        case skipFile
        /// Neither: stop the run; the next period starts again from the same cursor (the listing failed, or
        /// the disk did).
        case stopRun
    }

    static func verdict(for failure: HTTPClient.Failure, isListing: Bool) -> Verdict {
        switch failure {
        case .transport:
            return .retry
        case .httpStatus(let code) where code >= 500 || code == 408 || code == 429:
            return .retry
        case .httpStatus, .tooLarge, .redirectRefused, .tooManyRedirects, .badURL:
            return isListing ? .stopRun : .skipFile
        case .localWrite:
            return .stopRun
        }
    }
}
