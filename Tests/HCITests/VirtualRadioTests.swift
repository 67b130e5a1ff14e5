import ENCore
import EventLoop
import HCI
import Testing

/// A GAEN advertisement as the agent would build it (with an RPI and AEM of its own).
private let gaenPayload = AdvertisingPayload(
    rpi: Bytes16([0x8B, 0xE6, 0xCD, 0x37, 0x1C, 0x5C, 0x89, 0x16, 0x04, 0xBF, 0xBE, 0x49, 0xDF, 0x84, 0x50, 0x96])!,
    aem: AssociatedEncryptedMetadata([0x72, 0x03, 0x38, 0x74])!)

/// Two controllers on one radio, each behind a raw host: the smallest world with someone to hear.
private struct TwoControllerWorld {
    let loop = VirtualLoop()
    let radio: VirtualRadio
    let advertiser: VirtualTestHost
    let scanner: VirtualTestHost

    init(
        distance: Double = 2, seed: UInt64 = 7, style: VirtualReportStyle = .legacy,
        pathLoss: PathLossModel = PathLossModel()
    ) {
        radio = VirtualRadio(loop: loop, pathLoss: pathLoss, seed: seed)
        let advertisingController = makeVirtualController(loop: loop)
        let scanningController = VirtualController(
            loop: loop,
            configuration: VirtualControllerConfiguration(
                publicAddress: BDAddress(rawValue: 0x00_1B_DC_0A_0B_0D), reportStyle: style))
        radio.add(advertisingController, at: .origin)
        radio.add(scanningController, at: RadioPosition(x: distance, y: 0))
        advertiser = VirtualTestHost(advertisingController, loop: loop)
        scanner = VirtualTestHost(scanningController, loop: loop)
    }
}

@Suite("Virtual radio")
struct VirtualRadioTests {
    @Test("a scanning controller receives the advertiser's GAEN payload exactly, as ADV_NONCONN_IND from its NRPA")
    func receivesGAENPayload() throws {
        let world = TwoControllerWorld()
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenPayload.encoded())
        world.scanner.startScanning()
        world.loop.run(for: .seconds(10))

