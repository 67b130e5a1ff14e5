/// The risk-scoring cases of a case file (the line format is in VectorCheck.swift): a configuration line
/// (`riskv1`, `riskv2`) sets the configuration the following cases are scored with; each case (`exposures1`,
/// `windows2`) gives one matched key's sightings and what the core must make of them. The expected values come
/// from Tools/mcu/risk_cases.py, which computes them from the published rules, not from this code.
///
/// Scores and weights are written in thousandths, so the image parses no floating-point text.
import CMCU
import ENCore

struct RiskCases {
    private var v1: ExposureConfigurationV1?
    private var v2: ExposureConfigurationV2?
    /// Cases scored, timer ticks spent in the core's scoring (not in parsing the line), the deepest stack then.
    private(set) var cases = 0
    private(set) var ticks: UInt32 = 0
    private(set) var stack = 0

    /// `riskv1 MINIMUM T0,T1 ATTENUATION DAYS DURATION TRANSMISSION`, each level list 8 values.
    mutating func configureV1(_ f: [String]) -> String? {
        guard let minimum = Int(f[0]), let thresholds = Self.integers(f[1]), let attenuation = Self.integers(f[2]),
              let days = Self.integers(f[3]), let duration = Self.integers(f[4]),
              let transmission = Self.integers(f[5]) else { return "bad riskv1 field" }
        do {
            v1 = try ExposureConfigurationV1(
                minimumRiskScore: minimum, attenuationDurationThresholds: thresholds, attenuationLevelValues: attenuation,
                daysSinceLastExposureLevelValues: days, durationLevelValues: duration,
                transmissionRiskLevelValues: transmission)
        } catch {
            return "riskv1: \(error)"
        }
        return nil
    }

    /// `riskv2 T0,T1,T2 W-IMMEDIATE,W-NEAR,W-MEDIUM,W-OTHER W-CONFIRMED,W-CLINICAL,W-SELF,W-RECURSIVE W-STANDARD
    /// W-HIGH MINIMUM-SCORE`, weights and the minimum in thousandths; the default infectiousness map.
    mutating func configureV2(_ f: [String]) -> String? {
        guard let thresholds = Self.integers(f[0]), let attenuation = Self.integers(f[1]),
              let report = Self.integers(f[2]), report.count == 4, let standard = Int(f[3]), let high = Int(f[4]),
              let minimum = Int(f[5]) else { return "bad riskv2 field" }
        let types = ExposureConfigurationV2.weightedReportTypes
        var reportWeights: [ReportType: Double] = [:]
        for (type, weight) in zip(types, report) { reportWeights[type] = Self.unit(weight) }
        do {
            v2 = try ExposureConfigurationV2(
                attenuationThresholds: thresholds, attenuationWeights: attenuation.map(Self.unit),
                reportTypeWeights: reportWeights, standardInfectiousnessWeight: Self.unit(standard),
                highInfectiousnessWeight: Self.unit(high), minimumWindowScore: Self.unit(minimum))
        } catch {
            return "riskv2: \(error)"
        }
        return nil
    }

    /// `exposures1 ROLLING-START TRANSMISSION-RISK-LEVEL REPORT-TYPE EVALUATION-DAY SIGHTINGS EXPOSURES`:
    /// SIGHTINGS `TIME:ATTENUATION:SECONDS-SINCE-PREVIOUS-SCAN,…`; EXPOSURES `DURATION:ATTENUATION:D0:D1:D2:SCORE,…`
    /// oldest first, or `-` for none. The result, or a description of what is wrong with the line.
    mutating func checkV1(_ f: [String]) -> Result<(Bool, String), CaseLineError> {
        guard let configuration = v1 else { return .failure(CaseLineError("exposures1 before a riskv1 line")) }
        guard let start = UInt32(f[0]), let level = Int(f[1]), let type = Int(f[2]).flatMap(ReportType.init(rawValue:)),
              let day = Int64(f[3]), let sightings = Self.records(f[4], fields: 3),
              let want = f[5] == "-" ? [] : Self.records(f[5], fields: 6) else { return .failure(CaseLineError("bad exposures1 field")) }
        let key = MatchedKey(
            rollingStart: ENIntervalNumber(start), transmissionRiskLevel: level, reportType: type,
            daysSinceOnsetOfSymptoms: nil,
            sightings: sightings.map { MatchedSighting(time: $0[0], attenuation: UInt8($0[1]),
                                                       secondsSincePreviousScan: UInt16($0[2])) })
        let found = measured {
            RiskScoringV1.exposures(to: key, configuration: configuration, evaluationDay: UTCDay(daysSinceEpoch: day))
        }
        let got = found.map { e in
            [Int64(e.durationMinutes), Int64(e.typicalAttenuation)] + e.attenuationDurations.map(Int64.init)
                + [Int64(e.riskScore)]
        }
        let ok = got == want && found.allSatisfy { $0.date == UTCDay(ENIntervalNumber(start))
            && $0.transmissionRiskLevel == min(max(level, 0), 7) && $0.reportType == type }
        return .success((ok, "exposures1 \(f[0]) \(f[1]) \(f[2]) \(f[3]): got \(Self.text(got)), expected \(f[5])"))
    }

