/// A link to a controller that carries H4 packets both ways.
///
/// The edge at which tests and the simulation substitute the hardware: file-descriptor transports
/// (user channel, UART, TCP), the in-process virtual controller, and decorators such as btsnoop logging.
public protocol HCITransport: AnyObject {
    /// Starts delivery. `onPacket` gets every packet from the controller in order; `onFailure` is called
    /// at most once, when the link is gone (EOF, I/O error, device removed). Calls happen on the loop.
    func start(onPacket: @escaping (H4Packet) -> Void, onFailure: @escaping (TransportError) -> Void)
    /// Queues a packet for the controller; never blocks.
    func send(_ packet: H4Packet)
    /// Releases the link; no callbacks afterwards.
    func stop()
}
