/// The v2 attenuation buckets, from thresholds t0 < t1 < t2 on a scan instance's typical attenuation:
/// immediate `A ≤ t0`, near `t0 < A ≤ t1`, medium `t1 < A ≤ t2`, other `A > t2`.
public enum AttenuationBucket: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case immediate = 0
    case near = 1
    case medium = 2
    case other = 3

    /// `thresholds` = [t0, t1, t2], ascending.
    public init(attenuation: Int, thresholds: [Int]) {
        if attenuation <= thresholds[0] {
            self = .immediate
        } else if attenuation <= thresholds[1] {
            self = .near
        } else if attenuation <= thresholds[2] {
            self = .medium
        } else {
            self = .other
        }
    }

    /// The bucket's name, which is also its key in a configuration's `attenuationWeights`.
    public var description: String {
        switch self {
        case .immediate: "immediate"
        case .near: "near"
        case .medium: "medium"
        case .other: "other"
        }
    }
}
