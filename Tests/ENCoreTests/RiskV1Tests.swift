import Testing
@testable import ENCore

/// Midnight UTC, 2020-04-02: the official test vector's key day (ENIN 2642976).
private let day0: Int64 = 1_585_785_600
private let rollingStart = ENIntervalNumber(2_642_976)

/// Level values 1…8 in every table, so a bucket index i reads as the value i + 1.
private func ascendingConfiguration(minimumRiskScore: Int = 0) throws -> ExposureConfigurationV1 {
    try ExposureConfigurationV1(
        minimumRiskScore: minimumRiskScore, attenuationDurationThresholds: [50, 70],
        attenuationLevelValues: [1, 2, 3, 4, 5, 6, 7, 8], daysSinceLastExposureLevelValues: [1, 2, 3, 4, 5, 6, 7, 8],
        durationLevelValues: [1, 2, 3, 4, 5, 6, 7, 8], transmissionRiskLevelValues: [1, 2, 3, 4, 5, 6, 7, 8])
}

private func key(_ sightings: [MatchedSighting], transmissionRiskLevel: Int = 2,
                 reportType: ReportType = .confirmedTest) -> MatchedKey {
    MatchedKey(rollingStart: rollingStart, transmissionRiskLevel: transmissionRiskLevel, reportType: reportType,
               daysSinceOnsetOfSymptoms: nil, sightings: sightings)
}

@Suite("v1 buckets at every boundary and the product")
struct RiskV1Tests {
    @Test func attenuationBucketsOnBothSidesOfEveryBoundary() {
        // (dB, bucket): each boundary of the table from just above to at.
        let cases: [(Int, Int)] = [
            (255, 0), (74, 0), (73, 1), (64, 1), (63, 2), (52, 2), (51, 3), (34, 3), (33, 4),
            (28, 4), (27, 5), (16, 5), (15, 6), (11, 6), (10, 7), (0, 7),
        ]
        for (decibels, bucket) in cases {
            #expect(RiskBucketsV1.attenuation(decibels) == bucket, "\(decibels) dB")
        }
    }

    @Test func daysSinceExposureBucketsOnBothSidesOfEveryBoundary() {
        let cases: [(Int, Int)] = [
            (100, 0), (14, 0), (13, 1), (12, 1), (11, 2), (10, 2), (9, 3), (8, 3), (7, 4), (6, 4),
            (5, 5), (4, 5), (3, 6), (2, 6), (1, 7), (0, 7),
            (-1, 7),  // a key dated after today counts as today
        ]
        for (days, bucket) in cases {
            #expect(RiskBucketsV1.daysSinceExposure(days) == bucket, "\(days) days")
        }
    }

    @Test func durationBucketsOnBothSidesOfEveryBoundary() {
        let cases: [(Int, Int)] = [
            (0, 0), (1, 1), (5, 1), (6, 2), (10, 2), (11, 3), (15, 3), (16, 4), (20, 4), (21, 5),
            (25, 5), (26, 6), (30, 6), (31, 7), (600, 7),
        ]
        for (minutes, bucket) in cases {
            #expect(RiskBucketsV1.duration(minutes: minutes) == bucket, "\(minutes) min")
        }
    }

    @Test func transmissionRiskIsIndexedByLevelAndClamped() {
        #expect(RiskBucketsV1.transmissionRisk(level: 0) == 0)
        #expect(RiskBucketsV1.transmissionRisk(level: 7) == 7)
        #expect(RiskBucketsV1.transmissionRisk(level: 8) == 7)  // Google's top level
        #expect(RiskBucketsV1.transmissionRisk(level: -1) == 0)
    }

    @Test func attenuationDurationBucketsUseApplesBoundaries() {
        // [50, 70]: A ≤ 50 | 50 < A ≤ 70 | A > 70
        #expect(RiskBucketsV1.attenuationDuration(50, thresholds: [50, 70]) == 0)
        #expect(RiskBucketsV1.attenuationDuration(51, thresholds: [50, 70]) == 1)
        #expect(RiskBucketsV1.attenuationDuration(70, thresholds: [50, 70]) == 1)
        #expect(RiskBucketsV1.attenuationDuration(71, thresholds: [50, 70]) == 2)
    }

