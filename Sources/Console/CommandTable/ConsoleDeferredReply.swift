/// An answer that arrives later, from a loop callback (a finished download, say).
///
/// The handler returns `.deferred(reply)` at once and calls `resolve` when it knows the answer. The
/// channel waits without blocking the loop; if it goes away first (client disconnected, Ctrl-C) the
/// reply is cancelled and `onCancel` runs, and a later `resolve` is ignored.
package final class ConsoleDeferredReply {
    private(set) var isCancelled = false
    private(set) var isResolved = false
    private var resolved: ConsoleReply?
    private var receiver: ((ConsoleReply) -> Void)?
    private var onCancel: (() -> Void)?
    /// Set by the command table, so that `.usage` from a late answer names the right command.
    var usageLine: (String?) -> String = { detail in "usage: " + (detail ?? "wrong arguments") }

    init(onCancel: @escaping () -> Void = {}) {
        self.onCancel = onCancel
    }

    /// Delivers the answer; only the first call counts.
    func resolve(_ reply: ConsoleReply) {
        guard !isResolved, !isCancelled else { return }
        isResolved = true
        onCancel = nil
        if let receiver {
            self.receiver = nil
            receiver(normalized(reply))
        } else {
            resolved = reply
        }
    }

    /// `.usage` becomes the error line naming the command (the table sets `usageLine` only after the
    /// handler returned, which may be after it resolved).
    private func normalized(_ reply: ConsoleReply) -> ConsoleReply {
        guard case .usage(let detail) = reply else { return reply }
        return .error(usageLine(detail))
    }

    /// Called by the channel: `receiver` gets the answer once, at once if it is already known.
    func attach(_ receiver: @escaping (ConsoleReply) -> Void) {
        if let resolved {
            self.resolved = nil
            receiver(normalized(resolved))
        } else if !isCancelled {
            self.receiver = receiver
        }
    }

    /// Called by the channel when nobody is waiting any more.
    func cancel() {
        guard !isResolved, !isCancelled else { return }
        isCancelled = true
        receiver = nil
        let cancel = onCancel
        onCancel = nil
        cancel?()
    }
}
