import ENCore
import SystemIO

/// `enbeacon risk`: the Corona-Warn-App's risk calculation on exposure windows given in a file, without a store or
/// a radio, so that a health authority can see what its configuration makes of windows phones report.
enum RiskCommand {
    static let help = """
        usage: enbeacon risk --config CONFIG.json --windows WINDOWS.json [--today YYYY-MM-DD] [--json]

        Scores exposure windows with the Corona-Warn-App's risk calculation and prints the total risk
        level, the days with low and with high risk, the most recent of each and its age, and the
        minimum distinct encounters with each.
          --config FILE    the app's risk-calculation configuration, in the shape of the
                           defaultRiskCalculationConfiguration object of its test resources
                           (minutesAtAttenuationFilters, trlFilters, minutesAtAttenuationWeights,
                           normalizedTimePerEWToRiskLevelMapping, normalizedTimePerDayToRiskLevelMapping,
                           trlEncoding, transmissionRiskValueMapping); a document holding it under
                           defaultRiskCalculationConfiguration (the app's test file) is read from there.
          --windows FILE   exposure windows as phones' APIs give them: a JSON array, or an object with
                           exposureWindows; each with ageInDays or date (2020-12-01, or milliseconds
                           since 1970), reportType 1-4, infectiousness 1-2, calibrationConfidence 0-3,
                           scanInstances of minAttenuation, typicalAttenuation, secondsSinceLastScan.
          --today DAY      the day ages count back from (default: today, UTC).
          --json           one JSON document: totalRiskLevel, numberOfDaysWith{Low,High}Risk,
                           mostRecentDateWith{Low,High}Risk, ageOfMostRecentDateWith{Low,High}Risk,
                           totalMinimumDistinctEncountersWith{Low,High}Risk, days, windows.
        Exit status 1 when a file cannot be read or is refused (the message names the member at
        fault), 2 for a bad command line.
        """

    struct Request {
        var config: String
        var windows: String
        var today: UTCDay?
        var json: Bool
    }

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> Request {
        let c = arguments.command
        let config = try arguments.required("--config", "the risk-calculation configuration, JSON")
        let windows = try arguments.required("--windows", "the exposure windows, JSON")
        var today: UTCDay?
        if let text = try arguments.option("--today") {
            guard let day = UTCDay(isoDate: text) else { throw UsageError(c, "--today: expected YYYY-MM-DD, got '\(text)'") }
            today = day
        }
        let json = arguments.flag("--json")
        try arguments.finish()
        return Request(config: config, windows: windows, today: today, json: json)
    }

    static func run(_ request: Request, out: FileOutput) throws(CommandFailure) {
        let today = request.today ?? UTCDay(unixSeconds: MatchCommand.currentUnixSeconds())
        let configurationText = try read(request.config, limit: 1 << 20, option: "--config")
        let windowsText = try read(request.windows, limit: 64 << 20, option: "--windows")
        let configuration: CWARiskConfiguration
        do { configuration = try CWARiskConfiguration(json: configurationText) } catch {
            throw CommandFailure("--config \(request.config): \(error)")
        }
        let windows: [ExposureWindow]
        do { windows = try ExposureWindowsJSON.windows(json: windowsText, today: today) } catch {
            throw CommandFailure("--windows \(request.windows): \(error)")
        }
        let report = Report(today: today, windows: windows, result: CWARiskModel.risk(of: windows, configuration: configuration))
        out.write(request.json ? report.json + "\n" : report.text)
    }

    private static func read(_ path: String, limit: Int, option: String) throws(CommandFailure) -> String {
        do { return try ReadOnlyFile(path: path).readText(limit: limit) } catch { throw CommandFailure("\(option) \(error.brief)") }
    }
}
