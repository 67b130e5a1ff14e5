import HCI
import Testing

/// An event packet as the Core specification lays it out (H4 indicator 0x04 included), and the value it is.
struct EventVector: Sendable, CustomTestStringConvertible {
    let name: String
    let wire: [UInt8]
    let event: HCIEvent

    var testDescription: String { name }
    var packet: [UInt8] { Array(wire.dropFirst()) }
}

/// 1A:2B:3C:4D:5E:6F, a non-resolvable private address, and its wire form.
let advertiser = BDAddress(rawValue: 0x1A2B_3C4D_5E6F)
let advertiserWire = "6F 5E 4D 3C 2B 1A"

let gaenReport = LEAdvertisingReport.Report(
    eventType: .nonConnectableUndirected, addressType: .random, address: advertiser, data: gaenData, rssi: -60)

let eventVectors: [EventVector] = [
    EventVector(
        name: "Command Complete: Reset", wire: bytes("04 0E 04 01 03 0C 00"),
        event: .commandComplete(CommandComplete(answering: ResetCommand.self, with: StatusReturn(status: .success)))),
    EventVector(
        name: "Command Complete: LE Set Random Address refused while advertising", wire: bytes("04 0E 04 01 05 20 0C"),
        event: .commandComplete(
            CommandComplete(answering: LESetRandomAddressCommand.self, with: StatusReturn(status: .commandDisallowed)))),
    EventVector(
        name: "Command Complete: Read Local Version Information",
        wire: bytes("04 0E 0C 01 01 10 00 0B 00 01 0B 0F 00 06 41"),
        event: .commandComplete(
            CommandComplete(
                answering: ReadLocalVersionInformationCommand.self,
                with: LocalVersionReturn(
                    hciVersion: 0x0B, hciRevision: 0x0100, lmpVersion: 0x0B, manufacturer: 0x000F, lmpSubversion: 0x4106)))),
    EventVector(
        name: "Command Complete: Read BD_ADDR", wire: bytes("04 0E 0A 01 09 10 00 66 55 44 33 22 11"),
        event: .commandComplete(
            CommandComplete(answering: ReadBDAddrCommand.self, with: BDAddrReturn(address: BDAddress(rawValue: 0x1122_3344_5566))))),
    EventVector(
        name: "Command Complete: LE Read Buffer Size", wire: bytes("04 0E 07 01 02 20 00 FB 00 0F"),
        event: .commandComplete(
            CommandComplete(
                answering: LEReadBufferSizeCommand.self,
                with: LEBufferSizeReturn(aclDataPacketLength: 251, totalACLDataPackets: 15)))),
    EventVector(
        name: "Command Complete: LE Read Local Supported Features",
        wire: bytes("04 0E 0C 01 03 20 00 01 10 00 00 00 00 00 00"),
        event: .commandComplete(
            CommandComplete(
                answering: LEReadLocalSupportedFeaturesCommand.self,
                with: LESupportedFeaturesReturn(features: [.encryption, .extendedAdvertising])))),
    EventVector(
        name: "Command Complete: LE Read Advertising Physical Channel Tx Power (−10 dBm)",
        wire: bytes("04 0E 05 01 07 20 00 F6"),
        event: .commandComplete(
            CommandComplete(
                answering: LEReadAdvertisingPhysicalChannelTxPowerCommand.self, with: AdvertisingTxPowerReturn(txPower: -10)))),
    EventVector(
        name: "Command Complete: no operation, flow control only", wire: bytes("04 0E 03 05 00 00"),
        event: .commandComplete(CommandComplete(numCommandPackets: 5, opcode: .noOperation, returnParameters: []))),
    EventVector(
        name: "Command Status: unknown command", wire: bytes("04 0F 04 01 01 42 20"),
        event: .commandStatus(CommandStatus(status: .unknownCommand, numCommandPackets: 1, opcode: Opcode(rawValue: 0x2042)))),
    EventVector(name: "Hardware Error", wire: bytes("04 10 01 03"), event: .hardwareError(code: 0x03)),
    EventVector(
        name: "LE Advertising Report: one GAEN beacon",
        wire: bytes("04 3E 2B 02 01 03 01 \(advertiserWire) 1F") + gaenData + bytes("C4"),
        event: .leAdvertisingReport(LEAdvertisingReport(reports: [gaenReport]))),
    EventVector(
        name: "LE Advertising Report: beacon and empty scan response",
        wire: bytes("04 3E 25 02 02 03 01 \(advertiserWire) 0F") + Array(gaenData.prefix(15)) + bytes("C4")
            + bytes("04 00 66 55 44 33 22 11 00 7F"),
        event: .leAdvertisingReport(
            LEAdvertisingReport(reports: [
                LEAdvertisingReport.Report(
                    eventType: .nonConnectableUndirected, addressType: .random, address: advertiser,
                    data: Array(gaenData.prefix(15)), rssi: -60),
                LEAdvertisingReport.Report(
                    eventType: .scanResponse, addressType: .public, address: BDAddress(rawValue: 0x1122_3344_5566),
                    data: [], rssi: 127),
            ]))),
    EventVector(
        name: "LE Extended Advertising Report: legacy ADV_NONCONN_IND",
        wire: bytes("04 3E 39 0D 01 10 00 01 \(advertiserWire) 01 00 FF 7F CE 00 00 00 00 00 00 00 00 00 1F") + gaenData,
        event: .leExtendedAdvertisingReport(
            LEExtendedAdvertisingReport(reports: [
                LEExtendedAdvertisingReport.Report(
                    eventType: .legacyNonConnectable, addressType: .random, address: advertiser, rssi: -50, data: gaenData)
            ]))),
    EventVector(
        name: "LE Extended Advertising Report: Bumble's two reports (event types 0x0001 and 0x0009)",
        wire: bytes("04 3E 35 0D 02")
            + bytes("01 00 01 \(advertiserWire) 01 00 FF 7F CE 00 00 00 00 00 00 00 00 00 03 02 01 1A")
            + bytes("09 00 01 \(advertiserWire) 01 02 03 F8 CE 40 00 01 01 02 03 04 05 C6 00"),
        event: .leExtendedAdvertisingReport(
            LEExtendedAdvertisingReport(reports: [
                LEExtendedAdvertisingReport.Report(
                    eventType: ExtendedAdvertisingEventType(rawValue: 0x0001), addressType: .random, address: advertiser,
                    rssi: -50, data: bytes("02 01 1A")),
                LEExtendedAdvertisingReport.Report(
                    eventType: ExtendedAdvertisingEventType(rawValue: 0x0009), addressType: .random, address: advertiser,
                    primaryPHY: .le1M, secondaryPHY: .le2M, advertisingSID: 3, txPower: -8, rssi: -50,
                    periodicAdvertisingInterval: 0x0040, directAddressType: 1,
                    directAddress: BDAddress(rawValue: 0xC605_0403_0201), data: []),
            ]))),
    EventVector(
        name: "unknown: Disconnection Complete", wire: bytes("04 05 04 00 40 00 13"),
        event: .unknown(code: 0x05, subevent: nil, parameters: bytes("00 40 00 13"))),
    EventVector(
        name: "unknown: Number Of Completed Packets", wire: bytes("04 13 05 01 40 00 01 00"),
        event: .unknown(code: 0x13, subevent: nil, parameters: bytes("01 40 00 01 00"))),
    EventVector(
        name: "unknown: vendor event without parameters", wire: bytes("04 FF 00"),
        event: .unknown(code: 0xFF, subevent: nil, parameters: [])),
    EventVector(
        name: "unknown LE subevent: Connection Complete",
        wire: bytes("04 3E 13 01 00 40 00 01 01 \(advertiserWire) 18 00 00 00 48 00 00"),
        event: .unknown(
            code: 0x3E, subevent: 0x01, parameters: bytes("00 40 00 01 01 \(advertiserWire) 18 00 00 00 48 00 00"))),
    EventVector(
        name: "unknown LE subevent without parameters", wire: bytes("04 3E 01 7F"),
        event: .unknown(code: 0x3E, subevent: 0x7F, parameters: [])),
]

