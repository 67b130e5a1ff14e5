extension CWARiskModel {
    /// Steps 1–4 of the type's comment for one window.
    public static func outcome(of window: ExposureWindow, configuration: CWARiskConfiguration) -> CWAWindowOutcome {
        for filter in configuration.minutesAtAttenuationFilters {
            let seconds = countedSeconds(of: window) { filter.attenuationRange.contains(Int($0.minAttenuation)) }
            if filter.dropIfMinutesInRange.contains(seconds / 60) { return .droppedByMinutesAtAttenuation }
        }
        guard let level = configuration.transmissionRiskLevelEncoding.transmissionRiskLevel(
            reportType: window.reportType, infectiousness: window.infectiousness)
        else { return .unscoredReportType(window.reportType) }
        if configuration.transmissionRiskLevelFilters.contains(where: { $0.contains(level) }) {
            return .droppedByTransmissionRiskLevel(level)
        }
        let value = configuration.transmissionRiskValues[level] ?? 0
        let normalizedTime = value * weightedMinutes(of: window, configuration: configuration)
        guard let riskLevel = configuration.normalizedTimePerWindowToRiskLevel
            .first(where: { $0.normalizedTimeRange.contains(normalizedTime) })?.riskLevel
        else { return .noRiskLevel(transmissionRiskLevel: level, normalizedTime: normalizedTime) }
        return .counted(CWAWindowRisk(transmissionRiskLevel: level, normalizedTime: normalizedTime, riskLevel: riskLevel))
    }

    /// Σ seconds × attenuation weight ÷ 60. Summed in the instances' order, as the app does, so that the floating-point
    /// result (which the mappings compare at their bounds) is the app's to the last bit.
    public static func weightedMinutes(of window: ExposureWindow, configuration: CWARiskConfiguration) -> Double {
        var seconds = 0.0
        for instance in window.scanInstances {
            let weight = configuration.minutesAtAttenuationWeights
                .first { $0.attenuationRange.contains(Int(instance.minAttenuation)) }?.weight ?? 0
            seconds += Double(max(instance.secondsSinceLastScan, 0)) * weight
        }
        return seconds / 60
    }

    /// The seconds of the instances `included` selects; a negative gap (the phone's clock went back) counts as 0.
    private static func countedSeconds(of window: ExposureWindow, where included: (ScanInstance) -> Bool) -> Double {
        var seconds = 0.0
        for instance in window.scanInstances where included(instance) {
            seconds += Double(max(instance.secondsSinceLastScan, 0))
        }
        return seconds
    }
}
