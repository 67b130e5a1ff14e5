import ENCore
import EventLoop
import HCI

/// The badge's radio stack on the board's CPU: the controller driver initialises a virtual controller over its
/// HCI link, puts a GAEN payload on the air under its address, and scans; two phones' beacons on the simulated
/// air are heard and decoded, and a rotation takes the new payload on air. The event loop's timers, the
/// packets' encoders and decoders and the driver's recovery rules all run as the agent runs them.
enum RadioCheck {
    static func run() -> Tally {
        var tally = Tally()
        let loop = VirtualLoop()
        let air = VirtualRadio(loop: loop, seed: 11)
        let controller = air.addController(VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_0B_0A_0D)),
                                           at: RadioPosition(x: 0, y: 0))
        let phones = [payload(0x21), payload(0x22)]
        for (index, phone) in phones.enumerated() {
            air.addBeacon(address: BDAddress(rawValue: 0x4A_00_00_00_00_10 + UInt64(index)), data: phone.encoded(),
                          at: RadioPosition(x: 1.5 + Double(index), y: 0))
        }
        let driver = ControllerDriver(loop: loop, log: Logger(level: .error) { _, line in print("radio: " + line) },
                                      makeTransport: { controller.makeHostTransport() })
        let radio = GAENRadio(driver: driver)
        var heard: [Bytes16: Int] = [:]
        radio.onReport = { report in heard[report.payload.rpi, default: 0] += 1 }
        let own = payload(0x31)
        radio.broadcast(own, address: BDAddress(rawValue: 0x4B_11_22_33_44_55))
        radio.scanning = true
        radio.start()
        loop.run(for: .seconds(5))
        tally.check(driver.phase == .ready, "radio: the driver is \(driver.phase), not ready")
        tally.check(radio.isOnAir, "radio: the badge's payload is not on air as the controller confirmed it")
        for phone in phones {
            tally.check((heard[phone.rpi] ?? 0) > 0, "radio: a phone's beacon was never heard")
        }
        let rotated = payload(0x32)
        radio.broadcast(rotated, address: BDAddress(rawValue: 0x4B_66_77_88_99_AA))
        loop.run(for: .seconds(2))
        let history = controller.advertisingHistory.map { $0.data }
        tally.check(radio.isOnAir && history.last == rotated.encoded(),
                    "radio: the rotated payload is not the one on air")
        radio.stop()
        air.removeAll()
        return tally
    }

    private static func payload(_ fill: UInt8) -> AdvertisingPayload {
        AdvertisingPayload(rpi: Bytes16([UInt8](repeating: fill, count: 16))!, aem: AssociatedEncryptedMetadata(word: 0x5008_0000))
    }
}
