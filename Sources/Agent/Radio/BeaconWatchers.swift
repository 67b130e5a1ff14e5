import HCI

/// Whoever watches the beacons the radio hears as they arrive (the console's `live`, simulations), in the
/// order they began watching so that simulations stay deterministic.
///
/// A watcher may ask the radio to listen between scan windows too (`live` shows beacons at once instead of at
/// the next window minutes away); the scanner is told whenever that need changes.
final class BeaconWatchers {
    typealias Watch = (GAENReport, Int64) -> Void

    private var watchers: [(token: Int, listens: Bool, watch: Watch)] = []
    private var lastToken = 0
    /// Told whether any watcher wants the radio to listen between scans.
    var onListeningNeedChanged: (Bool) -> Void = { _ in }

    /// Calls `watch` with every GAEN report and its Unix time until `remove(token)`.
    func add(listens: Bool, _ watch: @escaping Watch) -> Int {
        lastToken += 1
        watchers.append((lastToken, listens, watch))
        onListeningNeedChanged(watchers.contains { $0.listens })
        return lastToken
    }

    func remove(_ token: Int) {
        watchers.removeAll { $0.token == token }
        onListeningNeedChanged(watchers.contains { $0.listens })
    }

    func tell(_ report: GAENReport, at unixSeconds: Int64) {
        for watcher in watchers { watcher.watch(report, unixSeconds) }
    }
}
