@testable import Agent
@testable import KeyDownload
import Testing

/// The health rules as a pure function of the metrics: each check fails alone, and a badge doing its job
/// passes them all.
@Suite struct HealthCheckTests {
    static let now: Int64 = 1_800_000_000
    static let day: Int64 = 86_400

    var healthy: BadgeMetrics {
        var m = BadgeMetrics()
        m.exposureNotificationEnabled = true
        m.broadcasting = true
        m.scanning = true
        m.clockTrusted = true
        m.controllerReady = true
        return m
    }

    func failing(_ m: BadgeMetrics) -> [String] {
        HealthCheck.failures(of: m, now: Self.now, maximumSyncAge: Self.day).map(\.check)
    }

    @Test func aBadgeDoingItsJobPasses() {
        #expect(failing(healthy).isEmpty)
    }

    @Test func eachCheckFailsOnItsOwn() {
        var m = healthy
        m.broadcasting = false
        m.controllerReady = false
        #expect(failing(m) == ["broadcasting"])
        #expect(HealthCheck.failures(of: m, now: Self.now, maximumSyncAge: Self.day).first?.reason
                == "not on air as the controller confirmed it (the controller is not ready)")
        m = healthy
        m.exposureNotificationEnabled = false
        m.broadcasting = false
        m.scanning = false
        #expect(failing(m) == ["broadcasting"], "switched off: one failure that says so, not a scanning one too")
        m = healthy
        m.scanning = false
        #expect(failing(m) == ["scanning"])
        m = healthy
        m.clockTrusted = false
        #expect(failing(m) == ["clock"])
        m = healthy
        m.storageWritable = false
        #expect(failing(m) == ["storage"])
    }

    @Test func keySyncIsCheckedOnlyWhenConfiguredAndAfterItsFirstRun() {
        var m = healthy
        var sync = KeySyncStatus()
        m.keySync = sync
        #expect(failing(m).isEmpty, "no key server configured")
        sync.phase = .listing
        m.keySync = sync
        #expect(failing(m).isEmpty, "the first sync is under way")
        sync.phase = .idle
        var run = SyncReport()
        run.outcome = .failed("listing https://keys.example/index.txt: HTTP 503")
        sync.lastRun = run
        sync.lastError = "listing https://keys.example/index.txt: HTTP 503"
        m.keySync = sync
        #expect(HealthCheck.failures(of: m, now: Self.now, maximumSyncAge: Self.day).map(\.reason)
                == ["no key sync has succeeded since the agent started: listing https://keys.example/index.txt: HTTP 503"])
        sync.lastSuccess = Self.now - Self.day
        m.keySync = sync
        #expect(failing(m).isEmpty, "synced exactly at the limit")
        sync.lastSuccess = Self.now - 3 * Self.day
        m.keySync = sync
        #expect(HealthCheck.failures(of: m, now: Self.now, maximumSyncAge: Self.day).map(\.reason)
                == ["the last successful key sync was 72 h ago (health.max_sync_age_hours is 24)"])
    }
}