    /// `windows2 REPORT-TYPE DAYS-SINCE-ONSET SIGHTINGS WINDOWS SUMMARIES`: DAYS-SINCE-ONSET `-` when the key has
    /// none; SIGHTINGS `TIME:ATTENUATION:MINIMUM-ATTENUATION:SECONDS-SINCE-PREVIOUS-SCAN:REPORTS:CONFIDENCE,…`;
    /// WINDOWS `DAY:INSTANCES:WEIGHTED-DURATION:SCORE:CONFIDENCE,…`; SUMMARIES (the daily summaries)
    /// `DAY:SCORE-SUM:MAXIMUM-SCORE:WEIGHTED-DURATION-SUM,…`, each oldest first or `-` for none.
    mutating func checkV2(_ f: [String]) -> Result<(Bool, String), CaseLineError> {
        guard let configuration = v2 else { return .failure(CaseLineError("windows2 before a riskv2 line")) }
        var onset: Int?
        if f[1] != "-" {
            guard let days = Int(f[1]) else { return .failure(CaseLineError("bad windows2 days since onset")) }
            onset = days
        }
        guard let type = Int(f[0]).flatMap(ReportType.init(rawValue:)),
              let sightings = Self.records(f[2], fields: 6), sightings.allSatisfy({ (0...3).contains($0[5]) }),
              let wantWindows = f[3] == "-" ? [] : Self.records(f[3], fields: 5),
              let wantDays = f[4] == "-" ? [] : Self.records(f[4], fields: 4) else {
            return .failure(CaseLineError("bad windows2 field"))
        }
        let key = MatchedKey(
            rollingStart: ENIntervalNumber(UInt32(sightings.first.map { $0[0] / 600 } ?? 0)),
            transmissionRiskLevel: 0, reportType: type, daysSinceOnsetOfSymptoms: onset,
            sightings: sightings.map {
                MatchedSighting(time: $0[0], attenuation: UInt8($0[1]), minimumAttenuation: UInt8($0[2]),
                                secondsSincePreviousScan: UInt16($0[3]),
                                calibrationConfidence: CalibrationConfidence(rawValue: Int($0[5]))!, reports: UInt16($0[4]))
            })
        let (windows, summaries) = measured {
            (RiskScoringV2.windows(of: key, configuration: configuration),
             RiskScoringV2.dailySummaries(of: [key], configuration: configuration))
        }
        let gotWindows = windows.map { w in
            [w.date.daysSinceEpoch, Int64(w.scanInstances.count),
             Self.thousandths(RiskScoringV2.weightedDuration(of: w, configuration: configuration)),
             Self.thousandths(RiskScoringV2.score(of: w, configuration: configuration)), Int64(w.calibrationConfidence.rawValue)]
        }
        let gotDays = summaries.map { s in
            [s.date.daysSinceEpoch, Self.thousandths(s.overall.scoreSum), Self.thousandths(s.overall.maximumScore),
             Self.thousandths(s.overall.weightedDurationSum)]
        }
        // One key a case: its one report type's sums are the day's.
        let scoredType = type == .unknown ? configuration.reportTypeWhenUnknown : type
        let ok = gotWindows == wantWindows && gotDays == wantDays
            && summaries.allSatisfy { $0.byReportType.count == 1 && $0.summary(for: scoredType) == $0.overall }
        return .success((ok, "windows2 \(f[0]) \(f[1]): got \(Self.text(gotWindows)) \(Self.text(gotDays)), expected \(f[3]) \(f[4])"))
    }

    /// Runs one case's scoring with the stack repainted and the timer read around it.
    private mutating func measured<T>(_ scoring: () -> T) -> T {
        mcu_stack_repaint()
        let from = mcu_timer_ticks()
        let result = scoring()
        ticks &+= mcu_timer_ticks() &- from
        stack = max(stack, Int(mcu_stack_peak()))
        cases += 1
        return result
    }

    private static func unit(_ thousandths: Int) -> Double { Double(thousandths) / 1000 }

    /// Half up, as the expected values are rounded; the scores here are exact in a Double (weights of 1/8ths).
    private static func thousandths(_ value: Double) -> Int64 { Int64((value * 1000).rounded(.toNearestOrAwayFromZero)) }

    private static func integers(_ field: String) -> [Int]? {
        let values = field.split(separator: ",").map { Int($0) }
        return values.contains(nil) ? nil : values.map { $0! }
    }

    /// `a:b:c,d:e:f`: records of `fields` integers each.
    private static func records(_ field: String, fields: Int) -> [[Int64]]? {
        var records: [[Int64]] = []
        for record in field.split(separator: ",") {
            let values = record.split(separator: ":").map { Int64($0) }
            guard values.count == fields, !values.contains(nil) else { return nil }
            records.append(values.map { $0! })
        }
        return records.isEmpty ? nil : records
    }

    private static func text(_ records: [[Int64]]) -> String {
        records.isEmpty ? "-" : records.map { $0.map { "\($0)" }.joined(separator: ":") }.joined(separator: ",")
    }
}

/// What is wrong with a case line itself (not a failed case).
struct CaseLineError: Error {
    let description: String
    init(_ description: String) { self.description = description }
}