        let reports = world.scanner.reportEvents
        // 250 ms interval plus 0–10 ms delay: 38 to 40 events in 10 s.
        #expect((36...41).contains(reports.count))
        guard case .leAdvertisingReport(let first) = try #require(reports.first) else {
            Issue.record("expected a legacy report, got \(reports[0])")
            return
        }
        let report = try #require(first.reports.first)
        #expect(report.eventType == .nonConnectableUndirected)
        #expect(report.addressType == .random)
        #expect(report.address == virtualNRPA)
        #expect(report.data == gaenPayload.encoded())
        #expect(try AdvertisingPayload(decoding: report.data) == gaenPayload)
        // +8 dBm, 40 dB at 1 m, 6 dB more at 2 m: −38 dBm give or take the noise.
        #expect(world.scanner.advertisements.allSatisfy { (-45 ... -31).contains(Int($0.rssi ?? 0)) })
        #expect(world.advertiser.controller.violations.isEmpty)
        #expect(world.scanner.controller.violations.isEmpty)
        #expect(world.advertiser.reportEvents.isEmpty, "the advertiser is not scanning")
    }

    @Test("RSSI falls with distance, and a fixed seed reproduces every reading")
    func rssiFallsWithDistance() {
        /// Mean RSSI heard by scanners at 1, 5 and 25 m from one beacon, and every reading in order.
        func listen(seed: UInt64) -> (means: [Double], readings: [[Int8]]) {
            let loop = VirtualLoop()
            let radio = VirtualRadio(loop: loop, seed: seed)
            radio.addBeacon(address: virtualNRPA, data: gaenPayload.encoded(), at: .origin, txPower: 8)
            let hosts = [1.0, 5.0, 25.0].map { distance in
                let controller = radio.addController(
                    VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: UInt64(distance))),
                    at: RadioPosition(x: 0, y: distance))
                return VirtualTestHost(controller, loop: loop)
            }
            for host in hosts { host.startScanning() }
            loop.run(for: .seconds(20))
            let readings = hosts.map { $0.advertisements.compactMap(\.rssi) }
            let means = readings.map { values in Double(values.map(Int.init).reduce(0, +)) / Double(values.count) }
            return (means, readings)
        }

        let run = listen(seed: 42)
        #expect(run.readings.allSatisfy { $0.count > 70 })
        #expect(run.means[0] > run.means[1] && run.means[1] > run.means[2])
        // The model's means: −32, −46 and −60 dBm; averaging ~78 readings leaves well under 1 dB of noise.
        #expect(abs(run.means[0] - -32) < 1)
        #expect(abs(run.means[1] - -46) < 1)
        #expect(abs(run.means[2] - -60) < 1)
        #expect(Set(run.readings[0]).count > 1, "readings carry noise")

        #expect(listen(seed: 42).readings == run.readings)
        #expect(listen(seed: 43).readings != run.readings)
    }

    @Test("nothing is heard, and no advertising event simulated, while nobody scans")
    func nothingWithoutScanning() {
        let world = TwoControllerWorld()
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        world.loop.run(for: .seconds(60))
        #expect(world.radio.advertisingEventCount == 0)
        #expect(world.scanner.reportEvents.isEmpty)

        world.scanner.startScanning()
        world.loop.run(for: .seconds(1))
        #expect(world.radio.advertisingEventCount > 0)
        world.scanner.send(LESetScanEnableCommand(isEnabled: false))
        let events = world.radio.advertisingEventCount
        let reports = world.scanner.reportEvents.count
        world.loop.run(for: .seconds(60))
        #expect(world.radio.advertisingEventCount == events)
        #expect(world.scanner.reportEvents.count == reports)
    }

    @Test("without LE Meta in the event mask, or the subevent in the LE mask, no report reaches the host")
    func masksGateReports() {
        let world = TwoControllerWorld()
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        let scanner = world.scanner
        scanner.send(LESetScanParametersCommand(
            interval: BasebandSlots(rawValue: 0x0060), window: BasebandSlots(rawValue: 0x0060), ownAddressType: .random))

        // Power-on masks: no LE Meta bit.
        scanner.send(LESetScanEnableCommand(isEnabled: true))
        world.loop.run(for: .seconds(5))
        #expect(scanner.reportEvents.isEmpty)
        let maskedWithDefaults = scanner.controller.maskedEventCount
        #expect(maskedWithDefaults > 10)

        // LE Meta on, but the LE mask allows only extended reports while this controller sends legacy ones.
        scanner.send(SetEventMaskCommand(mask: EventMask.controllerDefault.union(.leMeta)))
        scanner.send(LESetEventMaskCommand(mask: [.extendedAdvertisingReport]))
        world.loop.run(for: .seconds(5))
        #expect(scanner.reportEvents.isEmpty)
        #expect(scanner.controller.maskedEventCount > maskedWithDefaults + 10)

        // Both masks right: reports flow.
        scanner.send(LESetEventMaskCommand(mask: [.advertisingReport]))
        world.loop.run(for: .seconds(5))
        #expect(scanner.reportEvents.count > 10)
    }

    @Test("an advertiser below the sensitivity floor is not heard")
    func outOfRange() {
        // +8 dBm − (40 + 20·log10(d)) < −100 dBm beyond about 2.5 km in free space.
        let world = TwoControllerWorld(distance: 5000)
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        world.scanner.startScanning()
        world.loop.run(for: .seconds(10))
        #expect(world.radio.advertisingEventCount > 30)
        #expect(world.radio.receptionCount == 0)
        #expect(world.scanner.reportEvents.isEmpty)

        // Walking closer brings the signal back.
        world.scanner.controller.position = RadioPosition(x: 30, y: 40)
        world.loop.run(for: .seconds(10))
        #expect(world.scanner.reportEvents.count > 30)
        #expect(world.scanner.advertisements.allSatisfy { (-75 ... -61).contains(Int($0.rssi ?? 0)) })
    }

    @Test("the Bumble report style sends each advertisement twice as extended reports")
    func extendedReportsLikeBumble() throws {
        let world = TwoControllerWorld(style: .extendedLikeBumble)
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenPayload.encoded())
        world.scanner.startScanning()
        world.loop.run(for: .seconds(10))

        let events = world.scanner.reportEvents
        #expect(events.count == 2 * world.radio.receptionCount)
        #expect(events.allSatisfy { $0.subevent == LEExtendedAdvertisingReport.subeventCode })
        let reports = events.compactMap { event -> LEExtendedAdvertisingReport.Report? in
            if case .leExtendedAdvertisingReport(let report) = event { return report.reports.first }
            return nil
        }
        #expect(reports.count == events.count)
        #expect(reports.map(\.eventType.rawValue).prefix(4) == [0x0001, 0x0008, 0x0001, 0x0008])
        #expect(reports.allSatisfy { $0.data == gaenPayload.encoded() && $0.address == virtualNRPA })
        #expect(world.scanner.advertisements.filter(\.isScanResponse).count == events.count / 2)
        // Pairs carry the same reading: one advertisement, reported twice.
        #expect(stride(from: 0, to: reports.count, by: 2).allSatisfy { reports[$0].rssi == reports[$0 + 1].rssi })
    }

    @Test("a controller that advertises and scans at once does not hear itself")
    func doesNotHearItself() {
        let loop = VirtualLoop()
        let radio = VirtualRadio(loop: loop, seed: 1)
        let host = VirtualTestHost(
            radio.addController(VirtualControllerConfiguration(publicAddress: virtualPublicAddress), at: .origin),
            loop: loop)
        host.startAdvertising(address: virtualNRPA, data: gaenData)
        host.startScanning()
        loop.run(for: .seconds(10))
        #expect(radio.advertisingEventCount > 30)
        #expect(host.reportEvents.isEmpty)
    }

    @Test("a beacon's address and payload can change, and it can stop or leave")
    func beaconChanges() {
        let loop = VirtualLoop()
        let radio = VirtualRadio(loop: loop, seed: 3)
        let phone = radio.addBeacon(address: virtualNRPA, data: gaenData, at: RadioPosition(x: 1, y: 1))
        let host = VirtualTestHost(
            radio.addController(VirtualControllerConfiguration(publicAddress: virtualPublicAddress), at: .origin),
            loop: loop)
        host.startScanning()
        loop.run(for: .seconds(2))

        let rotated = BDAddress(rawValue: 0x2A_2B_2C_2D_2E_2F)
        phone.address = rotated
        phone.data = gaenDataWithoutFlags
        loop.run(for: .seconds(2))
        let heard = host.advertisements
        let before = heard.filter { $0.address == virtualNRPA }
        let after = heard.filter { $0.address == rotated }
        #expect(!before.isEmpty && !after.isEmpty)
        #expect(before.allSatisfy { $0.data == gaenData })
        #expect(after.allSatisfy { $0.data == gaenDataWithoutFlags })
        #expect(heard.allSatisfy { $0.addressType == .random })

        phone.isAdvertising = false
        let count = host.advertisements.count
        loop.run(for: .seconds(2))
        #expect(host.advertisements.count == count)

        phone.isAdvertising = true
        radio.remove(phone)
        loop.run(for: .seconds(2))
        #expect(host.advertisements.count == count)
        #expect(radio.beacons.isEmpty)
    }

    @Test("duplicate filtering reports each advertiser once per scan")
    func duplicateFiltering() {
        let world = TwoControllerWorld()
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        world.scanner.startScanning(filterDuplicates: true)
        world.loop.run(for: .seconds(5))
        #expect(world.scanner.reportEvents.count == 1)

        // Enabling again starts a new scan, with a fresh filter.
        world.scanner.send(LESetScanEnableCommand(isEnabled: true, filterDuplicates: true))
        world.loop.run(for: .seconds(5))
        #expect(world.scanner.reportEvents.count == 2)
    }

    @Test("a scan window shorter than the interval hears proportionally less")
    func scanWindowDutyCycle() {
        let full = TwoControllerWorld()
        full.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        full.scanner.startScanning(window: BasebandSlots(rawValue: 0x0060))
        full.loop.run(for: .seconds(60))

        let quarter = TwoControllerWorld()
        quarter.advertiser.startAdvertising(address: virtualNRPA, data: gaenData)
        quarter.scanner.startScanning(window: BasebandSlots(rawValue: 0x0018))
        quarter.loop.run(for: .seconds(60))

        let ratio = Double(quarter.scanner.reportEvents.count) / Double(full.scanner.reportEvents.count)
        #expect((0.15...0.35).contains(ratio), "ratio \(ratio)")
    }

    @Test("an hour of advertising with a 4 s scan every 4 minutes costs a few hundred loop steps")
    func idleAdvertisersAreNotTicked() {
        let world = TwoControllerWorld()
        let loop = world.loop
        world.advertiser.startAdvertising(address: virtualNRPA, data: gaenPayload.encoded())
        world.scanner.send(SetEventMaskCommand(mask: EventMask.controllerDefault.union(.leMeta)))
        world.scanner.send(LESetEventMaskCommand(mask: [.advertisingReport]))
        world.scanner.send(LESetScanParametersCommand(
            interval: BasebandSlots(rawValue: 0x0060), window: BasebandSlots(rawValue: 0x0060), ownAddressType: .random))

        // The scan schedule runs on the loop like the agent's would: enable, 4 s later disable, and
        // again every 240 s. Commands go straight to the transport; answers arrive on the loop.
        let transport = world.scanner.transport
        func scanCycle() {
            transport.send(H4Packet(LESetScanEnableCommand(isEnabled: true)))
            loop.schedule(after: .seconds(4)) { transport.send(H4Packet(LESetScanEnableCommand(isEnabled: false))) }
            loop.schedule(after: .seconds(240)) { scanCycle() }
        }
        let stepsBefore = loop.steps
        loop.schedule(after: .seconds(10)) { scanCycle() }
        loop.run(for: .seconds(3600))
        let steps = loop.steps - stepsBefore

        // 15 scans × ~16 advertising events heard, plus 4 steps per cycle for the schedule and commands.
        // Ticking the advertiser all hour would cost 3600 s / 255 ms ≈ 14,000 steps on its own.
        #expect(steps < 400, "\(steps) steps")
        #expect(world.radio.advertisingEventCount < 300)
        let reports = world.scanner.reportEvents.count
        #expect((15 * 14...15 * 17).contains(reports), "\(reports) reports")
        #expect(world.scanner.controller.violations.isEmpty)
        #expect(world.scanner.controller.flowControlOverrunCount == 0)
    }
}
