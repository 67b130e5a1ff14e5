import Agent
import AgentBase
import EventLoop
import SystemIO

/// Writes the badge's metrics to `metrics.textfile` every `metrics.interval_seconds`, for node_exporter's
/// textfile collector: a temporary file beside it, renamed over it, so the collector never reads half a file.
/// Not fsync'd: the file is rewritten every few seconds and worthless after a power cut, and an SD card
/// should not pay for it. Off (no timer at all, so an idle badge wakes no more often) while the key is empty.
final class MetricsTextfile {
    private let loop: any EventLoop
    private let control: AgentControl
    private let exposition: BadgeMetricsExposition
    private let log: Logger
    private var timer: TimerHandle?
    private var path = ""
    private var interval: Duration = .seconds(15)
    /// The last write's failure, logged once until a write succeeds again.
    private var lastError: SystemError?
    package private(set) var writes = 0

    init(loop: any EventLoop, control: AgentControl, log: Logger, exposition: BadgeMetricsExposition) {
        self.loop = loop
        self.control = control
        self.exposition = exposition
        self.log = log
    }

    /// Takes the settings in force: starts, moves, retimes or stops the writes.
    package func configure(_ configuration: Configuration) {
        let newPath = configuration[.metricsTextfile]
        let newInterval = Duration.seconds(configuration.integer(.metricsIntervalSeconds))
        guard newPath != path || newInterval != interval else { return }
        path = newPath
        interval = newInterval
        if let timer { loop.cancel(timer) }
        timer = nil
        lastError = nil
        guard !path.isEmpty else { return }
        log.info("metrics: writing \(path) every \(configuration.integer(.metricsIntervalSeconds)) s")
        tick()
    }

    package func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func tick() {
        write()
        timer = loop.schedule(after: interval) { self.tick() }  // held until `stop` cancels it
    }

    private func write() {
        do {
            // 0644: node_exporter runs as a user of its own and must read it; nothing in it is private.
            try AtomicFile.write(Array(exposition.text(control.metrics()).utf8), to: path, mode: 0o644, durable: false)
            writes += 1
            if lastError != nil { log.info("metrics: \(path) written again") }
            lastError = nil
        } catch {
            if lastError != error { log.warn("metrics: cannot write \(path): \(error)") }
            lastError = error
        }
    }
}
