import Testing
@testable import ENCore

/// Midnight UTC, 2020-04-02 (ENIN 2642976).
private let day0: Int64 = 1_585_785_600
private let tenAM = day0 + 10 * 3600

/// Thresholds [55, 63, 70] and every weight 1.0, minimum score 0.
private func unitWeights(minimumWindowScore: Double = 0) throws -> ExposureConfigurationV2 {
    try ExposureConfigurationV2(
        attenuationThresholds: [55, 63, 70], attenuationWeights: [1, 1, 1, 1],
        reportTypeWeights: [.confirmedTest: 1, .confirmedClinicalDiagnosis: 1, .selfReport: 1, .recursive: 1],
        standardInfectiousnessWeight: 1, highInfectiousnessWeight: 1, minimumWindowScore: minimumWindowScore)
}

private func key(_ sightings: [MatchedSighting], reportType: ReportType = .confirmedTest,
                 daysSinceOnset: Int? = nil) -> MatchedKey {
    MatchedKey(rollingStart: ENIntervalNumber(2_642_976), transmissionRiskLevel: 0, reportType: reportType,
               daysSinceOnsetOfSymptoms: daysSinceOnset, sightings: sightings)
}

/// `count` scans `spacing` seconds apart from `start`, each recorded `spacing` s after the previous scan.
private func scans(from start: Int64, count: Int, spacing: Int64 = 300, attenuation: UInt8 = 50) -> [MatchedSighting] {
    (0..<count).map {
        MatchedSighting(time: start + Int64($0) * spacing, attenuation: attenuation,
                        secondsSincePreviousScan: UInt16(spacing))
    }
}

@Suite("v2 windows, scan-instance grouping and daily sums on hand-computed examples")
struct RiskV2Tests {
    @Test func sightingsAtMost25Point5SecondsAfterAnInstanceStartJoinIt() {
        // 25 s apart: one instance. Typical = round((50 + 51) / 2 = 50.5) = 51; min = min(45, 48) = 45;
        // the instance stands for the time before its first sighting, 300 s.
        let joined = ScanInstance.group([
            MatchedSighting(time: tenAM + 25, attenuation: 51, minimumAttenuation: 48, secondsSincePreviousScan: 25),
            MatchedSighting(time: tenAM, attenuation: 50, minimumAttenuation: 45, secondsSincePreviousScan: 300),
        ])
        #expect(joined == [ScanInstance(time: tenAM, typicalAttenuation: 51, minAttenuation: 45, secondsSinceLastScan: 300)])

        // 26 s apart: two instances.
        let split = ScanInstance.group([
            MatchedSighting(time: tenAM, attenuation: 50, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 26, attenuation: 51, secondsSincePreviousScan: 26),
        ])
        #expect(split.map(\.time) == [tenAM, tenAM + 26])
        #expect(split.map(\.typicalAttenuation) == [50, 51])

        // Anchored at the instance's first sighting, not chained: 0, 20, 40 s → [0, 20] and [40].
        let anchored = ScanInstance.group(scans(from: tenAM, count: 3, spacing: 20))
        #expect(anchored.map(\.time) == [tenAM, tenAM + 40])
    }

    @Test func secondsSinceLastScanIsWholeMinutesCappedAt300And120WhenUnknown() {
        // (recorded s, seconds the scan stands for)
        let cases: [(UInt16, Int)] = [
            (0, 120),  // unknown
            (1, 60), (29, 60), (89, 60),  // under a minute and a half: one minute (never zero)
            (90, 120), (210, 240), (240, 240), (269, 240), (270, 300),
            (299, 300), (300, 300), (301, 300), (1000, 300), (65535, 300),  // capped
        ]
        for (recorded, seconds) in cases {
            #expect(ScanInstance.secondsSinceLastScan(recorded: recorded) == seconds, "\(recorded) s")
        }
    }

    @Test func attenuationBucketsOnBothSidesOfEachThreshold() throws {
        let configuration = try unitWeights()  // [55, 63, 70]
        let cases: [(UInt8, AttenuationBucket)] = [
            (0, .immediate), (55, .immediate), (56, .near), (63, .near), (64, .medium), (70, .medium),
            (71, .other), (255, .other),
        ]
        for (decibels, bucket) in cases {
            #expect(configuration.bucket(forAttenuation: decibels) == bucket, "\(decibels) dB")
        }
    }

    @Test func aWindowHoldsInstancesStartingLessThan30MinutesAfterItsFirst() throws {
        let configuration = try unitWeights()
        let inside = RiskScoringV2.windows(of: key([
            MatchedSighting(time: tenAM, attenuation: 50, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 1799, attenuation: 50, secondsSincePreviousScan: 300),
        ]), configuration: configuration)
        #expect(inside.map(\.scanInstances.count) == [2])

        let atBoundary = RiskScoringV2.windows(of: key([
            MatchedSighting(time: tenAM, attenuation: 50, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 1800, attenuation: 50, secondsSincePreviousScan: 300),
        ]), configuration: configuration)
        #expect(atBoundary.map(\.scanInstances.count) == [1, 1])

        // Scans every 5 minutes for 50 minutes (0, 300, …, 3000 s): 0…1500 is six, 1800…3000 is five.
        let long = RiskScoringV2.windows(of: key(scans(from: tenAM, count: 11)), configuration: configuration)
        #expect(long.map(\.scanInstances.count) == [6, 5])
        #expect(long.map { RiskScoringV2.score(of: $0, configuration: configuration) } == [1800, 1500])
    }