    @Test func riskScoreIsTheProductOfTheFourValues() throws {
        let configuration = try ascendingConfiguration()
        // 40 dB → bucket 3 → 4; 5 days → bucket 5 → 6; 15 min → bucket 3 → 4; level 2 → 3: 4 × 6 × 4 × 3 = 288
        #expect(configuration.riskScore(attenuation: 40, daysSinceExposure: 5, durationMinutes: 15,
                                        transmissionRiskLevel: 2) == 288)
        // Every index 7: 8⁴ = 4096, the top of the range.
        #expect(configuration.riskScore(attenuation: 10, daysSinceExposure: 0, durationMinutes: 31,
                                        transmissionRiskLevel: 7) == 4096)
        // Every index 0: 1.
        #expect(configuration.riskScore(attenuation: 74, daysSinceExposure: 14, durationMinutes: 0,
                                        transmissionRiskLevel: 0) == 1)
    }

    @Test func scoresBelowTheMinimumBecomeZero() throws {
        // The 288 above: kept at a minimum of 288, zero at 289.
        let atMinimum = try ascendingConfiguration(minimumRiskScore: 288)
        let aboveIt = try ascendingConfiguration(minimumRiskScore: 289)
        #expect(atMinimum.riskScore(attenuation: 40, daysSinceExposure: 5, durationMinutes: 15,
                                    transmissionRiskLevel: 2) == 288)
        #expect(aboveIt.riskScore(attenuation: 40, daysSinceExposure: 5, durationMinutes: 15,
                                  transmissionRiskLevel: 2) == 0)
    }

    @Test func exposuresSplitOnGapsOverTenMinutesWithDurationsAndWeightedMeans() throws {
        let t = day0 + 10 * 3600
        let sightings = [
            // Exposure 1: three scans 5 minutes apart, each standing for 300 s.
            MatchedSighting(time: t, attenuation: 40, secondsSincePreviousScan: 300),
            MatchedSighting(time: t + 300, attenuation: 40, secondsSincePreviousScan: 300),
            MatchedSighting(time: t + 600, attenuation: 70, secondsSincePreviousScan: 300),
            // 601 s later: a new exposure; the scanner did not know its previous scan → 120 s.
            MatchedSighting(time: t + 1201, attenuation: 80, secondsSincePreviousScan: 0),
        ]
        let exposures = RiskScoringV1.exposures(to: key(sightings.reversed()), configuration: try ascendingConfiguration(),
                                                evaluationDay: UTCDay(unixSeconds: day0 + 3 * 86_400))
        #expect(exposures.count == 2)

        // Exposure 1: 900 s = 15 min. Mean (40·300 + 40·300 + 70·300) / 900 = 50 dB.
        // Thresholds [50, 70]: 600 s at ≤ 50 → 10 min, 300 s in (50, 70] → 5 min, none above.
        // Score: 50 dB → bucket 3 → 4; 3 days → bucket 6 → 7; 15 min → bucket 3 → 4; level 2 → 3: 336.
        #expect(exposures[0] == ExposureV1(date: UTCDay(unixSeconds: day0), durationMinutes: 15,
                                           attenuationDurations: [10, 5, 0], typicalAttenuation: 50,
                                           transmissionRiskLevel: 2, riskScore: 336, reportType: .confirmedTest))
        // Exposure 2: 120 s = 2 min rounds to 0 min. 80 dB → 1; 7; 0 min → 1; 3: 21.
        #expect(exposures[1] == ExposureV1(date: UTCDay(unixSeconds: day0), durationMinutes: 0,
                                           attenuationDurations: [0, 0, 0], typicalAttenuation: 80,
                                           transmissionRiskLevel: 2, riskScore: 21, reportType: .confirmedTest))
    }

    @Test func aGapOfExactlyTenMinutesDoesNotSplit() throws {
        let sightings = [
            MatchedSighting(time: day0, attenuation: 40, secondsSincePreviousScan: 300),
            MatchedSighting(time: day0 + 600, attenuation: 40, secondsSincePreviousScan: 300),
        ]
        let exposures = RiskScoringV1.exposures(to: key(sightings), configuration: try ascendingConfiguration(),
                                                evaluationDay: UTCDay(unixSeconds: day0))
        #expect(exposures.map(\.durationMinutes) == [10])
    }

    @Test func typicalAttenuationIsWeightedByTheTimeEachScanStandsFor() throws {
        let sightings = [
            MatchedSighting(time: day0, attenuation: 40, secondsSincePreviousScan: 0),      // unknown → 120 s
            MatchedSighting(time: day0 + 120, attenuation: 61, secondsSincePreviousScan: 120),  // 120 s
            MatchedSighting(time: day0 + 420, attenuation: 61, secondsSincePreviousScan: 300),  // 300 s
        ]
        // (40·120 + 61·120 + 61·300) / 540 = 30420 / 540 = 56.33 → 56; 540 s = 9 min → 10 min.
        // Thresholds [50, 70]: 120 s ≤ 50 → 2 min → 0; 420 s in (50, 70] → 7 min → 5.
        let exposure = try #require(RiskScoringV1.exposures(
            to: key(sightings), configuration: try ascendingConfiguration(),
            evaluationDay: UTCDay(unixSeconds: day0)).first)
        #expect(exposure.typicalAttenuation == 56)
        #expect(exposure.durationMinutes == 10)
        #expect(exposure.attenuationDurations == [0, 5, 0])
    }

    @Test func attenuationDurationsAreCappedAtThirtyMinutesButTheDurationIsNot() throws {
        // Twelve scans 5 minutes apart at 40 dB: 60 minutes, all at ≤ 50 dB.
        let sightings = (0..<12).map {
            MatchedSighting(time: day0 + Int64($0) * 300, attenuation: 40, secondsSincePreviousScan: 300)
        }
        let exposure = try #require(RiskScoringV1.exposures(
            to: key(sightings), configuration: try ascendingConfiguration(),
            evaluationDay: UTCDay(unixSeconds: day0)).first)
        #expect(exposure.durationMinutes == 60)
        #expect(exposure.attenuationDurations == [30, 0, 0])
    }

    @Test func daysCountFromTheRollingStartAndTheDateIsItsDay() throws {
        // A sighting two hours into the next day (inside the matcher's tolerance) still dates from the key's day.
        let sightings = [MatchedSighting(time: day0 + 86_400 + 7200, attenuation: 40, secondsSincePreviousScan: 300)]
        let exposure = try #require(RiskScoringV1.exposures(
            to: key(sightings), configuration: try ascendingConfiguration(),
            evaluationDay: UTCDay(unixSeconds: day0 + 14 * 86_400)).first)
        #expect(exposure.date == UTCDay(unixSeconds: day0))
        #expect(exposure.date.description == "2020-04-02")
        // 40 dB → 4; 14 days → bucket 0 → 1; 5 min → 2; level 2 → 3: 24.
        #expect(exposure.riskScore == 24)
    }

    @Test func revokedKeysAndKeysWithoutSightingsMakeNoExposures() throws {
        let sighting = MatchedSighting(time: day0, attenuation: 40, secondsSincePreviousScan: 300)
        let configuration = try ascendingConfiguration()
        let today = UTCDay(unixSeconds: day0)
        #expect(RiskScoringV1.exposures(to: key([sighting], reportType: .revoked), configuration: configuration,
                                        evaluationDay: today).isEmpty)
        #expect(RiskScoringV1.exposures(to: key([]), configuration: configuration, evaluationDay: today).isEmpty)
    }

    @Test func outOfRangeTransmissionRiskLevelsAreClampedAndReportedClamped() throws {
        let sighting = MatchedSighting(time: day0, attenuation: 40, secondsSincePreviousScan: 300)
        let exposure = try #require(RiskScoringV1.exposures(
            to: key([sighting], transmissionRiskLevel: 8), configuration: try ascendingConfiguration(),
            evaluationDay: UTCDay(unixSeconds: day0)).first)
        // 40 dB → 4; 0 days → 8; 5 min → 2; level 8 → 7 → 8: 512.
        #expect(exposure.transmissionRiskLevel == 7)
        #expect(exposure.riskScore == 512)
    }

    @Test func configurationsBuiltInCodeAreCheckedLikeJSON() {
        #expect(throws: RiskConfigurationError(field: "durationLevelValues", reason: "expected 8 values, found 7")) {
            try ExposureConfigurationV1(
                minimumRiskScore: 0, attenuationDurationThresholds: [50, 70],
                attenuationLevelValues: [1, 2, 3, 4, 5, 6, 7, 8], daysSinceLastExposureLevelValues: [1, 2, 3, 4, 5, 6, 7, 8],
                durationLevelValues: [1, 2, 3, 4, 5, 6, 7], transmissionRiskLevelValues: [1, 2, 3, 4, 5, 6, 7, 8])
        }
    }
}
