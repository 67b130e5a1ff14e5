/// A stream of lines from a producer (the agent's `live` report observer) to one console channel.
///
/// Either side may end it: the channel when its client disconnects or the person presses Ctrl-C, the
/// producer when it has nothing more to say. Ending tells the other side once; lines sent after the
/// end are dropped, so a producer never needs to know whether anyone is still listening.
package final class ConsoleStream {
    private(set) var isEnded = false
    private var onStop: (() -> Void)?
    private var sink: ((String) -> Void)?
    private var onChannelEnd: (() -> Void)?
    /// Lines sent before a channel attached, bounded so a stream nobody attaches cannot grow.
    private var early: [String] = []
    private static let earlyLimit = 64

    /// - Parameter onStop: called once when the stream ends, whoever ended it: unregister the observer here.
    init(onStop: @escaping () -> Void = {}) {
        self.onStop = onStop
    }

    /// Sends one line (without a newline). The channel may drop it under backpressure.
    func send(_ line: String) {
        guard !isEnded else { return }
        if let sink {
            sink(line)
        } else if early.count < Self.earlyLimit {
            early.append(line)
        }
    }

    /// Ends the stream; idempotent.
    package func end() {
        guard !isEnded else { return }
        isEnded = true
        let stop = onStop, channelEnd = onChannelEnd
        onStop = nil
        onChannelEnd = nil
        sink = nil
        early = []
        stop?()
        channelEnd?()
    }

    /// Called by the channel that runs the stream.
    func attach(sink: @escaping (String) -> Void, onEnd: @escaping () -> Void) {
        guard !isEnded else {
            onEnd()
            return
        }
        self.sink = sink
        onChannelEnd = onEnd
        let pending = early
        early = []
        for line in pending { sink(line) }
    }
}
