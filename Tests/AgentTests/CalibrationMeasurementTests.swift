@testable import Agent
@testable import AgentBase
import HCI
import Testing

/// `radio calibrate`'s arithmetic on RSSIs as a badge hears them: the reference is the strongest source, its
/// median RSSI against the RSSI a calibrated receiver reads at 1 m gives the correction, and a measurement that
/// cannot say which source is the reference, or says too little, gives none.
@Suite struct CalibrationMeasurementTests {
    let reference = BDAddress(rawValue: 0x11_22_33_44_55_66)
    let other = BDAddress(rawValue: 0xAA_BB_CC_DD_EE_FF)

    func measured(_ rssis: [Int8], from sender: BDAddress, into m: inout CalibrationMeasurement) {
        for rssi in rssis { m.add(rssi: rssi, from: sender) }
    }

    /// Twenty reports from the reference at `referenceRSSI` and `otherCount` from the other source at `otherRSSI`,
    /// against −60 dBm at 1 m.
    func twoSources(_ referenceRSSI: Int8, _ otherRSSI: Int8, otherCount: Int = 20,
                    naming address: BDAddress? = nil) -> CalibrationMeasurement {
        var m = CalibrationMeasurement(referenceRSSIAt1m: -60, address: address)
        measured(Array(repeating: referenceRSSI, count: 20), from: reference, into: &m)
        measured(Array(repeating: otherRSSI, count: otherCount), from: other, into: &m)
        return m
    }

    @Test func theCorrectionTurnsTheMedianIntoTheReferencesRSSIAtOneMetre() throws {
        var m = CalibrationMeasurement(referenceRSSIAt1m: -45)
        // A reflection at −30 and a hand over the antenna at −80 do not move the median (−52).
        measured([-52, -51, -53, -52, -30, -52, -50, -54, -80, -52, -51, -53], from: reference, into: &m)
        let c = try m.outcome().get()
        #expect(c.address == reference)
        #expect(c.statistics.count == 12 && c.statistics.median == -52)
        #expect(c.correction == 7, "−45 − (−52)")
        // Attenuation = TX − (RSSI + correction): the badge now reads the reference as a calibrated receiver does.
        #expect(Int(c.statistics.median) + c.correction == -45)
        #expect(c.statistics.spread <= 2 && c.statistics.minimum == -80 && c.statistics.maximum == -30)
    }

    @Test func aWeakerSourceFarAwayDoesNotDisturbTheMeasurement() throws {
        let c = try twoSources(-48, -75, otherCount: 40).outcome().get()
        #expect(c.address == reference && c.correction == -12)
    }

    @Test func twoSourcesOfSimilarStrengthAreRefused() {
        let m = twoSources(-48, -51)
        guard case .failure(let refusal) = m.outcome(), case .ambiguous = refusal else {
            Issue.record("expected a refusal naming both sources, got \(m.outcome())")
            return
        }
        #expect("\(refusal)".contains("\(reference)") && "\(refusal)".contains("\(other)") && "\(refusal)".contains("--address"))
    }

    @Test func namingTheReferenceSettlesTwoSimilarSources() throws {
        let c = try twoSources(-48, -51, naming: other).outcome().get()
        #expect(c.address == other && c.correction == -9)
    }

    @Test func tooFewReportsAreRefused() {
        var m = CalibrationMeasurement(referenceRSSIAt1m: -60)
        measured(Array(repeating: -50, count: CalibrationMeasurement.minimumSamples - 1), from: reference, into: &m)
        m.add(rssi: nil, from: reference)  // a report without RSSI is no sample
        #expect(m.outcome() == .failure(.tooFewSamples(count: CalibrationMeasurement.minimumSamples - 1,
                                                       needed: CalibrationMeasurement.minimumSamples)))
        #expect(CalibrationMeasurement(referenceRSSIAt1m: -60).outcome() == .failure(.nothingHeard(address: nil)))
    }

    @Test func anImplausibleCorrectionIsRefusedNotOffered() {
        var m = CalibrationMeasurement(referenceRSSIAt1m: 0)
        measured(Array(repeating: -90, count: 20), from: reference, into: &m)
        guard case .failure(.outOfRange(let correction, _)) = m.outcome() else {
            Issue.record("expected out of range, got \(m.outcome())")
            return
        }
        #expect(correction == 90 && !RSSICorrection.range.contains(correction))
    }

    @Test func anEvenCountTakesTheMeanOfTheMiddleTwoAndRoundsTheCorrection() throws {
        var m = CalibrationMeasurement(referenceRSSIAt1m: -40)
        measured([-50, -51] + Array(repeating: -50, count: 4) + Array(repeating: -51, count: 4), from: reference, into: &m)
        let c = try m.outcome().get()
        #expect(c.statistics.median == -50.5 && RSSIStatistics.dB(c.statistics.median) == "-50.5 dBm")
        #expect(RSSIStatistics.text(-0.5) == "-0.5" && RSSIStatistics.text(-52) == "-52" && RSSIStatistics.text(3.5) == "3.5")
        #expect(c.correction == 11, "10.5 dB rounds away from zero")
    }
}
