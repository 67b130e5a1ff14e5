import HCI
import Testing

/// A command packet as the Core specification lays it out (H4 indicator 0x01 included), and the value it is.
struct CommandVector: Sendable, CustomTestStringConvertible {
    let name: String
    let wire: [UInt8]
    let command: DecodedCommand

    var testDescription: String { name }

    /// The packet without the H4 indicator.
    var packet: [UInt8] { Array(wire.dropFirst()) }
}

let nrpa = BDAddress(rawValue: 0x3ABC_DEF0_1234)

let commandVectors: [CommandVector] = [
    CommandVector(name: "Reset", wire: bytes("01 03 0C 00"), command: .reset(ResetCommand())),
    CommandVector(
        name: "Set Event Mask (defaults + LE Meta)",
        wire: bytes("01 01 0C 08 FF FF FF FF FF 1F 00 20"),
        command: .setEventMask(SetEventMaskCommand(mask: EventMask.controllerDefault.union(.leMeta)))),
    CommandVector(
        name: "Read Local Version Information", wire: bytes("01 01 10 00"),
        command: .readLocalVersionInformation(ReadLocalVersionInformationCommand())),
    CommandVector(name: "Read BD_ADDR", wire: bytes("01 09 10 00"), command: .readBDAddr(ReadBDAddrCommand())),
    CommandVector(
        name: "LE Set Event Mask (advertising reports)",
        wire: bytes("01 01 20 08 02 10 00 00 00 00 00 00"),
        command: .leSetEventMask(LESetEventMaskCommand(mask: [.advertisingReport, .extendedAdvertisingReport]))),
    CommandVector(
        name: "LE Read Buffer Size", wire: bytes("01 02 20 00"), command: .leReadBufferSize(LEReadBufferSizeCommand())),
    CommandVector(
        name: "LE Read Local Supported Features", wire: bytes("01 03 20 00"),
        command: .leReadLocalSupportedFeatures(LEReadLocalSupportedFeaturesCommand())),
    CommandVector(
        name: "LE Set Random Address", wire: bytes("01 05 20 06 34 12 F0 DE BC 3A"),
        command: .leSetRandomAddress(LESetRandomAddressCommand(address: nrpa))),
    CommandVector(
        name: "LE Set Advertising Parameters (GAEN: 200–270 ms, ADV_NONCONN_IND, random)",
        wire: bytes("01 06 20 0F 40 01 B0 01 03 01 00 00 00 00 00 00 00 07 00"),
        command: .leSetAdvertisingParameters(
            LESetAdvertisingParametersCommand(
                intervalMin: BasebandSlots(milliseconds: 200), intervalMax: BasebandSlots(milliseconds: 270),
                type: .nonConnectableUndirected, ownAddressType: .random))),
    CommandVector(
        name: "LE Set Advertising Parameters (directed to a peer, channel 38, filtered)",
        wire: bytes("01 06 20 0F 20 00 00 40 04 00 01 66 55 44 33 22 C1 02 03"),
        command: .leSetAdvertisingParameters(
            LESetAdvertisingParametersCommand(
                intervalMin: BasebandSlots(rawValue: 0x0020), intervalMax: BasebandSlots(rawValue: 0x4000),
                type: .connectableDirectedLowDuty, ownAddressType: .public, peerAddressType: .random,
                peerAddress: BDAddress(rawValue: 0xC122_3344_5566), channelMap: .channel38, filterPolicy: .filterBoth))),
    CommandVector(
        name: "LE Set Advertising Parameters (high duty directed ignores intervals)",
        wire: bytes("01 06 20 0F 00 00 00 00 01 00 00 66 55 44 33 22 11 07 00"),
        command: .leSetAdvertisingParameters(
            LESetAdvertisingParametersCommand(
                intervalMin: BasebandSlots(rawValue: 0), intervalMax: BasebandSlots(rawValue: 0),
                type: .connectableDirectedHighDuty, ownAddressType: .public,
                peerAddress: BDAddress(rawValue: 0x1122_3344_5566)))),
    CommandVector(
        name: "LE Read Advertising Physical Channel Tx Power", wire: bytes("01 07 20 00"),
        command: .leReadAdvertisingPhysicalChannelTxPower(LEReadAdvertisingPhysicalChannelTxPowerCommand())),
    CommandVector(
        name: "LE Set Advertising Data (GAEN, 31 bytes)",
        wire: bytes("01 08 20 20 1F") + gaenData,
        command: .leSetAdvertisingData(LESetAdvertisingDataCommand(data: gaenData))),
    CommandVector(
        name: "LE Set Advertising Data (GAEN without Flags, zero padded)",
        wire: bytes("01 08 20 20 1C") + gaenDataWithoutFlags + bytes("00 00 00"),
        command: .leSetAdvertisingData(LESetAdvertisingDataCommand(data: gaenDataWithoutFlags))),
    CommandVector(
        name: "LE Set Advertising Data (empty)",
        wire: bytes("01 08 20 20 00") + [UInt8](repeating: 0, count: 31),
        command: .leSetAdvertisingData(LESetAdvertisingDataCommand(data: []))),
    CommandVector(
        name: "LE Set Advertising Enable (on)", wire: bytes("01 0A 20 01 01"),
        command: .leSetAdvertisingEnable(LESetAdvertisingEnableCommand(isEnabled: true))),
    CommandVector(
        name: "LE Set Advertising Enable (off)", wire: bytes("01 0A 20 01 00"),
        command: .leSetAdvertisingEnable(LESetAdvertisingEnableCommand(isEnabled: false))),
    CommandVector(
        name: "LE Set Scan Parameters (passive 60/30 ms, random)",
        wire: bytes("01 0B 20 07 00 60 00 30 00 01 00"),
        command: .leSetScanParameters(
            LESetScanParametersCommand(
                type: .passive, interval: BasebandSlots(milliseconds: 60), window: BasebandSlots(milliseconds: 30),
                ownAddressType: .random))),
    CommandVector(
        name: "LE Set Scan Parameters (active, filter accept list)",
        wire: bytes("01 0B 20 07 01 00 40 04 00 00 01"),
        command: .leSetScanParameters(
            LESetScanParametersCommand(
                type: .active, interval: BasebandSlots(rawValue: 0x4000), window: BasebandSlots(rawValue: 0x0004),
                ownAddressType: .public, filterPolicy: .filterAcceptListOnly))),
    CommandVector(
        name: "LE Set Scan Enable (on, duplicates kept)", wire: bytes("01 0C 20 02 01 00"),
        command: .leSetScanEnable(LESetScanEnableCommand(isEnabled: true, filterDuplicates: false))),
    CommandVector(
        name: "LE Set Scan Enable (off, filtering)", wire: bytes("01 0C 20 02 00 01"),
        command: .leSetScanEnable(LESetScanEnableCommand(isEnabled: false, filterDuplicates: true))),
    CommandVector(
        name: "unknown: LE Set Extended Scan Enable", wire: bytes("01 42 20 06 01 00 00 00 00 00"),
        command: .unknown(UnknownCommand(opcode: Opcode(rawValue: 0x2042), parameters: bytes("01 00 00 00 00 00")))),
    CommandVector(
        name: "unknown: vendor command without parameters", wire: bytes("01 01 FC 00"),
        command: .unknown(UnknownCommand(opcode: Opcode(ogf: 0x3F, ocf: 0x001), parameters: []))),
]

