import ENCore
import EventLoop

/// Tells the outside world about exposures the risk model finds notifiable (`ExposureVerdict`: at or above
/// `risk.threshold`, or on a day of high risk in the Corona-Warn-App's calculation): a log line (the date,
/// duration, attenuation and score — never key material) and `notify.command` with the exposure as JSON on stdin.
/// Each exposure is notified once: it is marked in the log before the command runs.
package final class ExposureNotifier {
    package struct Settings: Equatable, Sendable {
        /// v1 risk score at or above which an exposure is notified.
        package var threshold: Int
        /// Shell command, or nil for none.
        package var command: String?
        /// What decides (`risk.model`); Google's with `threshold` unless told.
        package var model: RiskModel

        package init(threshold: Int = 1, command: String? = nil, model: RiskModel? = nil) {
            self.threshold = threshold
            self.command = command
            self.model = model ?? .google(threshold: threshold)
        }

        /// `model`: `RiskModel(configuration:)`, which reads a file and may fail; Google's when not given.
        package init(configuration: Configuration, model: RiskModel? = nil) {
            self.init(threshold: configuration.integer(.riskThreshold), command: configuration.optional(.notifyCommand),
                      model: model)
        }
    }

    package var settings: Settings {
        didSet { if settings.command != oldValue.command { makeCommand() } }
    }
    /// Exposures notified since the agent started.
    package private(set) var notified = 0
    /// The command runner, nil without `notify.command`.
    package private(set) var command: NotifyCommand?
    /// Called once per `notifyPending` that notified anything, after the log lines (the indicator listens).
    package var onNotified: ([Exposure]) -> Void = { _ in }

    private let loop: any EventLoop
    private let log: Logger

    package init(loop: any EventLoop, settings: Settings, log: Logger) {
        self.loop = loop
        self.settings = settings
        self.log = log
        makeCommand()
    }

    /// What the risk model makes of `exposures` now.
    package func verdict(on exposures: ExposureLog) -> ExposureVerdict {
        ExposureVerdict(exposures: exposures.exposures, model: settings.model)
    }

    /// Notifies every exposure in `exposures` that the risk model finds notifiable and was not notified yet.
    package func notifyPending(in exposures: ExposureLog) {
        let verdict = verdict(on: exposures)
        let pending = exposures.exposures.filter { !$0.notified && verdict.notifiable.contains($0.id) }
        guard !pending.isEmpty else { return }
        do {
            try exposures.markNotified(Set(pending.map { $0.id }))
        } catch {
            // Notifying twice after a disk failure beats not notifying at all.
            log.error("exposures: cannot mark as notified (may notify again): \(error)")
        }
        for var exposure in pending {
            exposure.notified = true
            notified += 1
            log.warn(.exposureRecorded, "EXPOSURE \(exposure.id.short) on \(exposure.date): \(exposure.durationMinutes) min, "
                     + "attenuation \(exposure.typicalAttenuation) dB, risk score \(exposure.riskScore) "
                     + "(\(decision(verdict))), \(exposure.reportType)")
            command?.run(input: Array((exposure.json + "\n").utf8), label: "exposure \(exposure.id.short)")
        }
        onNotified(pending)
    }

    /// Why it is notified, for the log line.
    private func decision(_ verdict: ExposureVerdict) -> String {
        switch verdict.model {
        case .google(let threshold): "threshold \(threshold)"
        case .cwa: "risk model cwa: a day of high risk, total risk \(verdict.cwa?.totalRiskLevel ?? .low)"
        }
    }

    private func makeCommand() {
        command = settings.command.map { NotifyCommand($0, loop: loop, log: log) }
    }
}

extension ExposureNotifier {
    /// Runs `notify.command`, if there is one, with another event than an exposure (a key share's outcome) as
    /// one JSON line on stdin; `label` names it in the log.
    package func notify(event json: String, label: String) {
        command?.run(input: Array((json + "\n").utf8), label: label)
    }
}
