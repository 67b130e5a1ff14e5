import ENCore

extension ExposureVerdict {
    /// The log line for a newly recorded exposure this verdict does not notify, in the words of the model that
    /// decided: Google's names the exposure's v1 score and `risk.threshold`; the Corona-Warn-App's names its total
    /// risk level, for that model scores days of windows, not one exposure's number. Nil for a notifiable one.
    package func quietLine(for exposure: Exposure) -> String? {
        guard !notifiable.contains(exposure.id) else { return nil }
        let head = "exposure \(exposure.id.short) on \(exposure.date): \(exposure.durationMinutes) min, "
        switch model {
        case .google(let threshold):
            return head + "risk score \(exposure.riskScore), below the threshold \(threshold)"
        case .cwa:
            let level = cwa?.totalRiskLevel ?? .low
            return head + "risk model cwa: no day of high risk among its windows' (total risk level \(level))"
        }
    }
}