    @Test func fifteenMinutesWithEveryWeightOneScores900() throws {
        let configuration = try unitWeights()
        // Three scans five minutes apart: 3 × 300 s × 1.0 × 1.0 × 1.0 = 900.
        let fiveMinuteScans = RiskScoringV2.windows(of: key(scans(from: tenAM, count: 3)), configuration: configuration)
        #expect(fiveMinuteScans.map { RiskScoringV2.score(of: $0, configuration: configuration) } == [900])
        // Fifteen scans a minute apart: 15 × 60 s = 900 as well.
        let minuteScans = RiskScoringV2.windows(of: key(scans(from: tenAM, count: 15, spacing: 60)),
                                                configuration: configuration)
        #expect(minuteScans.map { RiskScoringV2.score(of: $0, configuration: configuration) } == [900])
    }

    @Test func infectiousnessComesFromDaysSinceOnsetAndNoneDropsTheWindow() throws {
        let configuration = try unitWeights()  // default map: −14…−3 none, −2…2 high, 3…10 standard, 11…14 none
        let sightings = scans(from: tenAM, count: 3)
        #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: -5), configuration: configuration).isEmpty)
        #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: 11), configuration: configuration).isEmpty)
        #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: 0), configuration: configuration)
            .map(\.infectiousness) == [.high])
        #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: 10), configuration: configuration)
            .map(\.infectiousness) == [.standard])
        #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: nil), configuration: configuration)
            .map(\.infectiousness) == [.standard])
        #expect(RiskScoringV2.dailySummaries(of: [key(sightings, daysSinceOnset: -5)], configuration: configuration)
            .isEmpty)
    }

    /// Google's rule (`ExposureWindowUtils.getInfectiousness`): a value beyond −14…14 — 15, or the EU gateway's
    /// 2003 (unknown onset), 3000 (asymptomatic), 4014 (unknown status) — is scored like an absent one, with the
    /// configured default, whatever the map says of the days near it.
    @Test func onsetBeyondTheMapTakesTheDefaultInfectiousness() throws {
        let sightings = scans(from: tenAM, count: 3)
        for whenUnknown in [Infectiousness.standard, .high, .none] {
            var map = InfectiousnessByDaysSinceOnset.default
            map.whenUnknown = whenUnknown
            let configuration = try ExposureConfigurationV2(
                attenuationThresholds: [55, 63, 70], attenuationWeights: [1, 1, 1, 1],
                reportTypeWeights: [.confirmedTest: 1, .confirmedClinicalDiagnosis: 1, .selfReport: 1, .recursive: 1],
                standardInfectiousnessWeight: 1, highInfectiousnessWeight: 2, infectiousness: map, minimumWindowScore: 0)
            for onset in [-15, 15, 2003, 3000, 4014, Int(Int32.min)] {
                let windows = RiskScoringV2.windows(of: key(sightings, daysSinceOnset: onset), configuration: configuration)
                #expect(windows.map(\.infectiousness) == (whenUnknown == .none ? [] : [whenUnknown]), "onset \(onset)")
            }
            // Inside the range the map still decides: day 14 is none, day 0 high, whatever the default.
            #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: 14), configuration: configuration).isEmpty)
            #expect(RiskScoringV2.windows(of: key(sightings, daysSinceOnset: 0), configuration: configuration)
                .map(\.infectiousness) == [.high])
        }
    }

    @Test func twoWindowsOnOneDayAreSummed() throws {
        let configuration = try unitWeights()
        // 10:00, three scans: 900. 14:00, two scans: 600. Same UTC day.
        let summaries = RiskScoringV2.dailySummaries(of: [
            key(scans(from: tenAM, count: 3)),
            key(scans(from: tenAM + 4 * 3600, count: 2)),
        ], configuration: configuration)
        let expected = ExposureSummaryData(scoreSum: 1500, maximumScore: 900, weightedDurationSum: 1500)
        #expect(summaries == [DailySummary(date: UTCDay(unixSeconds: day0), overall: expected,
                                           byReportType: [.confirmedTest: expected])])
    }

    @Test func windowsOnTwoDaysAreSeparated() throws {
        let configuration = try unitWeights()
        // 900 on 2020-04-02 and 600 on 2020-04-03, given newest first.
        let summaries = RiskScoringV2.dailySummaries(of: [
            key(scans(from: tenAM + 86_400, count: 2)),
            key(scans(from: tenAM, count: 3)),
        ], configuration: configuration)
        #expect(summaries.map(\.date.description) == ["2020-04-02", "2020-04-03"])
        #expect(summaries.map(\.overall.scoreSum) == [900, 600])
        #expect(summaries.map(\.overall.maximumScore) == [900, 600])
    }

    @Test func aWindowCrossingMidnightCountsOnTheDayItBegan() throws {
        let configuration = try unitWeights()
        // 23:50, 23:55, 00:00 the next day: one window of 900 on the first day.
        let summaries = RiskScoringV2.dailySummaries(of: [key(scans(from: day0 + 86_400 - 600, count: 3))],
                                                     configuration: configuration)
        #expect(summaries.map(\.date) == [UTCDay(unixSeconds: day0)])
        #expect(summaries.map(\.overall.scoreSum) == [900])
    }

    @Test func weightsAndPerReportTypeSums() throws {
        let configuration = try ExposureConfigurationV2(
            attenuationThresholds: [55, 63, 70], attenuationWeights: [2.0, 1.0, 0.5, 0],
            reportTypeWeights: [.confirmedTest: 1.0, .confirmedClinicalDiagnosis: 1.0, .selfReport: 0.5, .recursive: 0],
            reportTypeWhenUnknown: .confirmedTest, standardInfectiousnessWeight: 1.0, highInfectiousnessWeight: 2.0,
            minimumWindowScore: 0)
        // A: confirmed test, onset day 0 (high, 2.0); scans at 50, 60, 68, 80 dB, 300 s each:
        //    weighted 300·2 + 300·1 + 300·0.5 + 300·0 = 1050; score 1050 × 1.0 × 2.0 = 2100.
        let a = key([
            MatchedSighting(time: tenAM, attenuation: 50, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 300, attenuation: 60, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 600, attenuation: 68, secondsSincePreviousScan: 300),
            MatchedSighting(time: tenAM + 900, attenuation: 80, secondsSincePreviousScan: 300),
        ], reportType: .confirmedTest, daysSinceOnset: 0)
        // B: self report, onset unknown (standard, 1.0); two scans at 50 dB: weighted 1200; score 1200 × 0.5 = 600.
        let b = key(scans(from: tenAM + 3600, count: 2), reportType: .selfReport)
        // C: unknown report type, scored as confirmed test; onset day 5 (standard); one scan at 60 dB after an
        //    unknown gap: weighted 120 × 1.0 = 120; score 120.
        let c = key([MatchedSighting(time: tenAM + 7200, attenuation: 60, secondsSincePreviousScan: 0)],
                    reportType: .unknown, daysSinceOnset: 5)

        #expect(RiskScoringV2.windows(of: c, configuration: configuration).map(\.reportType) == [.confirmedTest])
        let summaries = RiskScoringV2.dailySummaries(of: [a, b, c], configuration: configuration)
        let summary = try #require(summaries.first)
        #expect(summaries.count == 1)
        #expect(summary.overall == ExposureSummaryData(scoreSum: 2820, maximumScore: 2100, weightedDurationSum: 2370))
        #expect(summary.summary(for: .confirmedTest)
            == ExposureSummaryData(scoreSum: 2220, maximumScore: 2100, weightedDurationSum: 1170))
        #expect(summary.summary(for: .selfReport)
            == ExposureSummaryData(scoreSum: 600, maximumScore: 600, weightedDurationSum: 1200))
        #expect(summary.summary(for: .confirmedClinicalDiagnosis) == .zero)
        #expect(Set(summary.byReportType.keys) == [.confirmedTest, .selfReport])
    }

    @Test func windowsBelowTheMinimumScoreAreDropped() throws {
        let keys = [key(scans(from: tenAM, count: 3)), key(scans(from: tenAM + 3600, count: 2))]  // 900 and 600
        let at900 = RiskScoringV2.dailySummaries(of: keys, configuration: try unitWeights(minimumWindowScore: 900))
        #expect(at900.map(\.overall) == [ExposureSummaryData(scoreSum: 900, maximumScore: 900, weightedDurationSum: 900)])
        let at901 = RiskScoringV2.dailySummaries(of: keys, configuration: try unitWeights(minimumWindowScore: 901))
        #expect(at901.isEmpty)
    }

    @Test func revokedKeysMakeNoWindows() throws {
        #expect(RiskScoringV2.windows(of: key(scans(from: tenAM, count: 3), reportType: .revoked),
                                      configuration: try unitWeights()).isEmpty)
    }

    @Test func utcDaysFloorAndPrint() {
        #expect(UTCDay(unixSeconds: day0).description == "2020-04-02")
        #expect(UTCDay(unixSeconds: day0 - 1).description == "2020-04-01")
        #expect(UTCDay(unixSeconds: -1).daysSinceEpoch == -1)
        #expect(UTCDay(ENIntervalNumber(2_642_976 + 143)) == UTCDay(unixSeconds: day0))
        #expect(UTCDay(unixSeconds: day0).days(until: UTCDay(unixSeconds: day0 + 3 * 86_400)) == 3)
    }
}
