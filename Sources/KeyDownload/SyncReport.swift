/// What one sync run did, for the log, the console's `sync` and the figures of a benchmark.
package struct SyncReport: Equatable, Sendable {
    package enum Outcome: Equatable, Sendable {
        case running
        case succeeded
        /// Stopped early; the next period starts again from the same cursor.
        case failed(String)
        case cancelled
    }

    package var outcome: Outcome = .running
    /// Unix seconds.
    package var startedAt: Int64 = 0
    package var finishedAt: Int64?
    /// Entries in the server's listing, and those not processed before.
    package var listed = 0
    package var new = 0
    /// Exports downloaded, verified and matched (or held for their batch).
    package var processed = 0
    /// Exports refused: not a valid zip, or their signature did not verify with the configured key.
    package var rejected = 0
    /// Entries passed over: gone from the server (404/410), refused by a limit (size, redirect), a malformed
    /// index line, or an export that failed `sync.give_up_after_runs` runs in a row.
    package var skipped = 0
    /// New entries left for the next run (`sync.max_files`).
    package var deferred = 0
    /// Why entries were rejected or skipped, one line each, the first `maxRefusals` of the run (the log has
    /// them all).
    package var refusals: [String] = []
    static let maxRefusals = 10
    /// Downloads retried after a failure.
    package var retries = 0
    package var bytes = 0
    /// Diagnosis keys read from verified exports.
    package var keys = 0
    package var matchedKeys = 0
    package var revokedKeys = 0
    /// Keys still under embargo when read (SPEC §4), held for a later run, and keys held by earlier runs
    /// whose embargo ended, matched by this one.
    package var heldKeys = 0
    package var releasedKeys = 0
    /// Keys under embargo not held: `SyncCursor.maxHeldKeys` were held already, or the key was not valid until
    /// more than a day after the sync (published before it could even be used).
    package var droppedHeldKeys = 0
    package var notValidYetKeys = 0
    package var newExposures = 0
    /// Wall time waiting for downloads (including retry waits), verifying, and matching (slices only).
    var downloadTime: Duration = .zero
    var verifyTime: Duration = .zero
    var matchTime: Duration = .zero
    /// Loop slices the matching took.
    var matchSlices = 0

    package init() {}

    /// Notes why an entry was rejected or skipped (kept up to `maxRefusals`).
    package mutating func refuse(_ line: String) {
        if refusals.count < Self.maxRefusals { refusals.append(line) }
    }

    /// One line for the log.
    package var summary: String {
        var parts = ["\(new) new of \(listed) listed", "\(processed) processed"]
        if rejected > 0 { parts.append("\(rejected) rejected") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        if deferred > 0 { parts.append("\(deferred) left for the next sync") }
        if retries > 0 { parts.append("\(retries) retries") }
        parts.append("\(keys) keys, \(matchedKeys) matched")
        if revokedKeys > 0 { parts.append("\(revokedKeys) revoked") }
        if heldKeys > 0 { parts.append("\(heldKeys) held until their embargo ends") }
        if droppedHeldKeys > 0 { parts.append("\(droppedHeldKeys) under embargo not held (the most held is reached)") }
        if notValidYetKeys > 0 { parts.append("\(notValidYetKeys) not valid yet, ignored") }
        if releasedKeys > 0 { parts.append("\(releasedKeys) matched after their embargo") }
        parts.append("\(newExposures) new exposure(s)")
        parts.append("\(bytes) bytes")
        return parts.joined(separator: ", ")
    }
}
