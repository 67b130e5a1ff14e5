import EventLoop

/// One shared air for virtual controllers and bare beacons: who hears whom, when, and how loudly.
///
/// Each advertiser that is on the air sends an advertising event every interval plus the link
/// layer's random advDelay (0–10 ms); every other controller that is scanning, inside a scan window,
/// receives it with an RSSI from `pathLoss` and seeded noise, or not at all below the sensitivity floor.
///
/// Efficiency: advertising events are scheduled only while at least one controller scans. Nobody
/// could hear the others, so a day of simulated advertising with a 4 s scan every few minutes costs
/// loop steps for the scans only. When the first scanner starts, each advertiser resumes at a random
/// phase of its interval, as if it had been advertising all along.
///
/// Deterministic: all chance (phases, delays, noise) comes from one generator seeded at creation.
///
/// The radio and its members hold each other, and the loop holds the radio while an advertising event is
/// pending (no weak references: the board build has none). `remove` lets a member go; `removeAll` ends the
/// whole simulated air, after which the radio holds nothing and nothing holds it but its owners.
public final class VirtualRadio {
    public let loop: any EventLoop
    public var pathLoss: PathLossModel
    /// The upper bound of the random delay added to each advertising event (Core Vol 6 Part B 4.4.2.2.1).
    public var maximumAdvertisingDelay: Duration = .milliseconds(10)

    public private(set) var controllers: [VirtualController] = []
    public private(set) var beacons: [VirtualBeacon] = []
    /// Advertising events simulated so far (one per advertiser per event, however many hear it).
    public private(set) var advertisingEventCount = 0
    /// Advertisements received by a scanning controller above the sensitivity floor.
    public private(set) var receptionCount = 0

    private var random: RadioRandom
    /// The pending advertising event of each advertiser on the air, while anyone listens.
    private var nextEvents: [ObjectIdentifier: TimerHandle] = [:]

    public init(loop: any EventLoop, pathLoss: PathLossModel = PathLossModel(), seed: UInt64) {
        self.loop = loop
        self.pathLoss = pathLoss
        random = RadioRandom(seed: seed)
    }

    // MARK: Membership

    /// Puts `controller` (made on this radio's loop, on no other radio) on the air at `position`.
    public func add(_ controller: VirtualController, at position: RadioPosition) {
        precondition(controller.loop === loop, "VirtualRadio: the controller runs on a different loop")
        precondition(controller.radio == nil, "VirtualRadio: the controller is already on a radio")
        controller.position = position
        controller.radio = self
        controllers.append(controller)
        advertisersChanged()
    }

    /// A new controller on the air at `position`.
    @discardableResult
    public func addController(_ configuration: VirtualControllerConfiguration, at position: RadioPosition) -> VirtualController {
        let controller = VirtualController(loop: loop, configuration: configuration)
        add(controller, at: position)
        return controller
    }

    /// A bare advertiser, already advertising `data` (legacy, at most 31 bytes) as ADV_NONCONN_IND from `address`.
    /// The defaults are a phone's: 250 ms interval (Android's GAEN choice), random address.
    @discardableResult
    public func addBeacon(
        address: BDAddress, data: [UInt8], at position: RadioPosition, txPower: Int8 = 0,
        interval: Duration = .milliseconds(250), addressType: AddressType = .random
    ) -> VirtualBeacon {
        precondition(data.count <= LESetAdvertisingDataCommand.maximumDataLength, "VirtualRadio: beacon data exceeds 31 bytes")
        let beacon = VirtualBeacon(
            address: address, addressType: addressType, data: data, interval: interval, txPower: txPower,
            position: position, radio: self)
        beacons.append(beacon)
        advertisersChanged()
        return beacon
    }

    /// Takes `controller` off the air (someone left the building).
    public func remove(_ controller: VirtualController) {
        guard controller.radio === self else { return }
        cancelEvent(of: controller)
        controllers.removeAll { $0 === controller }
        controller.radio = nil
        advertisersChanged()
    }

    public func remove(_ beacon: VirtualBeacon) {
        guard beacon.radio === self else { return }
        cancelEvent(of: beacon)
        beacons.removeAll { $0 === beacon }
        beacon.radio = nil
        advertisersChanged()
    }

    /// Takes everyone off the air and cancels every pending event.
    public func removeAll() {
        for controller in controllers { remove(controller) }
        for beacon in beacons { remove(beacon) }
    }

    // MARK: Scheduling

    /// Whether any controller is scanning: the condition for simulating advertising events at all.
    public var isAnyoneScanning: Bool { controllers.contains { $0.state.isScanning } }

    /// Re-derives which advertisers need events scheduled; called whenever scanning or advertising
    /// state may have changed. Advertisers already scheduled keep their timing.
    func advertisersChanged() {
        let listening = isAnyoneScanning
        // Mapped one by one: Embedded Swift has no dynamic casts, which `controllers + beacons` as one array needs.
        let advertisers = controllers.map { $0 as any RadioAdvertiser } + beacons.map { $0 as any RadioAdvertiser }
        for advertiser in advertisers {
            let id = advertiser.identity
            if listening, let transmission = advertiser.transmission {
                if nextEvents[id] == nil {
                    scheduleEvent(of: advertiser, after: random.duration(below: transmission.interval))
                }
            } else {
                cancelEvent(of: advertiser)
            }
        }
    }

    private func scheduleEvent(of advertiser: any RadioAdvertiser, after delay: Duration) {
        let id = advertiser.identity
        nextEvents[id] = loop.schedule(after: delay) { [self] in
            nextEvents[id] = nil
            advertisingEvent(of: advertiser)
        }
    }

    private func cancelEvent(of advertiser: any RadioAdvertiser) {
        if let handle = nextEvents.removeValue(forKey: advertiser.identity) { loop.cancel(handle) }
    }

    /// One advertising event: everyone listening in range hears it; then the next one is due.
    private func advertisingEvent(of advertiser: any RadioAdvertiser) {
        guard let transmission = advertiser.transmission else { return }
        advertisingEventCount += 1
        // Schedule the next event first, so that a host reacting to this one (and changing what is
        // on the air) finds the schedule consistent.
        scheduleEvent(of: advertiser, after: transmission.interval + random.duration(below: maximumAdvertisingDelay))
        let now = loop.now
        for scanner in controllers where scanner !== advertiser && scanner.isListening(at: now) {
            let distance = advertiser.position.distance(to: scanner.position)
            guard
                let rssi = pathLoss.rssi(
                    txPower: transmission.txPower, distance: distance, standardNormal: random.roughlyNormal())
            else { continue }
            receptionCount += 1
            scanner.hear(transmission, rssi: rssi)
        }
    }
}
