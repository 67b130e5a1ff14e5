import ENCore

/// What the configured risk model makes of the recorded exposures: which of them are to be notified (and
/// signalled on the badge), and, for the Corona-Warn-App's model, its whole answer — the total risk level and
/// the days with low and high risk — as `exposures` and `status` show it. Pure: the same exposures and model
/// give the same verdict, after a sync or on the console.
package struct ExposureVerdict: Equatable, Sendable {
    package var model: RiskModel
    /// Exposures the model finds worth telling someone about.
    package var notifiable: Set<ExposureID>
    /// The Corona-Warn-App's calculation over every recorded window; nil with Google's model.
    package var cwa: CWARiskResult?

    package init(exposures: [Exposure], model: RiskModel) {
        self.model = model
        switch model {
        case .google(let threshold):
            notifiable = Set(exposures.filter { $0.riskScore >= threshold }.map { $0.id })
            cwa = nil
        case .cwa(let configuration):
            // The windows as `exposures --windows` gives them: a record written before windows were kept has none.
            var windows: [ExposureWindow] = []
            for exposure in exposures {
                for window in exposure.windows {
                    if let exposureWindow = window.exposureWindow { windows.append(exposureWindow) }
                }
            }
            let result = CWARiskModel.risk(of: windows, configuration: configuration)
            let highDays = Set(result.days.filter { $0.riskLevel == .high }.map { $0.date })
            notifiable = Set(exposures.filter { exposure in
                exposure.windows.contains { $0.exposureWindow.map { highDays.contains($0.date) } ?? false }
            }.map { $0.id })
            cwa = result
        }
    }

    /// One line: which model decided, and what.
    package var summary: String {
        guard let cwa else { return "risk model \(model.name): \(notifiable.count) at or above risk.threshold" }
        return "risk model cwa: \(cwa.totalRiskLevel) risk, \(cwa.numberOfDays(with: .high)) day(s) with high risk, "
            + "\(cwa.numberOfDays(with: .low)) with low risk"
    }
}
