import ENCore
import EventLoop

/// Exposure Notification on top of the controller driver: what to broadcast and whether to listen.
///
/// A payload goes on air under the non-resolvable private address its sender chose for it — the advertiser
/// derives one per RPI, so address and RPI always change together — and the driver's `RadioPlan` takes
/// advertising (and a running scan) down around the change. Received advertisements that are GAEN payloads become `GAENReport`s; all others
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

    public init(driver: ControllerDriver) {
        self.driver = driver
    }

    /// Starts the driver with this radio listening to what its scans hear. The driver holds the radio from
    /// here until `stop`, which lets it go: no weak reference, so the board build (Embedded Swift, which has
    /// none) shares the code, and nothing outlives a stopped radio.
    public func start() {
        driver.onAdvertisement = { advertisement, time in self.heard(advertisement, at: time) }
        driver.start()
    }

    /// Stops the driver (the link closes, nothing more is sent) and lets go of the radio.
    public func stop() {
        driver.stop()
        driver.onAdvertisement = { _, _ in }
    }

    /// Puts `payload` on air under `address` (a non-resolvable private address).
    public func broadcast(_ payload: AdvertisingPayload, address: BDAddress) {
        broadcasting = payload
        driver.goal.broadcast = RadioGoal.Broadcast(address: address, data: payload.encoded())
    }

    /// Whether the controller has confirmed that it transmits exactly the payload asked for: advertising
    /// enabled with this address and data, acknowledged by Command Complete.
    public var isOnAir: Bool {
        guard driver.phase == .ready, let goal = driver.goal.broadcast else { return false }
        return driver.state.isBroadcasting(goal)
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