@Suite struct CommandTests {
    @Test(arguments: commandVectors)
    func bytesToValueToBytes(_ vector: CommandVector) throws {
        #expect(vector.wire.first == H4PacketType.command.rawValue)
        let packet = try HCICommandPacket(decoding: vector.packet)
        let decoded = try packet.decoded()
        #expect(decoded == vector.command)
        #expect(decoded.opcode == packet.opcode)
        #expect(H4Packet(decoded.packet).encoded() == vector.wire, "\(spacedHex(H4Packet(decoded.packet).encoded()))")
    }

    @Test(arguments: commandVectors)
    func valueToBytesToValue(_ vector: CommandVector) throws {
        let packet = vector.command.packet
        #expect(H4Packet(packet).encoded() == vector.wire)
        #expect(try HCICommandPacket(decoding: packet.encoded()).decoded() == vector.command)
    }

    @Test func typedCommandsEncodeThroughTheProtocol() throws {
        let command = LESetRandomAddressCommand(address: nrpa)
        #expect(H4Packet(command).encoded() == bytes("01 05 20 06 34 12 F0 DE BC 3A"))
        #expect(try LESetRandomAddressCommand(packet: command.encoded()) == command)
        #expect(LESetRandomAddressCommand.opcode.ogf == 0x08)
        #expect(LESetRandomAddressCommand.opcode.ocf == 0x0005)
        #expect(LESetRandomAddressCommand.opcode.description == "0x2005")
        #expect(LESetRandomAddressCommand.opcode.name == "LE Set Random Address")
    }

