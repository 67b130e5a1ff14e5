/// Whether a command needs explicit consent before it runs: those that reveal keys (which would let
/// anyone who copies them track the badge's wearer) or destroy data.
public enum ConsentRequirement: Hashable, Sendable {
    case never
    case always
    /// Only when this flag is given, as with `keys --reveal`.
    case withFlag(String)

    func applies(toFlags flags: Set<String>) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .withFlag(let flag): flags.contains(flag)
        }
    }
}
