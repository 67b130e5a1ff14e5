/// Whether a command needs explicit consent before it runs: those that reveal keys (which would let
/// anyone who copies them track the badge's wearer), destroy data, or change what the badge runs or trusts.
enum ConsentRequirement: Hashable, Sendable {
    case never
    case always
    /// Only when this flag is given, as with `keys --reveal`.
    case withFlag(String)
    /// Only when the first argument is one of these, as with `config set notify.command`, or is one of these
    /// in a named section (`keyserver.eur.public_key` for `keyserver.public_key`): a further key server's
    /// trust is the default's.
    case forFirstArgument(Set<String>)

    func applies(toFlags flags: Set<String>, arguments: [String]) -> Bool {
        switch self {
        case .never: false
        case .always: true
        case .withFlag(let flag): flags.contains(flag)
        case .forFirstArgument(let words): arguments.first.map { words.contains($0) || words.contains(Self.unsectioned($0)) } ?? false
        }
    }

    /// `a.section.b` as `a.b`; any other word as it is.
    private static func unsectioned(_ word: String) -> String {
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return word }
        return parts[0] + "." + parts[2]
    }

    /// What the question and the refusal name: the command, and the argument that made consent necessary.
    func subject(command: String, arguments: [String]) -> String {
        guard case .forFirstArgument = self, let first = arguments.first else { return command }
        return command + " " + first
    }
}
