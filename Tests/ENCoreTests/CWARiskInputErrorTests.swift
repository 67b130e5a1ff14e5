import ENCore
import Testing

/// Configurations and window files a health authority might get wrong, each refused with the member at fault.
@Suite struct CWARiskInputErrorTests {
    /// A small valid configuration; each case replaces one piece of its text.
    static let configuration = """
        {"trlFilters": [{"dropIfTrlInRange": {"min": 1, "max": 2}}],
         "minutesAtAttenuationWeights": [{"attenuationRange": {"min": 0, "max": 63, "maxExclusive": true}, "weight": 1}],
         "normalizedTimePerEWToRiskLevelMapping": [{"normalizedTimeRange": {"min": 0, "max": 9999}, "riskLevel": 2}],
         "normalizedTimePerDayToRiskLevelMapping": [{"normalizedTimeRange": {"min": 9, "max": 99999}, "riskLevel": 2}],
         "trlEncoding": {"infectiousnessOffsetStandard": 1, "infectiousnessOffsetHigh": 2,
                         "reportTypeOffsetRecursive": 0, "reportTypeOffsetSelfReport": 2,
                         "reportTypeOffsetConfirmedClinicalDiagnosis": 4, "reportTypeOffsetConfirmedTest": 6},
         "transmissionRiskValueMapping": [{"transmissionRiskLevel": 8, "transmissionRiskValue": 1.6}]}
        """

    /// What loading is refused with, as the operator reads it; nil when it loads.
    static func refusal(_ load: () throws -> Void) -> String? {
        do { try load() } catch { return "\(error)" }
        return nil
    }

    static func configurationError(_ json: String) -> String? { refusal { _ = try CWARiskConfiguration(json: json) } }

    @Test func theSmallConfigurationLoads() throws {
        #expect(Self.configurationError(Self.configuration) == nil)
        #expect(try CWARiskConfiguration(json: Self.configuration).transmissionRiskLevelFilters == [CWARange(min: 1, max: 2)])
    }

    @Test(arguments: [
        ("\"max\": 9999}, \"riskLevel\": 2", "\"max\": 9999}, \"riskLevel\": 0",
         "normalizedTimePerEWToRiskLevelMapping[0].riskLevel: 0 is outside 1…2"),
        ("\"maxExclusive\": true", "\"maxExlusive\": true",
         "minutesAtAttenuationWeights[0].attenuationRange.maxExlusive: unknown member"),
        ("\"maxExclusive\": true", "\"maxExclusive\": 1",
         "minutesAtAttenuationWeights[0].attenuationRange.maxExclusive: expected true or false, found a number"),
        ("{\"min\": 1, \"max\": 2}", "{\"min\": 3, \"max\": 2}", "trlFilters[0].dropIfTrlInRange.min: 3 is above max 2"),
        ("{\"min\": 1, \"max\": 2}", "{\"min\": 1}", "trlFilters[0].dropIfTrlInRange.max: missing"),
        ("\"weight\": 1", "\"weight\": -0.5", "minutesAtAttenuationWeights[0].weight: -0.5 is below 0"),
        ("\"reportTypeOffsetConfirmedTest\": 6", "\"reportTypeOffsetConfirmedTest\": 6.5",
         "trlEncoding.reportTypeOffsetConfirmedTest: expected an integer, found 6.5"),
        (", \"reportTypeOffsetConfirmedTest\": 6", "", "trlEncoding.reportTypeOffsetConfirmedTest: missing"),
        ("[{\"transmissionRiskLevel\": 8, \"transmissionRiskValue\": 1.6}]",
         "[{\"transmissionRiskLevel\": 8, \"transmissionRiskValue\": 1.6}, {\"transmissionRiskLevel\": 8, \"transmissionRiskValue\": 2}]",
         "transmissionRiskValueMapping[1].transmissionRiskLevel: level 8 is mapped twice"),
        ("\"minutesAtAttenuationWeights\": [", "\"minutesAtAttenuationWeights\": [3, ",
         "minutesAtAttenuationWeights[0]: expected an object, found a number"),
        ("\"trlEncoding\"", "\"trlEncodings\"", "trlEncoding: missing"),
        ("{\"trlFilters\"", "[{\"trlFilters\"", "invalid JSON at byte"),
    ])
    func badConfigurationNamesTheMember(original: String, replacement: String, message: String) {
        let json = Self.configuration.replacingFirst(original, with: replacement)
        #expect(json != Self.configuration, "the case's text must occur in the configuration")
        let error = Self.configurationError(json)
        #expect(error?.hasPrefix(message) == true, "got: \(error ?? "no error")")
    }

