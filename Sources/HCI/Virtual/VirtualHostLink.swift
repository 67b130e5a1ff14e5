import EventLoop

/// The host's end of the in-process link to a `VirtualController`: what `makeHostTransport()` returns.
///
/// Each link lives once. When it fails (the controller dropped it, or a newer link replaced it) or the
/// host stops it, it is dead for good; a host that wants to reconnect asks the controller for a new one,
/// as it would reopen a socket or a serial port.
///
/// A live link and its controller hold each other; closing the link, from either side, lets go of the controller.
final class VirtualHostLink: HCITransport {
    private var controller: VirtualController?
    private var onPacket: ((H4Packet) -> Void)?
    private var onFailure: ((TransportError) -> Void)?
    private var isStarted = false
    /// Set once stopped by the host or failed: no traffic either way afterwards.
    private(set) var isClosed = false
    private var stoppedByHost = false
    /// A failure that happened before `start`, reported once the host starts listening.
    private var pendingFailure: TransportError?

    init(controller: VirtualController) {
        self.controller = controller
    }

    func start(onPacket: @escaping (H4Packet) -> Void, onFailure: @escaping (TransportError) -> Void) {
        guard !isStarted, !stoppedByHost else { return }
        isStarted = true
        if let error = pendingFailure {
            pendingFailure = nil
            // The transport contract: callbacks come from the loop, never from inside start().
            controller?.loop.schedule(after: .zero) { [self] in
                guard !stoppedByHost else { return }
                onFailure(error)
            }
            return
        }
        self.onPacket = onPacket
        self.onFailure = onFailure
    }

    func send(_ packet: H4Packet) {
        guard !isClosed else { return }
        controller?.receive(packet, from: self)
    }

    func stop() {
        stoppedByHost = true
        guard !isClosed else { return }
        let controller = controller
        close()
        controller?.linkClosed(self)
    }

    /// Hands `packet` to the host; false when nobody is listening.
    func deliver(_ packet: H4Packet) -> Bool {
        guard isStarted, !isClosed, let onPacket else { return false }
        onPacket(packet)
        return true
    }

    /// Kills the link from the controller's side and tells the host, once. Called from a loop callback.
    func fail(_ error: TransportError) {
        guard !isClosed else { return }
        let handler = onFailure
        close()
        if isStarted {
            handler?(error)
        } else {
            pendingFailure = error
        }
    }

    private func close() {
        isClosed = true
        onPacket = nil
        onFailure = nil
        controller = nil
    }
}
