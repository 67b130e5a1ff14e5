/// One exposure window after the Corona-Warn-App's per-window step: counted with a risk, or dropped, and at which
/// step, so that a health authority checking its configuration sees why a window did not count.
public enum CWAWindowOutcome: Hashable, Sendable {
    case counted(CWAWindowRisk)
    /// A `minutesAtAttenuationFilters` entry matched.
    case droppedByMinutesAtAttenuation
    /// A `trlFilters` entry matched this transmission risk level.
    case droppedByTransmissionRiskLevel(Int)
    /// No `normalizedTimePerEWToRiskLevelMapping` range holds the window's normalized time.
    case noRiskLevel(transmissionRiskLevel: Int, normalizedTime: Double)
    /// Unknown or revoked: the encoding has no offset for them (phones never report such windows).
    case unscoredReportType(ReportType)

    public var risk: CWAWindowRisk? {
        if case .counted(let risk) = self { return risk }
        return nil
    }
}
