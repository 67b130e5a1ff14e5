/// The Corona-Warn-App's exposure-window risk calculation, the second scorer beside Google's v2 daily sums
/// (`RiskScoringV2`). Rules as the app applies them (facts from its source and published test file):
///
/// Per window (`outcome(of:configuration:)`):
/// 1. Dropped when, for any `minutesAtAttenuationFilters` entry, the minutes of scan instances whose minimum
///    attenuation lies in its attenuation range fall in its drop range.
/// 2. Transmission risk level = report-type offset + infectiousness offset (`CWATransmissionRiskLevelEncoding`);
///    dropped when it lies in any `trlFilters` range.
/// 3. Weighted minutes = Σ seconds since last scan (negative counted as 0) × the weight of the first weight range
///    holding the instance's minimum attenuation (0 when none does), ÷ 60.
/// 4. Normalized time = the level's transmission risk value × weighted minutes; its risk level is the first
///    per-window mapping holding it, unrounded. Without one the window does not count.
///
/// Per day and in total: `aggregate(_:configuration:)`.
public enum CWARiskModel {
    /// Scores windows and aggregates the counted ones: the whole calculation.
    public static func risk(of windows: [ExposureWindow], configuration: CWARiskConfiguration) -> CWARiskResult {
        // Built element by element: converting zip's unlabelled pairs to labelled tuples is a dynamic cast, which
        // the board's Embedded Swift refuses.
        var scored: [(window: ExposureWindow, outcome: CWAWindowOutcome)] = []
        for window in windows { scored.append((window, outcome(of: window, configuration: configuration))) }
        return aggregate(scored, configuration: configuration)
    }
}
