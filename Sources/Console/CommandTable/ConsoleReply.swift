/// What a command handler answers.
package enum ConsoleReply {
    /// Success, as text for a person (may span lines; empty prints nothing).
    case text(String)
    /// Success, as one JSON document, already serialised (for `--json`).
    case json(String)
    /// Failure: one line saying what is wrong. `ctl` exits 1 with it on stderr.
    case error(String)
    /// Failure with something to show: `text` (lines, for a person) or, for `--json`, `json` (one document).
    /// `ctl` exits 1 with it on stderr, as for `error`. (`health` lists its failing checks this way.)
    case failure(text: String, json: String)
    /// The arguments do not fit: the table answers with the command's usage line, plus `detail` if given.
    case usage(String?)
    /// Lines that keep coming (`live`) until the channel or the producer ends the stream.
    case stream(ConsoleStream)
    /// An answer that needs the loop to turn first (`sync now` waits for a download); the channel waits
    /// for it without blocking anything else.
    case deferred(ConsoleDeferredReply)
    /// Ends the stream this channel is running, if any, then prints the text (`live off`).
    case endStream(String)
}
