import ENCore
import EventLoop

/// Exposure Notification on top of the controller driver: what to broadcast and whether to listen.
///
/// Every new payload goes on air under a fresh non-resolvable private address — the address and the RPI
/// always change together, and the driver's `RadioPlan` takes advertising (and a running scan) down
/// around the change. Received advertisements that are GAEN payloads become `GAENReport`s; all others
/// are counted and dropped.
public final class GAENRadio {
    public let driver: ControllerDriver
    public var onReport: (GAENReport) -> Void = { _ in }
    public private(set) var broadcasting: AdvertisingPayload?
    public private(set) var gaenReports = 0
    public private(set) var otherReports = 0

    public init(driver: ControllerDriver) {
        self.driver = driver
        driver.onAdvertisement = { [weak self] advertisement, time in self?.heard(advertisement, at: time) }
    }

    /// Puts `payload` on air under a new random NRPA.
    public func broadcast(_ payload: AdvertisingPayload, using generator: inout some RandomNumberGenerator) {
        var address = BDAddress.nonResolvablePrivate(using: &generator)
        while address == driver.goal.broadcast?.address {
            address = BDAddress.nonResolvablePrivate(using: &generator)
        }
        broadcasting = payload
        driver.goal.broadcast = RadioGoal.Broadcast(address: address, data: payload.encoded())
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
        guard let payload = try? AdvertisingPayload(decoding: advertisement.data) else {
            otherReports += 1
            return
        }
        gaenReports += 1
        let rssi = advertisement.rssi == ReceivedAdvertisement.rssiNotAvailable ? nil : advertisement.rssi
        onReport(GAENReport(payload: payload, address: advertisement.address, rssi: rssi, receivedAt: time))
    }
}
