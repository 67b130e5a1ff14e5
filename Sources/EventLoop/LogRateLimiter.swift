/// Keeps a storm of one kind of message from flooding the log (a controller in a Hardware Error loop wrote
/// 1,448 lines in 40 s): per kind, the first `burst` messages of a `window` are written, the rest counted,
/// and one line at the window's end says how many were suppressed, with the last of them as an example.
///
/// A message's kind is its text with every word that holds a digit masked (`hardware error 0x3` and
/// `hardware error 0x1f` are one kind; so are `controller ready: address …` lines whatever the address), so
/// call sites need no keys of their own. Debug lines are never limited: `--log debug` is asked for to see
/// everything. It sits between a `Logger` and its output: `Logger(level:sink: limiter.write)`.
public final class LogRateLimiter {
    public struct Settings: Sendable {
        public var burst = 5
        public var window: Duration = .seconds(60)
        public init() {}
    }

    private struct Kind {
        var windowEnd: MonotonicInstant
        var written = 0
        var suppressed = 0
        var level = Logger.Level.debug
        var lastSuppressed = ""
        var timer: TimerHandle?
    }

    private let loop: any EventLoop
    private let settings: Settings
    private let output: (Logger.Level, String) -> Void
    private var kinds: [String: Kind] = [:]

    public init(loop: any EventLoop, settings: Settings = Settings(), output: @escaping (Logger.Level, String) -> Void) {
        self.loop = loop
        self.settings = settings
        self.output = output
    }

    /// Suppressed messages counted and not yet reported, over all kinds.
    public var pendingSuppressed: Int { kinds.values.reduce(0) { $0 + $1.suppressed } }

    /// The sink for a `Logger`.
    public func write(_ level: Logger.Level, _ message: String) {
        guard level != .debug else { return output(level, message) }
        let key = Self.kind(of: message)
        let now = loop.now
        var kind = kinds[key] ?? Kind(windowEnd: now + settings.window)
        if now >= kind.windowEnd, kind.timer == nil {
            kind = Kind(windowEnd: now + settings.window)
        }
        if kind.written < settings.burst {
            kind.written += 1
            kinds[key] = kind
            output(level, message)
            forgetQuietKinds(now: now)
            return
        }
        kind.suppressed += 1
        kind.level = min(kind.level, level)  // the most severe: errors sort first
        kind.lastSuppressed = message
        if kind.timer == nil {
            // Held until the window ends, at most `settings.window`.
            kind.timer = loop.schedule(at: kind.windowEnd) { self.endWindow(key) }
        }
        kinds[key] = kind
    }

    private func endWindow(_ key: String) {
        guard let kind = kinds.removeValue(forKey: key), kind.suppressed > 0 else { return }
        let seconds = settings.window.components.seconds
        output(kind.level, "suppressed \(kind.suppressed) more like this in \(seconds) s: \(kind.lastSuppressed)")
    }

    /// Kinds whose window is over and that suppressed nothing are dropped, so the table holds only the kinds
    /// of the last window; a flood of distinct kinds within one window loses their counts, never memory.
    private func forgetQuietKinds(now: MonotonicInstant) {
        guard kinds.count > 64 else { return }
        kinds = kinds.filter { $0.value.timer != nil || $0.value.windowEnd > now }
        if kinds.count > 1024 { kinds = kinds.filter { $0.value.timer != nil } }
    }

    /// The message with every word that holds a digit replaced by `#`.
    static func kind(of message: String) -> String {
        var kind = String.UnicodeScalarView()
        var word = String.UnicodeScalarView()
        var wordHasDigit = false
        func endWord() {
            if wordHasDigit { kind.append("#") } else { kind.append(contentsOf: word) }
            word = String.UnicodeScalarView()
            wordHasDigit = false
        }
        for scalar in message.unicodeScalars {
            if scalar == " " {
                endWord()
                kind.append(scalar)
            } else {
                word.append(scalar)
                if ("0"..."9").contains(scalar) { wordHasDigit = true }
            }
        }
        endWord()
        return String(kind)
    }
}
