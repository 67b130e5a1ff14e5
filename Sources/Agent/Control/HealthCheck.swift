/// Whether a badge is doing its job, decided from its metrics alone: what `enbeacon ctl health` answers, and
/// what an update agent (Mender's ArtifactCommit, RAUC's mark-good, systemd) decides by, from its exit code.
///
/// Pure: the same metrics and time always give the same verdict, so the rules are tested without an agent.
package enum HealthCheck {
    /// One check that fails: a stable name (for scripts and `--json`) and the reason in words.
    package struct Failure: Equatable, Sendable {
        package var check: String
        package var reason: String
    }

    /// The checks, in the order they are reported.
    package static let checks = ["broadcasting", "scanning", "clock", "storage", "keysync"]

    /// The failing checks; empty when the badge is healthy. A key server that is not configured is not
    /// checked; one whose first sync has not finished yet is not failed for it (a badge just started).
    package static func failures(of m: BadgeMetrics, now: Int64, maximumSyncAge: Int64) -> [Failure] {
        var failing: [Failure] = []
        if !m.exposureNotificationEnabled {
            failing.append(Failure(check: "broadcasting", reason: "exposure notification is switched off (en on)"))
        } else if !m.broadcasting {
            failing.append(Failure(check: "broadcasting", reason: "not on air as the controller confirmed it"
                                   + (m.controllerReady ? "" : " (the controller is not ready)")))
        }
        if m.exposureNotificationEnabled && !m.scanning {
            failing.append(Failure(check: "scanning", reason: "no scan window opened in the last "
                                   + "\(BadgeMetrics.scanningWindowSeconds / 60) min"))
        }
        if !m.clockTrusted {
            failing.append(Failure(check: "clock", reason: "the clock is not trusted (time shows why)"))
        }
        if !m.storageWritable {
            failing.append(Failure(check: "storage", reason: "sightings or keys cannot be written (status shows why)"))
        }
        for sync in ([m.keySync].compactMap { $0 } + m.namedKeySyncs) where sync.phase != .notConfigured {
            // Each server is checked: the EU feed failing for a week is news even while the national one works.
            let check = sync.name.map { "keysync." + $0 } ?? "keysync"
            if let success = sync.lastSuccess {
                let age = now - success
                if age > maximumSyncAge {
                    failing.append(Failure(check: check, reason: "the last successful key sync was \(age / 3600) h ago "
                                           + "(health.max_sync_age_hours is \(maximumSyncAge / 3600))"))
                }
            } else if sync.lastRun != nil {
                failing.append(Failure(check: check, reason: "no key sync has succeeded since the agent started"
                                       + (sync.lastError.map { ": \($0)" } ?? "")))
            }
        }
        return failing
    }
}