    @Test func opcodesMatchTheSpecification() {
        let expected: [(Opcode, UInt16)] = [
            (ResetCommand.opcode, 0x0C03), (SetEventMaskCommand.opcode, 0x0C01),
            (ReadLocalVersionInformationCommand.opcode, 0x1001), (ReadBDAddrCommand.opcode, 0x1009),
            (LESetEventMaskCommand.opcode, 0x2001), (LEReadBufferSizeCommand.opcode, 0x2002),
            (LEReadLocalSupportedFeaturesCommand.opcode, 0x2003), (LESetRandomAddressCommand.opcode, 0x2005),
            (LESetAdvertisingParametersCommand.opcode, 0x2006),
            (LEReadAdvertisingPhysicalChannelTxPowerCommand.opcode, 0x2007),
            (LESetAdvertisingDataCommand.opcode, 0x2008), (LESetAdvertisingEnableCommand.opcode, 0x200A),
            (LESetScanParametersCommand.opcode, 0x200B), (LESetScanEnableCommand.opcode, 0x200C),
        ]
        for (opcode, raw) in expected {
            #expect(opcode.rawValue == raw, "\(opcode.name ?? "?")")
            #expect(opcode.name != nil)
        }
        #expect(Opcode(rawValue: 0x2042).name == nil)
    }

    @Test func advertisingDataPaddingIsIgnoredOnDecode() throws {
        let wire = bytes("08 20 20 03 02 01 06") + [UInt8](repeating: 0xEE, count: 28)
        let command = try LESetAdvertisingDataCommand(packet: wire)
        #expect(command.data == bytes("02 01 06"))
    }

    @Test func decodingAsTheWrongCommandFails() {
        #expect(throws: HCIDecodeError.opcodeMismatch(expected: ResetCommand.opcode, actual: ReadBDAddrCommand.opcode)) {
            try ResetCommand(packet: bytes("09 10 00"))
        }
    }

    @Test func slotsConvertToAndFromMilliseconds() {
        #expect(BasebandSlots(milliseconds: 100).rawValue == 160)
        #expect(BasebandSlots(milliseconds: 270).rawValue == 432)
        #expect(BasebandSlots(rawValue: 100).description == "62.5 ms")
        #expect(BasebandSlots(milliseconds: -5).rawValue == 0)
        #expect(BasebandSlots(milliseconds: 1_000_000).rawValue == UInt16.max)
    }
}

/// Command parameters (packet without H4 indicator) a strict controller must refuse.
struct MalformedCommand: Sendable, CustomTestStringConvertible {
    let name: String
    let packet: [UInt8]
    let error: HCIDecodeError
    var testDescription: String { name }
}

let validAdvertisingParameters = "40 01 B0 01 03 01 00 00 00 00 00 00 00 07 00"

