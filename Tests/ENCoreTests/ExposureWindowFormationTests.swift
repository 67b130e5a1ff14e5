import Testing
@testable import ENCore

/// Midnight UTC, 2020-04-02.
private let day0: Int64 = 1_585_785_600
private let tenAM = day0 + 10 * 3600

private func formed(_ sightings: [MatchedSighting]) -> [ExposureWindow] {
    ExposureWindowFormation.windows(of: sightings, reportType: .confirmedTest, infectiousness: .standard)
}

private func seen(_ time: Int64, _ attenuation: UInt8 = 50, minimum: UInt8? = nil, previousScan: UInt16 = 300,
                  reports: UInt16 = 1, confidence: CalibrationConfidence = .lowest) -> MatchedSighting {
    MatchedSighting(time: time, attenuation: attenuation, minimumAttenuation: minimum, secondsSincePreviousScan: previousScan,
                    calibrationConfidence: confidence, reports: reports)
}

private func window(_ instances: [ScanInstance], confidence: CalibrationConfidence = .lowest) -> ExposureWindow {
    ExposureWindow(date: UTCDay(unixSeconds: instances[0].time), reportType: .confirmedTest, infectiousness: .standard,
                   scanInstances: instances, calibrationConfidence: confidence)
}

private func instance(_ time: Int64, typical: UInt8 = 50, minimum: UInt8 = 50, seconds: Int = 300) -> ScanInstance {
    ScanInstance(time: time, typicalAttenuation: typical, minAttenuation: minimum, secondsSinceLastScan: seconds)
}

