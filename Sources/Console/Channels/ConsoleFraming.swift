/// The console socket's protocol, small enough to speak with `socat` or `nc -U`.
///
/// The client sends one command line ending in LF (at most 4 KiB), exactly as it would be typed at the
/// console. The server answers with a status line, `ok` or `error`, then the body, and closes the
/// connection. The body of `ok` is the command's text or JSON document; the body of `error` is one line
/// (`{"error":"…"}` when the command asked for `--json`). A stream (`live`) answers `ok` and then
/// sends one line per event until either side closes.
package enum ConsoleFraming {
    package static let ok = "ok"
    package static let error = "error"

    /// The error bodies of a connection closed before its command ran: at the cap, an idle connection makes
    /// room, or a newcomer is refused. The command did not run, so a client may send it again.
    static let evicted = "closed: "
    static let busy = "busy: "

    /// Whether an `error` answer's body says the command was never run (`evicted`, `busy`).
    package static func commandDidNotRun(_ body: String) -> Bool {
        body.hasPrefix(evicted) || body.hasPrefix(busy)
    }

    /// The whole answer for a finished command.
    static func answer(ok: Bool, body: String) -> [UInt8] {
        var text = (ok ? Self.ok : Self.error) + "\n" + body
        if !body.isEmpty && !body.hasSuffix("\n") { text += "\n" }
        return Array(text.utf8)
    }
}