@Suite struct EventTests {
    @Test(arguments: eventVectors)
    func bytesToValueToBytes(_ vector: EventVector) throws {
        #expect(vector.wire.first == H4PacketType.event.rawValue)
        let event = try HCIEvent(decoding: vector.packet)
        #expect(event == vector.event)
        #expect(H4Packet(event).encoded() == vector.wire, "\(spacedHex(event.encoded()))")
    }

    @Test(arguments: eventVectors)
    func valueToBytesToValue(_ vector: EventVector) throws {
        let encoded = vector.event.encoded()
        #expect(encoded == vector.packet, "\(spacedHex(encoded))")
        #expect(try HCIEvent(decoding: encoded) == vector.event)
    }

    @Test func returnParametersDecodeByCommandType() throws {
        let version = try #require(try returnParameters(of: "0E 0C 01 01 10 00 0B 00 01 0B 0F 00 06 41"))
        let local = try version.returnParameters(for: ReadLocalVersionInformationCommand.self)
        #expect(local.status == .success)
        #expect(local.hciVersion == 0x0B && local.hciRevision == 0x0100 && local.lmpVersion == 0x0B)
        #expect(local.manufacturer == 0x000F && local.lmpSubversion == 0x4106)

        let address = try #require(try returnParameters(of: "0E 0A 01 09 10 00 66 55 44 33 22 11"))
        #expect(try address.returnParameters(for: ReadBDAddrCommand.self).address.description == "11:22:33:44:55:66")

        let buffers = try #require(try returnParameters(of: "0E 07 01 02 20 00 FB 00 0F"))
        let size = try buffers.returnParameters(for: LEReadBufferSizeCommand.self)
        #expect(size.aclDataPacketLength == 251 && size.totalACLDataPackets == 15)

        let features = try #require(try returnParameters(of: "0E 0C 01 03 20 00 01 10 00 00 00 00 00 00"))
        #expect(try features.returnParameters(for: LEReadLocalSupportedFeaturesCommand.self).features.contains(.extendedAdvertising))

        let power = try #require(try returnParameters(of: "0E 05 01 07 20 00 F6"))
        #expect(try power.returnParameters(for: LEReadAdvertisingPhysicalChannelTxPowerCommand.self).txPower == -10)

        let refused = try #require(try returnParameters(of: "0E 04 01 05 20 0C"))
        #expect(refused.status == .commandDisallowed)
        #expect(try refused.returnParameters(for: LESetRandomAddressCommand.self).status == .commandDisallowed)
        #expect(HCIStatus.commandDisallowed.description == "0x0c (Command Disallowed)")
    }