    @Test func aDocumentThatIsNotAnObjectIsRefused() {
        #expect(Self.configurationError("[]") == "expected a JSON object, found an array")
        #expect(Self.configurationError("{\"defaultRiskCalculationConfiguration\": 3}")
                == "defaultRiskCalculationConfiguration: expected an object, found a number")
    }

    static let window = """
        {"ageInDays": 1, "reportType": 1, "infectiousness": 2, "calibrationConfidence": 3,
         "scanInstances": [{"minAttenuation": 30, "typicalAttenuation": 25, "secondsSinceLastScan": 300}]}
        """

    static func windowsError(_ json: String) -> String? {
        refusal { _ = try ExposureWindowsJSON.windows(json: json, today: UTCDay(isoDate: "2026-11-26")!) }
    }

    @Test func theWindowLoadsAsAListAndAsACase() throws {
        let today = UTCDay(isoDate: "2026-11-26")!
        let listed = try ExposureWindowsJSON.windows(json: "[\(Self.window)]", today: today)
        let asCase = try ExposureWindowsJSON.windows(json: "{\"description\": \"x\", \"exposureWindows\": [\(Self.window)]}",
                                                     today: today)
        #expect(listed == asCase && listed.count == 1)
        #expect(listed[0].calibrationConfidence == .high && listed[0].reportType == .confirmedTest)
        #expect(listed[0].scanInstances[0].minAttenuation == 30 && listed[0].scanInstances[0].secondsSinceLastScan == 300)
    }

    @Test(arguments: [
        ("\"reportType\": 1", "\"reportType\": 0", "[0].reportType: 0 (unknown) never labels a phone's window: expected 1–4"),
        ("\"reportType\": 1", "\"reportType\": 5", "[0].reportType: 5 (revoked) never labels a phone's window"),
        ("\"infectiousness\": 2", "\"infectiousness\": 0", "[0].infectiousness: 0 is outside 1…2"),
        ("\"calibrationConfidence\": 3", "\"calibrationConfidence\": 4", "[0].calibrationConfidence: 4 is outside 0…3"),
        ("\"ageInDays\": 1", "\"ageInDays\": 1, \"date\": \"2026-11-25\"", "[0].date: give one of ageInDays, date, dateMillisSinceEpoch"),
        ("\"ageInDays\": 1", "\"age\": 1", "[0].ageInDays: missing (or give date)"),
        ("\"ageInDays\": 1", "\"ageInDays\": -1", "[0].ageInDays: -1 is outside 0…100000"),
        ("\"ageInDays\": 1", "\"date\": \"2026-02-30\"", "[0].date: \"2026-02-30\" is not a date such as 2020-12-01"),
        ("\"minAttenuation\": 30", "\"minAttenuation\": 300", "[0].scanInstances[0].minAttenuation: 300 is outside 0…255"),
        ("\"secondsSinceLastScan\": 300", "\"secondsSinceLastScan\": \"300\"",
         "[0].scanInstances[0].secondsSinceLastScan: expected an integer, found a string"),
        ("\"scanInstances\"", "\"scans\"", "[0].scanInstances: missing"),
    ])
    func badWindowNamesTheMember(original: String, replacement: String, message: String) {
        let json = "[" + Self.window.replacingFirst(original, with: replacement) + "]"
        let error = Self.windowsError(json)
        #expect(error?.hasPrefix(message) == true, "got: \(error ?? "no error")")
    }

    @Test func aWindowsDocumentMustListWindows() {
        #expect(Self.windowsError("{\"windows\": []}") == "exposureWindows: missing")
        #expect(Self.windowsError("{\"exposureWindows\": {}}") == "exposureWindows: expected an array of windows")
        #expect(Self.windowsError("[1]") == "[0]: expected an object, found a number")
        #expect(Self.windowsError("[") ?? "" != "")
        #expect(Self.windowsError("[]") == nil)
    }
}
