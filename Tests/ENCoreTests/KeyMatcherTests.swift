import Testing
@testable import ENCore

/// Matching rules, with sightings built from the key schedule itself.
@Suite struct KeyMatcherTests {
    let schedule = try! KeySchedule()
    let tek = TemporaryExposureKey(keyData: Bytes16(hex: "75c734c6dd1a782de7a965da5eb93125")!,
                                   rollingStart: ENIntervalNumber(2_642_976))
    /// Well after the embargo of the key.
    var now: Int64 { (Int64(tek.rollingStart.value) + 144 + 200) * 600 }

    /// The sighting a phone broadcasting `key` in interval `n` leaves when heard in interval `seen`.
    func sighting(of key: TemporaryExposureKey, interval n: UInt32, seenIn seen: UInt32, txPower: Int8 = 8,
                  rssi: Int8 = -60, offset: Int64 = 30) -> Sighting {
        let rpi = schedule.rpi(rpik: schedule.rpik(key.keyData), interval: ENIntervalNumber(n))
        let aem = schedule.aem(aemk: schedule.aemk(key.keyData), rpi: rpi, Metadata(txPower: txPower).plaintext)
        return Sighting(rpi: rpi, aem: aem, firstSeen: Int64(seen) * 600 + offset, rssiMax: rssi, rssiMean: rssi,
                        reports: 4, secondsSincePreviousScan: 240)
    }

    func matcher(_ sightings: [Sighting], now: Int64? = nil) -> KeyMatcher {
        KeyMatcher(sightings: sightings, now: now ?? self.now, schedule: schedule)
    }

    @Test func toleranceEdges() {
        let n = tek.rollingStart.value + 70
        for (seen, matches) in [(n - 13, false), (n - 12, true), (n, true), (n + 12, true), (n + 13, false)] {
            let m = matcher([sighting(of: tek, interval: n, seenIn: seen)])
            let hits = m.match(DiagnosisKey(tek: tek))
            #expect(hits.count == (matches ? 1 : 0), "seen at N\(Int(seen) - Int(n) >= 0 ? "+" : "")\(Int(seen) - Int(n))")
            if matches {
                #expect(hits[0].interval.value == n)
                #expect(hits[0].attenuation == 68 && hits[0].metadata.txPower == 8)
            } else {
                #expect(m.statistics.outsideTolerance == 1)
            }
        }
    }

    /// The tolerance reaches into the days before and after the key's: the matcher's filters are per day,
    /// and an RPI of the first or last interval must still find a sighting across midnight.
    @Test func toleranceReachesAcrossMidnight() {
        let first = tek.rollingStart.value, last = tek.rollingStart.value + 143
        for (n, seen, matches) in [(first, first - 12, true), (first, first - 13, false),
                                   (last, last + 12, true), (last, last + 13, false)] {
            let m = matcher([sighting(of: tek, interval: n, seenIn: seen)])
            #expect(m.match(DiagnosisKey(tek: tek)).map(\.interval.value) == (matches ? [n] : []),
                    "RPI of \(n - first), seen at \(Int(seen) - Int(first))")
        }
    }

    @Test func rollingPeriodShorterThan144IgnoresLaterIntervals() {
        var short = tek
        short.rollingPeriod = 30
        let inside = sighting(of: tek, interval: tek.rollingStart.value + 29, seenIn: tek.rollingStart.value + 29)
        let outside = sighting(of: tek, interval: tek.rollingStart.value + 30, seenIn: tek.rollingStart.value + 30)
        let m = matcher([inside, outside])
        let hits = m.match(DiagnosisKey(tek: short))
        #expect(hits.map(\.sightingIndex) == [0])
        #expect(matcher([inside, outside]).match(DiagnosisKey(tek: tek)).count == 2, "the full-day key matches both")
    }

    @Test func replayGuardDropsSightingsMoreThanTwentyMinutesAfterTheFirst() {
        let n = tek.rollingStart.value + 10
        let first = sighting(of: tek, interval: n, seenIn: n, offset: 0)
        let at20 = sighting(of: tek, interval: n, seenIn: n + 2, offset: 0)    // exactly 20 min later: kept
        let at21 = sighting(of: tek, interval: n, seenIn: n + 2, offset: 60)   // 21 min: a replay
        let m = matcher([first, at20, at21])
        #expect(m.match(DiagnosisKey(tek: tek)).map(\.sightingIndex) == [0, 1])
        #expect(m.statistics.replayed == 1)
    }

    @Test func embargoUntilTwoHoursAfterTheKeyExpired() {
        let s = sighting(of: tek, interval: tek.rollingStart.value + 100, seenIn: tek.rollingStart.value + 100)
        let usable = (Int64(tek.rollingStart.value) + 144 + 12) * 600
        let early = matcher([s], now: usable - 1)
        #expect(early.match(DiagnosisKey(tek: tek)).isEmpty)
        #expect(early.statistics.embargoed == 1)
        #expect(matcher([s], now: usable).match(DiagnosisKey(tek: tek)).count == 1)
    }

    @Test func txPowerSanity() {
        let n = tek.rollingStart.value + 5
        for (power, kept) in [(Int8(-61), false), (-60, true), (20, true), (21, false), (127, false)] {
            let m = matcher([sighting(of: tek, interval: n, seenIn: n, txPower: power)])
            #expect(m.match(DiagnosisKey(tek: tek)).count == (kept ? 1 : 0), "TX power \(power)")
        }
    }

    @Test func revokedAndRecursiveKeysNeverMatch() {
        let s = sighting(of: tek, interval: tek.rollingStart.value + 5, seenIn: tek.rollingStart.value + 5)
        for reportType: ReportType in [.recursive, .revoked] {
            let m = matcher([s])
            #expect(m.match(DiagnosisKey(tek: tek, reportType: reportType)).isEmpty)
            #expect(m.statistics.notReportable == 1)
        }
        for reportType: ReportType in [.unknown, .confirmedTest, .confirmedClinicalDiagnosis, .selfReport] {
            #expect(matcher([s]).match(DiagnosisKey(tek: tek, reportType: reportType)).count == 1)
        }
    }

    @Test func keysAndSightingsOlderThanFourteenDaysAreIgnored() {
        let s = sighting(of: tek, interval: tek.rollingStart.value + 5, seenIn: tek.rollingStart.value + 5)
        let fifteenDaysLater = (Int64(tek.rollingStart.value) + 144) * 600 + 15 * 86_400
        let m = matcher([s], now: fifteenDaysLater)
        #expect(m.match(DiagnosisKey(tek: tek)).isEmpty)
        #expect(m.statistics.tooOld == 1)
    }

    @Test func otherKeysAndUnrelatedSightingsDoNotMatch() {
        var rng = SystemRandomNumberGenerator()
        let others = (0..<200).map { _ in TemporaryExposureKey.generate(for: tek.rollingStart, using: &rng) }
        let sightings = others.prefix(100).map { sighting(of: $0, interval: tek.rollingStart.value + 3, seenIn: tek.rollingStart.value + 3) }
        let m = matcher(Array(sightings))
        #expect(m.match(DiagnosisKey(tek: tek)).isEmpty)
        let matched = others.filter { !m.match(DiagnosisKey(tek: $0)).isEmpty }
        #expect(matched == Array(others.prefix(100)))
    }
}
