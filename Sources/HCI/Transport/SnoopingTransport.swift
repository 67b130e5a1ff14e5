import EventLoop

/// Wraps a transport and copies every packet, both ways, into a btsnoop file (`--btsnoop FILE`) that
/// btmon and Wireshark read. A failing log (disk full) is reported once and then left alone: losing the
/// log must never take the radio down with it.
public final class SnoopingTransport: HCITransport {
    private let inner: any HCITransport
    private let file: BtsnoopFile
    private let loop: any EventLoop
    private let log: Logger
    private var broken = false

    public init(_ inner: any HCITransport, file: BtsnoopFile, loop: any EventLoop, log: Logger) {
        self.inner = inner
        self.file = file
        self.loop = loop
        self.log = log
    }

    public func start(onPacket: @escaping (H4Packet) -> Void, onFailure: @escaping (TransportError) -> Void) {
        // The inner transport drops these callbacks when it stops, and with them this wrapper.
        inner.start(onPacket: { packet in
            self.record(packet, .received)
            onPacket(packet)
        }, onFailure: onFailure)
    }

    public func send(_ packet: H4Packet) {
        record(packet, .sent)
        inner.send(packet)
    }

    public func stop() { inner.stop() }

    private func record(_ packet: H4Packet, _ direction: BtsnoopDirection) {
        guard !broken else { return }
        do {
            try file.write(packet, direction: direction, unixMicroseconds: loop.unixNanoseconds / 1000)
        } catch {
            broken = true
            log.error("btsnoop log stopped: \(error)")
        }
    }
}
