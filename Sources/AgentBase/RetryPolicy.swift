/// How a sync retries a failed download within one run: exponential backoff with jitter, a few attempts,
/// then the run gives up and the next period tries again from the same cursor.
package struct RetryPolicy: Equatable, Sendable {
    /// Tries per request in one run, the first included.
    package var attempts: Int = 4
    package var firstDelay: Duration = .seconds(15)
    package var maximumDelay: Duration = .seconds(600)

    package init() {}

    package init(attempts: Int, firstDelay: Duration, maximumDelay: Duration) {
        self.attempts = attempts
        self.firstDelay = firstDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait after failed attempt `attempt` (1-based): `firstDelay × 2^(attempt−1)`, capped, scaled by
    /// `jitter` (0.5…1.5) so that badges booted together do not retry in step.
    package func delay(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let base = min(firstDelay * (1 << doublings), maximumDelay)
        return base * min(max(jitter, 0.5), 1.5)
    }
}
