import Testing
@testable import ENCore

/// The one matching pipeline: assembly, de-duplication across files, revocation, files as transactions,
/// scoring, and what a sighting without RSSI means.
@Suite struct ExposureDetectionTests {
    let schedule = try! KeySchedule()
    /// 2020-09-13 00:00 UTC.
    static let day = ENIntervalNumber(2_666_592)
    /// Two days later at noon: out of embargo.
    static let now = Int64(day.value) * 600 + 2 * 86_400 + 43_200

    func key(_ reportType: ReportType = .confirmedTest, transmissionRisk: Int = 4) -> DiagnosisKey {
        var g = SystemRandomNumberGenerator()
        return DiagnosisKey(tek: TemporaryExposureKey.generate(for: Self.day, using: &g),
                            transmissionRiskLevel: transmissionRisk, reportType: reportType)
    }

    /// Scans of `key` five minutes apart from interval 60 of its day: TX power 8 dBm, RSSI −52 (60 dB), or
    /// no RSSI at all.
    func sightings(of key: DiagnosisKey, scans: Int, firstScan: Int = 0, rssi: Int8? = -52) -> [Sighting] {
        let rpik = schedule.rpik(key.tek.keyData), aemk = schedule.aemk(key.tek.keyData)
        return (firstScan..<(firstScan + scans)).map { i in
            let n = ENIntervalNumber(Self.day.value + 60 + UInt32(i / 2))
            let rpi = schedule.rpi(rpik: rpik, interval: n)
            let aem = schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 8).plaintext)
            return Sighting(rpi: rpi, aem: aem, firstSeen: n.unixSeconds + Int64(i % 2) * 300 + 10,
                            signal: rssi.map { SignalStrength(max: $0 + 2, mean: $0) }, reports: 4,
                            secondsSincePreviousScan: 300)
        }
    }

    func detection(_ sightings: [Sighting]) -> ExposureDetection {
        ExposureDetection(matcher: KeyMatcher(sightings: sightings, now: Self.now, schedule: schedule))
    }

    func file(_ detection: ExposureDetection, _ name: String, _ keys: [DiagnosisKey]) {
        detection.beginFile(name)
        keys.forEach(detection.consider)
        detection.endFile()
    }

    @Test func matchedKeysAreAssembledWithTheirAttenuations() {
        let met = key()
        let d = detection(sightings(of: met, scans: 3))
        file(d, "a.zip", [key(), met, key()])
        #expect(d.matched.count == 1 && d.keys == 3)
        let match = d.matched[0]
        #expect(match.key == met && match.id == ExposureID(key: met.tek) && match.file == "a.zip")
        #expect(match.matchedKey.sightings.map(\.attenuation) == [60, 60, 60])
        #expect(match.matchedKey.sightings.map(\.minimumAttenuation) == [58, 58, 58])
        #expect(match.matchedKey.transmissionRiskLevel == 4 && match.matchedKey.reportType == .confirmedTest)
    }

    /// The decision, pinned: a sighting without RSSI is an encounter at an unknown distance. It is kept, at
    /// the farthest attenuation (255): its minutes land in the last v1 bucket, beyond every v2 threshold.
    @Test func aSightingWithoutRSSIIsKeptAsTheFarthest() throws {
        let near = key(), unmeasured = key()
        let d = detection(sightings(of: near, scans: 3) + sightings(of: unmeasured, scans: 3, rssi: nil))
        file(d, "a.zip", [near, unmeasured])
        #expect(d.matched.map(\.key) == [near, unmeasured], "a sighting without RSSI still matches its key")
        let farthest = try #require(d.matched.last?.matchedKey.sightings)
        #expect(farthest.allSatisfy { $0.attenuation == 255 && $0.minimumAttenuation == 255 })
        #expect(Sighting.unknownAttenuation == 255)

        let exposures = d.exposures(v1: RiskDefaults.v1, v2: RiskDefaults.v2, today: UTCDay(unixSeconds: Self.now),
                                    detectedAt: Self.now)
        let byID = Dictionary(uniqueKeysWithValues: exposures.map { ($0.id, $0) })
        let measured = try #require(byID[ExposureID(key: near.tek)])
        let unknown = try #require(byID[ExposureID(key: unmeasured.tek)])
        #expect(measured.attenuationDurations == [0, 15, 0], "60 dB: between the 50 and 70 dB thresholds")
        #expect(unknown.attenuationDurations == [0, 0, 15], "no RSSI: the farthest bucket")
        #expect(unknown.typicalAttenuation == 255)
        #expect(unknown.riskScore < measured.riskScore, "an unknown distance never scores as a closer one")
        #expect(unknown.windowScore == 0, "beyond every v2 attenuation threshold (weight 0)")
    }

    @Test func aKeySeenAgainReplacesItsMatchAndTheLaterReportTypeWins() {
        let met = key(.selfReport)
        let d = detection(sightings(of: met, scans: 2))
        file(d, "daily.zip", [met])
        var revised = met
        revised.reportType = .confirmedTest
        file(d, "fourteen-days.zip", [key(), revised])
        #expect(d.matched.count == 1)
        #expect(d.matched[0].key.reportType == .confirmedTest && d.matched[0].file == "fourteen-days.zip")
        // Listed again but no longer matching (recursive): the earlier match stands.
        var recursive = met
        recursive.reportType = .recursive
        file(d, "c.zip", [recursive])
        #expect(d.matched.map(\.key.reportType) == [.confirmedTest])
    }

    @Test func aRevokedKeyGoesAndNoLaterFileBringsItBack() {
        let met = key(), other = key()
        let d = detection(sightings(of: met, scans: 2) + sightings(of: other, scans: 2, firstScan: 4))
        file(d, "a.zip", [met, other])
        var revocation = met
        revocation.reportType = .revoked
        file(d, "revisions.zip", [revocation])
        #expect(d.matched.map(\.key) == [other] && d.revocations == 1)
        #expect(d.revoked.map(\.id) == [ExposureID(key: met.tek)] && d.revoked[0].day == UTCDay(Self.day))
        file(d, "old-copy.zip", [met])
        #expect(d.matched.map(\.key) == [other], "the revocation is remembered")
        // Revoking a key nobody met still counts as a revocation the log must remember, not as a removal.
        var stranger = key()
        stranger.reportType = .revoked
        file(d, "more.zip", [stranger])
        #expect(d.revoked.count == 2 && d.revocations == 1)
    }

    @Test func anAbandonedFileIsTakenBackWhole() {
        let met = key(), later = key()
        let d = detection(sightings(of: met, scans: 2) + sightings(of: later, scans: 2, firstScan: 4))
        file(d, "a.zip", [met])
        d.beginFile("corrupt.zip")
        var revocation = met
        revocation.reportType = .revoked
        d.consider(revocation)
        d.consider(later)
        #expect(d.matched.map(\.key) == [later])
        d.abandonFile()
        #expect(d.matched.map(\.key) == [met] && d.revoked.isEmpty && d.keys == 1)
    }

    /// A key whose embargo is not over is set aside, not matched, for a caller that reads each file once;
    /// a revocation or an abandoned file takes it back like a match.
    @Test func keysUnderEmbargoAreSetAside() {
        let met = key(), stranger = key(), revoked = key(), inAbandoned = key()
        let d = ExposureDetection(matcher: KeyMatcher(sightings: sightings(of: met, scans: 3),
                                                      now: Int64(Self.day.value + 144) * 600 + 7_199, schedule: schedule),
                                  hold: EmbargoHold(usableBy: .max, capacity: 100))
        file(d, "a.zip", [met, stranger, revoked])
        #expect(d.matched.isEmpty)
        var revocation = revoked
        revocation.reportType = .revoked
        file(d, "b.zip", [revocation])
        d.beginFile("c.zip")
        d.consider(inAbandoned)
        d.abandonFile()
        #expect(Set(d.embargoed) == [met, stranger])
        #expect(d.embargoCounts == { var c = EmbargoCounts(); c.held = 2; return c }())

        // A second later the embargo is over: the same keys match and none is set aside.
        let after = ExposureDetection(matcher: KeyMatcher(sightings: sightings(of: met, scans: 3),
                                                          now: Int64(Self.day.value + 144) * 600 + 7_200, schedule: schedule))
        file(after, "a.zip", [met, stranger])
        #expect(after.matched.map(\.key) == [met] && after.embargoed.isEmpty)
    }

    /// What is set aside is bounded while the keys stream in: keys beyond the capacity, and keys not valid
    /// until after `usableBy`, are counted and dropped at once, however many a file holds.
    @Test func keysSetAsideAreBoundedAsTheyStreamIn() {
        let now = Int64(Self.day.value + 144) * 600 + 7_199
        let d = ExposureDetection(matcher: KeyMatcher(sightings: sightings(of: key(), scans: 3), now: now, schedule: schedule),
                                  hold: EmbargoHold(usableBy: now + 86_400, capacity: 3))
        let keys = (0..<5).map { _ in key() }
        var future = key()
        future.tek = TemporaryExposureKey(keyData: future.tek.keyData, rollingStart: Self.day.advanced(by: 2 * 144)!)
        file(d, "a.zip", keys + [future])
        var revised = keys[1]
        revised.reportType = .selfReport
        file(d, "b.zip", [revised])
        #expect(d.embargoed == [keys[0], revised, keys[2]], "the first three, in the order read; a revision in place")
        var counts = EmbargoCounts()
        counts.held = 3
        counts.overCapacity = 2
        counts.notValidYet = 1
        #expect(d.embargoCounts == counts)

        var revocation = keys[0]
        revocation.reportType = .revoked
        file(d, "c.zip", [revocation, keys[3]])
        #expect(d.embargoed == [revised, keys[2], keys[3]], "a revocation frees its place")
        #expect(d.embargoCounts.held == 3)
    }

    @Test func withoutSightingsOnlyRevocationsAreSeen() {
        let d = ExposureDetection(matcher: nil)
        var revoked = key()
        revoked.reportType = .revoked
        file(d, "a.zip", [key(), revoked])
        #expect(d.matched.isEmpty && d.revoked.count == 1 && d.keys == 2)
    }

    @Test func exposuresAreScoredOncePerStandingMatch() throws {
        let met = key(transmissionRisk: 4)
        let d = detection(sightings(of: met, scans: 7))
        file(d, "a.zip", [met])
        file(d, "b.zip", [met])
        let exposures = d.exposures(v1: RiskDefaults.v1, v2: RiskDefaults.v2, today: UTCDay(unixSeconds: Self.now),
                                    detectedAt: Self.now)
        #expect(exposures.count == 1)
        let exposure = try #require(exposures.first)
        #expect(exposure == ExposureScoring.exposure(to: d.matched[0].matchedKey, id: d.matched[0].id, v1: RiskDefaults.v1,
                                                     v2: RiskDefaults.v2, today: UTCDay(unixSeconds: Self.now),
                                                     detectedAt: Self.now))
        #expect(exposure.date == UTCDay(Self.day) && exposure.detectedAt == Self.now && !exposure.windows.isEmpty)
    }
}
