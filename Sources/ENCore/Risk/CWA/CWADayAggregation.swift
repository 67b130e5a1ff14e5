extension CWARiskModel {
    /// The per-day step over windows already scored:
    /// 1. Counted windows are grouped by date; a day's normalized time is the sum of theirs, rounded half up to
    ///    one decimal (the app rounds so that 1 × 3 × 1.2 summing to 3.5999… still reaches a bound at 3.6).
    /// 2. Its risk level is the first per-day mapping holding that time; a day without one is left out, its
    ///    encounters too.
    /// 3. Minimum distinct encounters with low (high) risk: the day's windows of that per-window level, counting
    ///    windows with the same transmission risk level and calibration confidence once.
    public static func aggregate(_ scored: [(window: ExposureWindow, outcome: CWAWindowOutcome)],
                                 configuration: CWARiskConfiguration) -> CWARiskResult {
        var byDate: [UTCDay: [(window: ExposureWindow, risk: CWAWindowRisk)]] = [:]
        for (window, outcome) in scored {
            guard let risk = outcome.risk else { continue }
            byDate[window.date, default: []].append((window, risk))
        }
        var days: [CWADayRisk] = []
        for date in byDate.keys.sorted() {
            let windows = byDate[date]!
            // Summed in the order the windows came, so that the same input always gives the same last bit.
            let normalizedTime = roundedToTenths(windows.reduce(0) { $0 + $1.risk.normalizedTime })
            guard let level = configuration.normalizedTimePerDayToRiskLevel
                .first(where: { $0.normalizedTimeRange.contains(normalizedTime) })?.riskLevel else { continue }
            func encounters(_ level: CWARiskLevel) -> Int {
                var seen: Set<[Int]> = []
                for (window, risk) in windows where risk.riskLevel == level {
                    seen.insert([risk.transmissionRiskLevel, window.calibrationConfidence.rawValue])
                }
                return seen.count
            }
            days.append(CWADayRisk(date: date, normalizedTime: normalizedTime, riskLevel: level,
                                   minimumDistinctEncountersWithLowRisk: encounters(.low),
                                   minimumDistinctEncountersWithHighRisk: encounters(.high)))
        }
        return CWARiskResult(windows: scored.map { $0.outcome }, days: days)
    }

    /// Half up, as the app's rounding does (Java's `Math.round`: 0.05 → 0.1, −0.05 → 0).
    static func roundedToTenths(_ value: Double) -> Double {
        let scaled = value * 10
        let floor = scaled.rounded(.down)
        return (scaled - floor >= 0.5 ? floor + 1 : floor) / 10
    }
}
