import AgentBase
import ENCore
import EventLoop
import Network
import Store

/// The key download from every configured key server: the default one (`keyserver.*`) and each named one
/// (`keyserver.<name>.*`), each a `KeySync` with its own cursor file, schedule, retries, limits and status
/// line, all recording into the one exposure log.
///
/// A key two servers publish (a national server and the EU gateway's feed of the same keys) is matched by
/// each, and recorded once: the exposure log keeps one record per key (`ExposureID`, from the key data and
/// its rolling start), and notifies a record once. Runs take turns (`SyncTurns`): one server's at a time.
package final class KeyServers {
    /// The default server's first, then the named ones by name.
    package private(set) var syncs: [KeySync] = []

    private let make: (KeySyncSettings, Bool) -> KeySync
    private var started = false

    package init(loop: any EventLoop, http: any NetworkTransport, settings: [KeySyncSettings], clock: Clock, store: SightingStore,
                exposures: ExposureLog, notifier: ExposureNotifier, schedule: KeySchedule, dataDirectory: String,
                generator: @escaping (String?) -> ServiceRandom, log: Logger) {
        let turns = SyncTurns()
        make = { settings, removesStaleDownloads in
            KeySync(loop: loop, http: http, settings: settings, clock: clock, store: store, exposures: exposures,
                    notifier: notifier, schedule: schedule, dataDirectory: dataDirectory, turns: turns,
                    removesStaleDownloads: removesStaleDownloads, generator: generator(settings.name), log: log)
        }
        // Every download left by an earlier run is stale now, whichever server's: the first sync removes them.
        syncs = settings.enumerated().map { index, settings in make(settings, index == 0) }
    }

    /// The default server's sync (configured or not).
    package var defaultServer: KeySync { syncs[0] }

    package var statuses: [KeySyncStatus] { syncs.map { $0.status } }

    /// Starts every server's periodic syncing (each logs if it is not configured). Call once the clock is trusted.
    package func start() {
        started = true
        for sync in syncs { sync.start() }
    }

    package func stop() {
        started = false
        for sync in syncs { sync.stop() }
    }

    /// A run now on every configured server; `finished` gets every report (with the server's name) once all
    /// have ended. `.started` if any run started, `.alreadyRunning` if every one was under way or waiting.
    @discardableResult
    package func syncNow(finished: @escaping ([(name: String?, report: SyncReport)]) -> Void = { _ in }) -> SyncRequest {
        let configured = syncs.filter { $0.settings.server != nil }
        guard !configured.isEmpty else { return .notConfigured }
        var reports: [(name: String?, report: SyncReport)?] = Array(repeating: nil, count: configured.count)
        var requests: [SyncRequest] = []
        for (index, sync) in configured.enumerated() {
            let request = sync.syncNow { report in
                reports[index] = (sync.name, report)
                let all = reports.compactMap { $0 }
                if all.count == reports.count { finished(all) }
            }
            // The clock is the agent's: if one server cannot start for it, none can.
            if request == .clockNotTrusted { return request }
            requests.append(request)
        }
        return requests.contains(.started) ? .started : .alreadyRunning
    }

    /// New settings: a server still configured is reconfigured in place (its run cancelled, its cursor kept
    /// when its URL is the same), a new one made and started, one no longer configured stopped and dropped.
    package func reconfigure(_ settings: [KeySyncSettings]) {
        var kept: [KeySync] = []
        for new in settings {
            if let sync = syncs.first(where: { $0.name == new.name }) {
                sync.reconfigure(new)
                kept.append(sync)
            } else {
                let sync = make(new, false)
                if started { sync.start() }
                kept.append(sync)
            }
        }
        for sync in syncs where !kept.contains(where: { $0 === sync }) { sync.stop() }
        syncs = kept
    }
}