    private func returnParameters(of packet: String) throws -> CommandComplete? {
        guard case .commandComplete(let complete) = try HCIEvent(decoding: bytes(packet)) else { return nil }
        return complete
    }

    @Test func advertisementsReadTheSameFromLegacyAndExtendedReports() throws {
        let legacy = try HCIEvent(decoding: bytes("3E 2B 02 01 03 01 \(advertiserWire) 1F") + gaenData + bytes("CE"))
        let extended = try HCIEvent(
            decoding: bytes("3E 39 0D 01 10 00 01 \(advertiserWire) 01 00 FF 7F CE 00 00 00 00 00 00 00 00 00 1F") + gaenData)
        let expected = ReceivedAdvertisement(address: advertiser, addressType: .random, rssi: -50, data: gaenData)
        #expect(legacy.advertisements == [expected])
        #expect(extended.advertisements == [expected])
        #expect(HCIEvent.hardwareError(code: 1).advertisements.isEmpty)
    }

    @Test func advertisementsFlagScanResponsesTruncationAndMissingRSSI() throws {
        let legacy = try HCIEvent(decoding: bytes("3E 0C 02 01 04 00 66 55 44 33 22 11 00 7F"))
        #expect(legacy.advertisements.first?.isScanResponse == true)
        #expect(legacy.advertisements.first?.rssi == nil)

        // Event type 0x0048: scan response (bit 3), data status "incomplete, truncated" (bits 5–6 = 2).
        let extended = try HCIEvent(
            decoding: bytes("3E 1A 0D 01 48 00 01 \(advertiserWire) 01 00 FF 7F 7F 00 00 00 00 00 00 00 00 00 00"))
        let advertisement = try #require(extended.advertisements.first)
        #expect(advertisement.isScanResponse)
        #expect(!advertisement.isDataComplete)
        #expect(advertisement.rssi == nil)
    }

    @Test func unknownEventsReportTheirCodes() throws {
        let meta = try HCIEvent(decoding: bytes("3E 03 14 AA BB"))
        #expect(meta == .unknown(code: 0x3E, subevent: 0x14, parameters: bytes("AA BB")))
        #expect(meta.code == 0x3E && meta.subevent == 0x14)
        for code in UInt8.min...UInt8.max where ![0x0E, 0x0F, 0x10, 0x3E].contains(code) {
            let event = try HCIEvent(decoding: [code, 2, 0xAB, 0xCD])
            #expect(event == .unknown(code: code, subevent: nil, parameters: [0xAB, 0xCD]))
        }
        for subevent in UInt8.min...UInt8.max where ![0x02, 0x0D].contains(subevent) {
            let event = try HCIEvent(decoding: [0x3E, 1, subevent])
            #expect(event == .unknown(code: 0x3E, subevent: subevent, parameters: []))
        }
    }

    /// Transports hand the decoders slices of a larger read buffer, whose indices do not start at zero.
    @Test func decodesFromSlicesThatDoNotStartAtZero() throws {
        for vector in eventVectors {
            let buffer = bytes("AA BB CC") + vector.wire + bytes("DD")
            #expect(try HCIEvent(decoding: buffer[4..<(buffer.count - 1)]) == vector.event)
        }
        for vector in commandVectors {
            let buffer = bytes("AA BB CC") + vector.wire + bytes("DD")
            #expect(try HCICommandPacket(decoding: buffer[4..<(buffer.count - 1)]).decoded() == vector.command)
        }
    }

    @Test func reportEventsKnowWhetherReportsFit() throws {
        let full = LEAdvertisingReport.Report(
            eventType: .nonConnectableUndirected, addressType: .random, address: advertiser, data: gaenData, rssi: -60)
        #expect(LEAdvertisingReport.fits(Array(repeating: full, count: 6)))
        #expect(!LEAdvertisingReport.fits(Array(repeating: full, count: 7)))
        let biggest = LEExtendedAdvertisingReport.Report(
            eventType: .legacyNonConnectable, addressType: .random, address: advertiser, rssi: 0,
            data: [UInt8](repeating: 0xAB, count: LEExtendedAdvertisingReport.Report.maximumDataLength))
        #expect(LEExtendedAdvertisingReport.Report.maximumDataLength == 229)
        let event = HCIEvent.leExtendedAdvertisingReport(LEExtendedAdvertisingReport(reports: [biggest]))
        #expect(event.encoded().count == 2 + 255)
        #expect(try HCIEvent(decoding: event.encoded()) == event)
    }
}
