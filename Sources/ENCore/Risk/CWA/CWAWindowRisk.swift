/// What the Corona-Warn-App's model makes of one exposure window that counts: its transmission risk level, its
/// normalized time (transmission risk value × weighted minutes) and the risk level that time maps to.
public struct CWAWindowRisk: Hashable, Sendable {
    public var transmissionRiskLevel: Int
    public var normalizedTime: Double
    public var riskLevel: CWARiskLevel
}