/// Every expected window below is written out by hand from Google's reference
/// (google/exposure-notifications-internals, `matching/KeyExposureEvaluator.findExposureWindows` and the functions
/// it calls, `SightingRecordWithMetadata.secondsSinceLastScan`, `ExposureWindowUtils.getTypicalAttenuation` and
/// `getMinAttenuation`, `ContactTracingFeature`'s 30-minute window, 5- and 2-minute scan figures and 4 + 13 s scan
/// time); the comment on each case names the line of reasoning that decides it.
@Suite("v2 exposure windows and scan instances as Google's reference forms them")
struct ExposureWindowFormationTests {
    /// Gaps longer than 5 minutes do not split a window: `shouldStartNewExposureWindow` compares a sighting only
    /// with the window's first. Each gap only caps the instance's seconds at 5 minutes (`maxMinutesSinceLastScan`).
    @Test func gapsOverFiveMinutesStayInOneWindowAndCapAtFiveMinutes() {
        let windows = formed([
            seen(tenAM, previousScan: 300),
            seen(tenAM + 600, previousScan: 600),     // 10 min since the last scan: capped, 300
            seen(tenAM + 1500, previousScan: 420),    // 7 min: capped, 300
            seen(tenAM + 1740, previousScan: 240),    // 4 min: 240
        ])
        #expect(windows == [window([instance(tenAM), instance(tenAM + 600), instance(tenAM + 1500),
                                    instance(tenAM + 1740, seconds: 240)])])
    }

    /// `secondsSinceLastScan` is the difference of the two times each truncated to the minute, not the gap rounded:
    /// a scan at 10:00:30 after one at 10:00:10 is 0 minutes; at 10:00:10 after 09:58:40 (90 s) it is 2; with no
    /// previous scan recorded, 2 (`defaultMinutesSinceLastScan`).
    @Test func secondsSinceLastScanCountsClockMinutes() {
        let cases: [(time: Int64, recorded: UInt16, seconds: Int)] = [
            (tenAM + 30, 20, 0), (tenAM + 10, 90, 120), (tenAM + 60, 59, 60), (tenAM, 1, 60), (tenAM + 59, 1, 0),
            (tenAM + 10, 0, 120), (tenAM, 299, 300), (tenAM, 65_535, 300),
        ]
        for (time, recorded, seconds) in cases {
            #expect(ExposureWindowFormation.secondsSinceLastScan(of: seen(time, previousScan: recorded)) == seconds,
                    "\(time - tenAM) s after 10:00, \(recorded) s since the previous scan")
        }
    }

    /// Over 30 minutes of one key: a sighting 30 minutes or more after the window's first opens a new window
    /// (`>=` in `shouldStartNewExposureWindow`), and with it a new scan instance even when it is 15 s after the
    /// previous sighting (the instance is only extended when the window already has one).
    @Test func thirtyMinutesOfOneKeyCloseTheWindowEvenInsideAScan() {
        let everyFiveMinutes = formed((0..<11).map { seen(tenAM + Int64($0) * 300) })
        #expect(everyFiveMinutes == [window((0..<6).map { instance(tenAM + Int64($0) * 300) }),
                                     window((6..<11).map { instance(tenAM + Int64($0) * 300) })])

        let acrossTheCap = formed([
            seen(tenAM, 40), seen(tenAM + 1790, 50, previousScan: 290), seen(tenAM + 1805, 60, previousScan: 305),
            seen(tenAM + 1815, 70, previousScan: 315),
        ])
        // 1790 − 0 < 1800: first window. 1805 − 0 ≥ 1800: second window, opened at 1805 with its own instance
        // (previous scan at 1500, minute 25 to minute 30: 300); 1815 is 10 s after 1805: same instance,
        // typical round((60 + 70) / 2) = 65.
        #expect(acrossTheCap == [
            window([instance(tenAM, typical: 40, minimum: 40), instance(tenAM + 1790, typical: 50, minimum: 50, seconds: 240)]),
            window([instance(tenAM + 1805, typical: 65, minimum: 60)]),
        ])
    }

    /// Windows belong to one key: `findExposureWindows` is called with one diagnosis key's sightings. Two keys
    /// heard in alternate scans give one window each, and each instance's seconds are the scanner's gap before it
    /// (the previous scan's time), not the time since that key was last heard.
    @Test func twoKeysInterleavedFormTheirOwnWindows() throws {
        let configuration = RiskDefaults.v2
        func key(_ sightings: [MatchedSighting]) -> MatchedKey {
            MatchedKey(rollingStart: ENIntervalNumber(unixSeconds: tenAM)!, transmissionRiskLevel: 0,
                       reportType: .confirmedTest, daysSinceOnsetOfSymptoms: 0, sightings: sightings)
        }
        let a = key([seen(tenAM, 50), seen(tenAM + 600, 52), seen(tenAM + 1200, 54)])
        let b = key([seen(tenAM + 300, 60), seen(tenAM + 900, 62)])
        func high(_ instances: [ScanInstance]) -> ExposureWindow {
            var w = window(instances)
            w.infectiousness = .high  // day 0 of symptoms in the default map
            return w
        }
        #expect(RiskScoringV2.windows(of: a, configuration: configuration) == [high([
            instance(tenAM), instance(tenAM + 600, typical: 52, minimum: 52), instance(tenAM + 1200, typical: 54, minimum: 54)])])
        #expect(RiskScoringV2.windows(of: b, configuration: configuration) == [high([
            instance(tenAM + 300, typical: 60, minimum: 60), instance(tenAM + 900, typical: 62, minimum: 62)])])
    }

    /// One sighting: one window of one instance. Typical and minimum from its reports; 120 s when the scanner knew
    /// no previous scan (`defaultMinutesSinceLastScan`); the confidence its metadata gave.
    @Test func aSingleSightingIsOneWindowOfOneInstance() {
        #expect(formed([seen(tenAM + 17, 64, minimum: 58, previousScan: 0, reports: 4, confidence: .medium)])
                == [window([instance(tenAM + 17, typical: 64, minimum: 58, seconds: 120)], confidence: .medium)])
    }

    /// A window's day is the UTC day of its first sighting (`DailySummaryUtils`: `SECONDS.toDays(epochSeconds)`),
    /// even when it runs past midnight; a sighting at midnight itself that opens a window is on the new day.
    @Test func aWindowCrossingMidnightCountsOnTheDayItBegan() {
        let midnight = day0 + 86_400
        let windows = formed([seen(midnight - 10), seen(midnight + 290)])
        // 23:59:50 and 00:04:50: minute −1 to minute 4 is 5 minutes, 300 s.
        #expect(windows.map(\.date) == [UTCDay(unixSeconds: day0)])
        #expect(windows.map { $0.scanInstances.map(\.time) } == [[midnight - 10, midnight + 290]])
        #expect(formed([seen(midnight)]).map(\.date) == [UTCDay(unixSeconds: midnight)])
    }

    /// Several reports of one RPI in a scan: Google keeps every report's attenuation in the instance, typical is
    /// their mean rounded half up, minimum the least. enbeacon stores a scan's reports as one sighting (mean and
    /// strongest), so a sighting weighs as many reports as it holds. Sightings join while each is at most 25.5 s
    /// after the previous one (chained, `sightingInTheSameScanInstance`), so 0, 12 and 30 s are one instance.
    @Test func severalReportsOfOneRPIMakeOneInstance() {
        let windows = formed([
            seen(tenAM, 60, minimum: 52, reports: 3),
            seen(tenAM + 12, 70, reports: 1, confidence: .high),  // the sender rotated its RPI mid-scan
            seen(tenAM + 30, 66, minimum: 61, reports: 2),
            seen(tenAM + 56, 40, previousScan: 26),              // 26 s after the previous: a new instance
        ])
        // (3 × 60 + 70 + 2 × 66) / 6 = 382 / 6 = 63.67 → 64; minimum 52. The window keeps its first sighting's
        // confidence. The last: minute 0 to minute 0 after a 26 s gap → 0 s.
        #expect(windows == [window([instance(tenAM, typical: 64, minimum: 52),
                                    instance(tenAM + 56, typical: 40, minimum: 40, seconds: 0)])])
        // Half up: (60 + 61) / 2 = 60.5 → 61.
        #expect(formed([seen(tenAM, 60), seen(tenAM + 5, 61)]).map { $0.scanInstances.map(\.typicalAttenuation) } == [[61]])
    }

    /// Google's round trip (`app/src/androidTest/.../RoundTripTests.testGenerateAndMatchRPI`): the RPI of key
    /// 2b714d3ec93c14e5d345003e59027aea at its rolling start 2646801, heard once, matches that key of the app's
    /// `res/raw/export.bin` (transmission risk 2, rolling period 89, no report type, no days since onset). Its window
    /// is that one sighting: 2020-04-28 (dateMillisSinceEpoch 1588032000000), the report type configured for a key
    /// without one, the default infectiousness, the sender's v1.0 confidence (lowest), one instance of 120 s (the
    /// upstream test records no previous scan).
    @Test func googlesRoundTripKeyGivesOneWindowOfOneInstance() throws {
        let schedule = try KeySchedule()
        let start = ENIntervalNumber(2_646_801)
        let keyData = try #require(Bytes16(hex: "2b714d3ec93c14e5d345003e59027aea"))
        let key = DiagnosisKey(tek: TemporaryExposureKey(keyData: keyData, rollingStart: start, rollingPeriod: 89),
                               transmissionRiskLevel: 2, reportType: .unknown)
        let rpi = schedule.rpi(rpik: schedule.rpik(keyData), interval: start)
        let aem = schedule.aem(aemk: schedule.aemk(keyData), rpi: rpi, Metadata(txPower: -12).plaintext)
        let heard = Sighting(rpi: rpi, aem: aem, firstSeen: start.unixSeconds, rssiMax: -70, rssiMean: -72, reports: 2,
                             secondsSincePreviousScan: 0)
        let now = start.unixSeconds + 2 * 86_400
        let detection = ExposureDetection(matcher: KeyMatcher(sightings: [heard], now: now, schedule: schedule))
        detection.beginFile("export.zip")
        detection.consider(key)
        detection.endFile()
        let matched = try #require(detection.matched.first?.matchedKey)
        #expect(detection.matched.count == 1)

        let windows = RiskScoringV2.windows(of: matched, configuration: RiskDefaults.v2)
        // TX power −12 dBm: mean −72 dBm is 60 dB, strongest −70 dBm is 58 dB.
        #expect(windows == [ExposureWindow(
            date: UTCDay(unixSeconds: 1_588_032_000), reportType: RiskDefaults.v2.reportTypeWhenUnknown,
            infectiousness: RiskDefaults.v2.infectiousness.whenUnknown,
            scanInstances: [ScanInstance(time: 1_588_080_600, typicalAttenuation: 60, minAttenuation: 58,
                                         secondsSinceLastScan: 120)],
            calibrationConfidence: .lowest)])
    }
}