let malformedCommands: [MalformedCommand] = [
    MalformedCommand(name: "packet shorter than a header", packet: bytes("03 0C"), error: .truncated(needed: 1, available: 0)),
    MalformedCommand(name: "length longer than parameters", packet: bytes("03 0C 01"), error: .lengthMismatch(declared: 1, actual: 0)),
    MalformedCommand(name: "length shorter than parameters", packet: bytes("03 0C 00 00"), error: .lengthMismatch(declared: 0, actual: 1)),
    MalformedCommand(name: "Reset with a parameter", packet: bytes("03 0C 01 00"), error: .trailingBytes(1)),
    MalformedCommand(name: "Read BD_ADDR with parameters", packet: bytes("09 10 02 00 00"), error: .trailingBytes(2)),
    MalformedCommand(
        name: "Set Event Mask with 7 bytes", packet: bytes("01 0C 07 FF FF FF FF FF FF FF"),
        error: .truncated(needed: 8, available: 7)),
    MalformedCommand(
        name: "LE Set Event Mask with 9 bytes", packet: bytes("01 20 09 1F 00 00 00 00 00 00 00 00"),
        error: .trailingBytes(1)),
    MalformedCommand(
        name: "LE Set Random Address with 5 bytes", packet: bytes("05 20 05 01 02 03 04 05"),
        error: .truncated(needed: 6, available: 5)),
    MalformedCommand(
        name: "advertising parameters, 14 bytes", packet: bytes("06 20 0E 40 01 B0 01 03 01 00 00 00 00 00 00 00 07"),
        error: .truncated(needed: 1, available: 0)),
    MalformedCommand(
        name: "advertising type 5", packet: bytes("06 20 0F 40 01 B0 01 05 01 00 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Advertising_Type", value: 5)),
    MalformedCommand(
        name: "own address type 4", packet: bytes("06 20 0F 40 01 B0 01 03 04 00 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Own_Address_Type", value: 4)),
    MalformedCommand(
        name: "peer address type 2", packet: bytes("06 20 0F 40 01 B0 01 03 01 02 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Peer_Address_Type", value: 2)),
    MalformedCommand(
        name: "empty channel map", packet: bytes("06 20 0F 40 01 B0 01 03 01 00 00 00 00 00 00 00 00 00"),
        error: .invalidValue(field: "Advertising_Channel_Map", value: 0)),
    MalformedCommand(
        name: "reserved channel map bit", packet: bytes("06 20 0F 40 01 B0 01 03 01 00 00 00 00 00 00 00 0F 00"),
        error: .invalidValue(field: "Advertising_Channel_Map", value: 0x0F)),
    MalformedCommand(
        name: "advertising filter policy 4", packet: bytes("06 20 0F 40 01 B0 01 03 01 00 00 00 00 00 00 00 07 04"),
        error: .invalidValue(field: "Advertising_Filter_Policy", value: 4)),
    MalformedCommand(
        name: "advertising interval below 20 ms", packet: bytes("06 20 0F 1F 00 B0 01 03 01 00 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Advertising_Interval_Min", value: 0x1F)),
    MalformedCommand(
        name: "advertising interval above 10.24 s", packet: bytes("06 20 0F 40 01 01 40 03 01 00 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Advertising_Interval_Max", value: 0x4001)),
    MalformedCommand(
        name: "advertising interval min above max", packet: bytes("06 20 0F B0 01 40 01 03 01 00 00 00 00 00 00 00 07 00"),
        error: .invalidValue(field: "Advertising_Interval_Max", value: 0x0140)),
    MalformedCommand(
        name: "advertising data length 32", packet: bytes("08 20 20 20") + [UInt8](repeating: 0, count: 31),
        error: .invalidValue(field: "Advertising_Data_Length", value: 32)),
    MalformedCommand(
        name: "advertising data block of 30", packet: bytes("08 20 1F 03") + [UInt8](repeating: 0, count: 30),
        error: .truncated(needed: 31, available: 30)),
    MalformedCommand(
        name: "advertising data with only the significant bytes", packet: bytes("08 20 04 03 02 01 06"),
        error: .truncated(needed: 31, available: 3)),
    MalformedCommand(name: "advertising enable 2", packet: bytes("0A 20 01 02"), error: .invalidValue(field: "Advertising_Enable", value: 2)),
    MalformedCommand(name: "advertising enable empty", packet: bytes("0A 20 00"), error: .truncated(needed: 1, available: 0)),
    MalformedCommand(
        name: "scan type 2", packet: bytes("0B 20 07 02 60 00 30 00 01 00"), error: .invalidValue(field: "LE_Scan_Type", value: 2)),
    MalformedCommand(
        name: "scan interval 3", packet: bytes("0B 20 07 00 03 00 03 00 01 00"), error: .invalidValue(field: "LE_Scan_Interval", value: 3)),
    MalformedCommand(
        name: "scan interval above 10.24 s", packet: bytes("0B 20 07 00 01 40 30 00 01 00"),
        error: .invalidValue(field: "LE_Scan_Interval", value: 0x4001)),
    MalformedCommand(
        name: "scan window longer than interval", packet: bytes("0B 20 07 00 30 00 60 00 01 00"),
        error: .invalidValue(field: "LE_Scan_Window", value: 0x60)),
    MalformedCommand(
        name: "scan window 0", packet: bytes("0B 20 07 00 30 00 00 00 01 00"), error: .invalidValue(field: "LE_Scan_Window", value: 0)),
    MalformedCommand(
        name: "scan own address type 4", packet: bytes("0B 20 07 00 60 00 30 00 04 00"),
        error: .invalidValue(field: "Own_Address_Type", value: 4)),
    MalformedCommand(
        name: "scan filter policy 4", packet: bytes("0B 20 07 00 60 00 30 00 01 04"),
        error: .invalidValue(field: "Scanning_Filter_Policy", value: 4)),
    MalformedCommand(name: "scan enable 2", packet: bytes("0C 20 02 02 00"), error: .invalidValue(field: "LE_Scan_Enable", value: 2)),
    MalformedCommand(name: "filter duplicates 2", packet: bytes("0C 20 02 01 02"), error: .invalidValue(field: "Filter_Duplicates", value: 2)),
    MalformedCommand(name: "scan enable, 1 byte", packet: bytes("0C 20 01 01"), error: .truncated(needed: 1, available: 0)),
]

@Suite struct MalformedCommandTests {
    @Test(arguments: malformedCommands)
    func isRejected(_ shape: MalformedCommand) {
        #expect(throws: shape.error) {
            try HCICommandPacket(decoding: shape.packet).decoded()
        }
    }

    @Test func theValidBaselineDecodes() throws {
        let packet = bytes("06 20 0F " + validAdvertisingParameters)
        #expect(throws: Never.self) { try HCICommandPacket(decoding: packet).decoded() }
    }
}
