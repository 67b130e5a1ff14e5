import EventLoop
import ENCore
@testable import HCI
import Testing

/// The radio stack holds its callbacks strongly (the board build, Embedded Swift, has no weak references), so
/// what lets go of what is a rule of its own: a stopped radio is held by its owners alone, and a simulated air
/// that is emptied holds nothing. A leak here is a badge whose old driver keeps a controller busy, or a
/// simulation that grows with every badge it ever made.
@Suite("Ownership without weak references")
struct OwnershipTests {
    @Test("a radio that broadcast and scanned, once stopped, is released with its driver")
    func stoppedRadioIsReleased() {
        let loop = VirtualLoop()
        let air = VirtualRadio(loop: loop, seed: 7)
        let controller = air.addController(VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_0A_0B_0C)),
                                           at: .origin)
        air.addBeacon(address: BDAddress(rawValue: 0x4A_00_00_00_00_01), data: Self.gaenData, at: RadioPosition(x: 1, y: 0))
        weak var releasedDriver: ControllerDriver?
        weak var releasedRadio: GAENRadio?
        var heard = 0
        do {
            let driver = ControllerDriver(loop: loop, log: Logger(level: .error) { _, _ in },
                                          makeTransport: { controller.makeHostTransport() })
            let radio = GAENRadio(driver: driver)
            radio.onReport = { _ in heard += 1 }
            radio.scanning = true
            radio.broadcast(Self.payload, address: BDAddress(rawValue: 0x4B_00_00_00_00_02))
            radio.start()
            loop.run(for: .seconds(3))
            #expect(radio.isOnAir)
            radio.stop()
            releasedDriver = driver
            releasedRadio = radio
        }
        loop.run(for: .seconds(1))
        #expect(heard > 0, "the radio heard the beacon while it ran")
        #expect(releasedDriver == nil && releasedRadio == nil, "a stopped radio is still held")
        #expect(!controller.hasLiveLink, "the controller still has the stopped driver's link")
    }

    @Test("an emptied air releases its controllers, its beacons, and itself from the loop")
    func emptiedAirHoldsNothing() {
        let loop = VirtualLoop()
        weak var releasedAir: VirtualRadio?
        weak var releasedController: VirtualController?
        weak var releasedBeacon: VirtualBeacon?
        do {
            let air = VirtualRadio(loop: loop, seed: 3)
            let controller = air.addController(VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_0D_0E_0F)),
                                               at: .origin)
            let beacon = air.addBeacon(address: BDAddress(rawValue: 0x4A_00_00_00_00_03), data: Self.gaenData,
                                       at: RadioPosition(x: 2, y: 0))
            let driver = ControllerDriver(loop: loop, log: Logger(level: .error) { _, _ in },
                                          makeTransport: { controller.makeHostTransport() })
            let radio = GAENRadio(driver: driver)
            radio.scanning = true
            radio.start()
            loop.run(for: .seconds(2))
            #expect(air.advertisingEventCount > 0, "the beacon's events were simulated while the badge scanned")
            radio.stop()
            air.removeAll()
            releasedAir = air
            releasedController = controller
            releasedBeacon = beacon
        }
        loop.run(for: .seconds(1))
        #expect(releasedAir == nil, "the loop or a member still holds the air")
        #expect(releasedController == nil && releasedBeacon == nil, "the air still holds a member")
    }

    static let payload = AdvertisingPayload(rpi: Bytes16([UInt8](repeating: 0x11, count: 16))!,
                                            aem: AssociatedEncryptedMetadata(word: 0x4008_0000))
    static let gaenData = payload.encoded()
}
