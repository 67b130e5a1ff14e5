import ENCore
import EventLoop

/// Exposure Notification on top of the controller driver: what to broadcast and whether to listen.
///
/// Every new payload goes on air under a fresh non-resolvable private address — the address and the RPI
/// always change together, and the driver's `RadioPlan` takes advertising (and a running scan) down
/// around the change. Received advertisements that are GAEN payloads become `GAENReport`s; all others
/// are counted and dropped. So are scan responses: GAEN advertisements are non-scannable, so a scan
/// response carrying one is a controller's duplicate (Bumble reports every advertisement a second time
/// as one), and counting it would double every sighting.
public final class GAENRadio {
    public let driver: ControllerDriver
    public var onReport: (GAENReport) -> Void = { _ in }
    public private(set) var broadcasting: AdvertisingPayload?
    public private(set) var gaenReports = 0
    public private(set) var otherReports = 0
    /// Reports flagged as scan responses, dropped whatever they carry.
    public private(set) var scanResponseReports = 0
    /// The last payload broadcast and its address, kept across `stopBroadcasting()`.
    private var lastBroadcast: RadioGoal.Broadcast?

    public init(driver: ControllerDriver) {
        self.driver = driver
        driver.onAdvertisement = { [weak self] advertisement, time in self?.heard(advertisement, at: time) }
    }

    /// Puts `payload` on air under a new random NRPA.
    ///
    /// The same payload asked for again (a second rotation within one 10-minute interval, a wall clock
    /// set back) keeps the address it had: a new address for an RPI already seen would let anyone link
    /// the two addresses through it.
    public func broadcast(_ payload: AdvertisingPayload, using generator: inout some RandomNumberGenerator) {
        let data = payload.encoded()
        broadcasting = payload
        if let last = lastBroadcast, last.data == data {
            driver.goal.broadcast = last
            return
        }
        var address = BDAddress.nonResolvablePrivate(using: &generator)
        while address == driver.goal.broadcast?.address || address == lastBroadcast?.address {
            address = BDAddress.nonResolvablePrivate(using: &generator)
        }
        let fresh = RadioGoal.Broadcast(address: address, data: data)
        lastBroadcast = fresh
        driver.goal.broadcast = fresh
    }

    public func stopBroadcasting() {
        broadcasting = nil
        driver.goal.broadcast = nil
    }

    public var scanning: Bool {
        get { driver.goal.scanning }
        set { driver.goal.scanning = newValue }
    }

    /// The address currently requested for the broadcast.
    public var broadcastAddress: BDAddress? { driver.goal.broadcast?.address }

    private func heard(_ advertisement: ReceivedAdvertisement, at time: MonotonicInstant) {
        guard !advertisement.isScanResponse else {
            scanResponseReports += 1
            return
        }
        guard let payload = try? AdvertisingPayload(decoding: advertisement.data) else {
            otherReports += 1
            return
        }
        gaenReports += 1
        let rssi = advertisement.rssi == ReceivedAdvertisement.rssiNotAvailable ? nil : advertisement.rssi
        onReport(GAENReport(payload: payload, address: advertisement.address, rssi: rssi, receivedAt: time))
    }
}
