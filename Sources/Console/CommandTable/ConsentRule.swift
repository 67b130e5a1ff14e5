/// How consent is given, per channel. This is the whole rule:
///
/// - On an interactive terminal (the agent's stdin or a serial console) the console asks
///   `type yes to confirm` and runs the command only when the answer is exactly `yes`. `--yes` does not
///   skip the question there: a person is present and can answer it, and a line recalled from history
///   or pasted by mistake must never reveal keys, wipe a badge or change what it runs or trusts silently.
/// - Through the unix socket (`enbeacon ctl`) or a piped stdin nobody can be asked, so `--yes` on the
///   command line is the consent. Without it the command is refused with a line that names the flag.
enum ConsentRule {
    enum Decision: Hashable, Sendable {
        case proceed
        case ask
        case refuse(String)
    }

    static func decide(command: String, channel: ConsoleChannel, yes: Bool) -> Decision {
        switch channel {
        case .terminal:
            return .ask
        case .pipe, .socket:
            return yes ? .proceed : .refuse("\(command) needs consent: add --yes (on a terminal the console asks instead)")
        }
    }

    /// The question asked on a terminal.
    static func question(for command: String) -> String {
        "\(command): type yes to confirm: "
    }

    /// One line for `help`, so that the rule is documented where staff look for it.
    package static let summary = "needs consent: on a terminal type yes when asked; through enbeacon ctl or a pipe add --yes"
}
