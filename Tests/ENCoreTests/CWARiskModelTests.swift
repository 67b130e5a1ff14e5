@testable import ENCore
import Testing

/// The Corona-Warn-App's risk calculation against the app's own published expectations, and the steps of it the
/// file's default configuration cannot reach (its filters are empty).
@Suite struct CWARiskModelTests {
    /// Any day does: the file gives ages, and the answer is in ages too.
    static let today = UTCDay(isoDate: "2026-11-26")!

    @Test func theFileHasTwentyNineCases() {
        #expect(CWATestFile.cases.count == 29)
    }

    @Test(arguments: 0..<29)
    func reproducesTheAppsExpectations(index: Int) throws {
        let testCase = CWATestFile.cases[index]
        let name = Comment(rawValue: "case \(index + 1): \(CWATestFile.description(testCase))")
        let configuration = try CWARiskConfiguration(json: CWATestFile.text)
        let windows = try ExposureWindowsJSON.windows(testCase, today: Self.today)
        let result = CWARiskModel.risk(of: windows, configuration: configuration)

        func age(_ level: CWARiskLevel) -> Int? {
            result.mostRecentDate(with: level).map { Int($0.days(until: Self.today)) }
        }
        #expect(result.totalRiskLevel.rawValue == CWATestFile.integer(testCase, "expTotalRiskLevel"), name)
        #expect(age(.low) == CWATestFile.integer(testCase, "expAgeOfMostRecentDateWithLowRisk"), name)
        #expect(age(.high) == CWATestFile.integer(testCase, "expAgeOfMostRecentDateWithHighRisk"), name)
        #expect(result.numberOfDays(with: .low) == CWATestFile.integer(testCase, "expNumberOfDaysWithLowRisk"), name)
        #expect(result.numberOfDays(with: .high) == CWATestFile.integer(testCase, "expNumberOfDaysWithHighRisk"), name)
        #expect(result.totalMinimumDistinctEncounters(with: .low)
                == CWATestFile.integer(testCase, "expTotalMinimumDistinctEncountersWithLowRisk"), name)
        #expect(result.totalMinimumDistinctEncounters(with: .high)
                == CWATestFile.integer(testCase, "expTotalMinimumDistinctEncountersWithHighRisk"), name)
    }

    /// The default configuration, read from the file's member, against the numbers written there.
    @Test func readsTheDefaultConfiguration() throws {
        let configuration = try CWARiskConfiguration(json: CWATestFile.text)
        #expect(configuration.minutesAtAttenuationFilters.isEmpty && configuration.transmissionRiskLevelFilters.isEmpty)
        #expect(configuration.minutesAtAttenuationWeights.map { $0.weight } == [0.8, 1, 0.1])
        #expect(configuration.minutesAtAttenuationWeights[0].attenuationRange
                == CWARange(min: 0, max: 63, maxExclusive: true))
        #expect(configuration.normalizedTimePerWindowToRiskLevel.map { $0.riskLevel } == [.low, .high])
        #expect(configuration.normalizedTimePerDayToRiskLevel[0].normalizedTimeRange
                == CWARange(min: 5, max: 9, maxExclusive: true))
        #expect(configuration.transmissionRiskLevelEncoding.reportTypeOffsetConfirmedTest == 6)
        #expect(configuration.transmissionRiskValues == [1: 0, 2: 0, 3: 0.6, 4: 0.8, 5: 1, 6: 1.2, 7: 1.4, 8: 1.6])
    }

    /// A confirmed-test window (TRL 6 + high 2 = 8, value 1.6) at 30 dB (weight 0.8) for `minutes`.
    static func window(minutes: Int, ageInDays: Int = 1, attenuation: Int = 30) -> String {
        """
        {"ageInDays": \(ageInDays), "reportType": 1, "infectiousness": 2, "calibrationConfidence": 0,
         "scanInstances": [{"minAttenuation": \(attenuation), "typicalAttenuation": 25,
                            "secondsSinceLastScan": \(minutes * 60)}]}
        """
    }

    @Test func minutesAtAttenuationFilterDropsShortWindows() throws {
        var configuration = try CWARiskConfiguration(json: CWATestFile.text)
        configuration.minutesAtAttenuationFilters = [.init(attenuationRange: CWARange(min: 0, max: 73, maxExclusive: true),
                                                          dropIfMinutesInRange: CWARange(min: 0, max: 10, maxExclusive: true))]
        let windows = try ExposureWindowsJSON.windows(json: "[\(Self.window(minutes: 9)), \(Self.window(minutes: 10))]",
                                                      today: Self.today)
        let result = CWARiskModel.risk(of: windows, configuration: configuration)
        #expect(result.windows[0] == .droppedByMinutesAtAttenuation)
        // 10 min × 0.8 × 1.6 = 12.8: high on its own.
        #expect(result.windows[1].risk == CWAWindowRisk(transmissionRiskLevel: 8, normalizedTime: 12.8, riskLevel: .high))
        #expect(result.totalRiskLevel == .high)
    }

    @Test func transmissionRiskLevelFilterDropsWindows() throws {
        var configuration = try CWARiskConfiguration(json: CWATestFile.text)
        configuration.transmissionRiskLevelFilters = [CWARange(min: 7, max: 8)]
        let windows = try ExposureWindowsJSON.windows(json: "[\(Self.window(minutes: 30))]", today: Self.today)
        let result = CWARiskModel.risk(of: windows, configuration: configuration)
        #expect(result.windows == [.droppedByTransmissionRiskLevel(8)])
        #expect(result.days.isEmpty && result.totalRiskLevel == .low)
    }

    /// Windows of two days: each day its own level, the most recent of each level by date.
    @Test func daysAreRatedSeparately() throws {
        let configuration = try CWARiskConfiguration(json: CWATestFile.text)
        // 5 min × 0.8 × 1.6 = 6.4: low; 10 min: 12.8, high.
        let json = "[\(Self.window(minutes: 5, ageInDays: 2)), \(Self.window(minutes: 10, ageInDays: 4)), "
            + "\(Self.window(minutes: 5, ageInDays: 3))]"
        let result = CWARiskModel.risk(of: try ExposureWindowsJSON.windows(json: json, today: Self.today),
                                       configuration: configuration)
        #expect(result.days.map { $0.date.days(until: Self.today) } == [4, 3, 2])
        #expect(result.days.map { $0.riskLevel } == [.high, .low, .low])
        #expect(result.days.map { $0.normalizedTime } == [12.8, 6.4, 6.4])
        #expect(result.mostRecentDate(with: .low)?.days(until: Self.today) == 2)
        #expect(result.mostRecentDate(with: .high)?.days(until: Self.today) == 4)
        #expect(result.totalRiskLevel == .high)
    }

    /// A window outside every per-window range is reported as such and counts nowhere.
    @Test func windowWithoutRiskLevelIsReported() throws {
        var configuration = try CWARiskConfiguration(json: CWATestFile.text)
        configuration.normalizedTimePerWindowToRiskLevel.removeFirst()  // no low range: below 9 maps to nothing
        let windows = try ExposureWindowsJSON.windows(json: "[\(Self.window(minutes: 5))]", today: Self.today)
        let result = CWARiskModel.risk(of: windows, configuration: configuration)
        #expect(result.windows == [.noRiskLevel(transmissionRiskLevel: 8, normalizedTime: 6.4)])
        #expect(result.days.isEmpty)
    }

    /// `date` as text or as Android's milliseconds names the same day `ageInDays` does.
    @Test func datesAndAgesNameTheSameDay() throws {
        let byAge = try ExposureWindowsJSON.windows(json: "[\(Self.window(minutes: 5, ageInDays: 3))]", today: Self.today)
        for date in ["\"2026-11-23\"", "\(UTCDay(isoDate: "2026-11-23")!.unixSeconds * 1000)"] {
            let json = Self.window(minutes: 5, ageInDays: 3).replacingFirst("\"ageInDays\": 3", with: "\"date\": \(date)")
            #expect(try ExposureWindowsJSON.windows(json: "[\(json)]", today: Self.today) == byAge)
        }
        #expect(byAge[0].date == UTCDay(isoDate: "2026-11-23"))
    }

    /// The app's rounding: half up at the first decimal.
    @Test(arguments: [(3.5999999999999996, 3.6), (0.05, 0.1), (0.04999, 0), (12.34, 12.3)])
    func dayNormalizedTimeIsRoundedToTenths(value: Double, rounded: Double) {
        #expect(CWARiskModel.roundedToTenths(value) == rounded)
    }
}

extension String {
    /// `self` with the first occurrence of `target` replaced; without Foundation.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        let characters = Array(self), pattern = Array(target)
        guard pattern.count <= characters.count else { return self }
        for start in 0...(characters.count - pattern.count) where Array(characters[start..<start + pattern.count]) == pattern {
            return String(characters[..<start]) + replacement + String(characters[(start + pattern.count)...])
        }
        return self
    }
}
