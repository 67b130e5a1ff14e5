import HCI
import Testing

/// An event packet (without H4 indicator) that claims to be a known event but is broken, and the
/// error that names the fault.
struct MalformedEvent: Sendable, CustomTestStringConvertible {
    let name: String
    let packet: [UInt8]
    let error: HCIDecodeError

    init(_ name: String, _ packet: String, _ error: HCIDecodeError) {
        self.name = name
        self.packet = bytes(packet)
        self.error = error
    }

    init(_ name: String, _ packet: [UInt8], _ error: HCIDecodeError) {
        self.name = name
        self.packet = packet
        self.error = error
    }

    var testDescription: String { name }
}

private let a = advertiserWire
/// The 23 fixed bytes of an extended report before Data_Length: legacy ADV_NONCONN_IND, random address,
/// 1M, no secondary PHY, no ADI, Tx power unknown, RSSI −50, no periodic interval, no direct address.
private let extendedFixed = "10 00 01 \(a) 01 00 FF 7F CE 00 00 00 00 00 00 00 00 00"

let malformedEvents: [MalformedEvent] = [
    // Headers.
    MalformedEvent("empty packet", "", .truncated(needed: 1, available: 0)),
    MalformedEvent("event code without length", "0E", .truncated(needed: 1, available: 0)),
    MalformedEvent("vendor event code without length", "FF", .truncated(needed: 1, available: 0)),
    MalformedEvent("length says 4, 3 follow", "0E 04 01 03 0C", .lengthMismatch(declared: 4, actual: 3)),
    MalformedEvent("length says 3, 4 follow", "0E 03 01 03 0C 00", .lengthMismatch(declared: 3, actual: 4)),
    MalformedEvent("LE Meta length 255, 3 follow", "3E FF 02 01 03", .lengthMismatch(declared: 255, actual: 3)),
    MalformedEvent("unknown event, length says 4, 3 follow", "05 04 00 40 00", .lengthMismatch(declared: 4, actual: 3)),
    MalformedEvent("unknown LE subevent, length says 5, 2 follow", "3E 05 01 00", .lengthMismatch(declared: 5, actual: 2)),
    MalformedEvent(
        "extended report one byte short of its length",
        Array(bytes("3E 39 0D 01 \(extendedFixed) 1F") + gaenData.dropLast()), .lengthMismatch(declared: 57, actual: 56)),

    // Command Complete, Command Status, Hardware Error.
    MalformedEvent("Command Complete without parameters", "0E 00", .truncated(needed: 1, available: 0)),
    MalformedEvent("Command Complete with half an opcode", "0E 02 01 03", .truncated(needed: 2, available: 1)),
    MalformedEvent("Command Status without parameters", "0F 00", .truncated(needed: 1, available: 0)),
    MalformedEvent("Command Status with 3 parameters", "0F 03 00 01 03", .truncated(needed: 2, available: 1)),
    MalformedEvent("Command Status with 5 parameters", "0F 05 00 01 03 0C 00", .trailingBytes(1)),
    MalformedEvent("Hardware Error without code", "10 00", .truncated(needed: 1, available: 0)),
    MalformedEvent("Hardware Error with 2 bytes", "10 02 03 04", .trailingBytes(1)),
    MalformedEvent("LE Meta without subevent", "3E 00", .truncated(needed: 1, available: 0)),

    // LE Advertising Report.
    MalformedEvent("advertising report without count", "3E 01 02", .truncated(needed: 1, available: 0)),
    MalformedEvent("advertising report count 0", "3E 02 02 00", .noReports),
    MalformedEvent("advertising report count 0 followed by a report", "3E 0C 02 00 03 01 \(a) 00 C4", .noReports),
    MalformedEvent("advertising report count 1, no report", "3E 02 02 01", .reportCountOverrun(count: 1, available: 0)),
    MalformedEvent(
        "advertising report count 255, one report", "3E 0C 02 FF 03 01 \(a) 00 C4",
        .reportCountOverrun(count: 255, available: 10)),
    MalformedEvent(
        "advertising report count 2, one report", "3E 0C 02 02 03 01 \(a) 00 C4", .reportCountOverrun(count: 2, available: 10)),
    MalformedEvent(
        "advertising report: second report cut inside its address",
        "3E 16 02 02 03 01 \(a) 05 D1 D2 D3 D4 D5 C4 03 01 B1 B2 B3", .truncated(needed: 6, available: 3)),
    MalformedEvent(
        "advertising report: data length 31, 5 bytes follow", "3E 10 02 01 03 01 \(a) 1F D1 D2 D3 D4 D5",
        .dataLengthOverrun(declared: 31, available: 5)),
    MalformedEvent(
        "advertising report: second report's data overruns", "3E 17 02 02 03 01 \(a) 00 C4 03 01 \(a) 05 AA BB",
        .dataLengthOverrun(declared: 5, available: 2)),
    MalformedEvent(
        "advertising report: data length 32",
        bytes("3E 2C 02 01 03 01 \(a) 20") + [UInt8](repeating: 0xAB, count: 32) + bytes("C4"),
        .invalidValue(field: "Data_Length", value: 32)),
    MalformedEvent(
        "advertising report: data length 255", "3E 14 02 01 03 01 \(a) FF 01 02 03 04 05 06 07 08 09",
        .invalidValue(field: "Data_Length", value: 255)),
    MalformedEvent(
        "advertising report without RSSI", "3E 0D 02 01 03 01 \(a) 02 AA BB", .truncated(needed: 1, available: 0)),
    MalformedEvent(
        "advertising report: event type 5", "3E 0C 02 01 05 01 \(a) 00 C4", .invalidValue(field: "Event_Type", value: 5)),
    MalformedEvent(
        "advertising report: address type 4", "3E 0C 02 01 03 04 \(a) 00 C4", .invalidValue(field: "Address_Type", value: 4)),
    MalformedEvent(
        "advertising report: anonymous address type", "3E 0C 02 01 03 FF \(a) 00 C4",
        .invalidValue(field: "Address_Type", value: 0xFF)),
    MalformedEvent("advertising report with a trailing byte", "3E 0D 02 01 03 01 \(a) 00 C4 00", .trailingBytes(1)),

    // LE Extended Advertising Report.
    MalformedEvent("extended report without count", "3E 01 0D", .truncated(needed: 1, available: 0)),
    MalformedEvent("extended report count 0", "3E 02 0D 00", .noReports),
    MalformedEvent(
        "extended report with 10 bytes of a report", "3E 0C 0D 01 10 00 01 \(a) 01", .reportCountOverrun(count: 1, available: 10)),
    MalformedEvent(
        "extended report without Data_Length", "3E 19 0D 01 \(extendedFixed)", .reportCountOverrun(count: 1, available: 23)),
    MalformedEvent(
        "extended report count 2, one report", "3E 1A 0D 02 \(extendedFixed) 00", .reportCountOverrun(count: 2, available: 24)),
    MalformedEvent(
        "extended report count 255, one report", "3E 1A 0D FF \(extendedFixed) 00", .reportCountOverrun(count: 255, available: 24)),
    MalformedEvent(
        "extended report: data length 31, 3 bytes follow", "3E 1D 0D 01 \(extendedFixed) 1F AA BB CC",
        .dataLengthOverrun(declared: 31, available: 3)),
    MalformedEvent(
        "extended report: second report cut inside its address",
        bytes("3E 37 0D 02 \(extendedFixed) 18") + [UInt8](repeating: 0xAB, count: 24) + bytes("10 00 01 B1 B2"),
        .truncated(needed: 6, available: 2)),
    MalformedEvent(
        "extended report: address type 5", "3E 1A 0D 01 10 00 05 \(a) 01 00 FF 7F CE 00 00 00 00 00 00 00 00 00 00",
        .invalidValue(field: "Address_Type", value: 5)),
    MalformedEvent("extended report with trailing bytes", "3E 1C 0D 01 \(extendedFixed) 00 EE EE", .trailingBytes(2)),
]

/// The events whose layout the decoder fully checks: every strict prefix of their parameters must fail.
private let strictVectors = eventVectors.filter { vector in
    switch vector.event {
    case .commandStatus, .hardwareError, .leAdvertisingReport, .leExtendedAdvertisingReport: true
    case .commandComplete, .unknown: false
    }
}

@Suite struct MalformedEventTests {
    @Test func tableHoldsAtLeastThirtyShapes() {
        #expect(malformedEvents.count >= 30)
        #expect(Set(malformedEvents.map(\.name)).count == malformedEvents.count, "shape names must be unique")
    }

    @Test(arguments: malformedEvents)
    func isRejected(_ shape: MalformedEvent) {
        #expect(throws: shape.error) { try HCIEvent(decoding: shape.packet) }
    }

    @Test(arguments: strictVectors)
    func everyTruncationOfAStrictEventIsRejected(_ vector: EventVector) {
        let packet = vector.packet
        for kept in 0..<(packet.count - 2) {
            // Header length rewritten to match, so the fault is in the parameters, not the framing.
            var truncated = Array(packet.prefix(2 + kept))
            truncated[1] = UInt8(kept)
            #expect(throws: HCIDecodeError.self, "kept \(kept) parameter bytes") { try HCIEvent(decoding: truncated) }
            // And as it arrives when the header still claims the full length.
            #expect(throws: HCIDecodeError.self) { try HCIEvent(decoding: Array(packet.prefix(2 + kept))) }
        }
    }

    @Test func truncatedReturnParametersAreRejected() throws {
        let cases: [(CommandComplete, (CommandComplete) throws -> Void)] = [
            (CommandComplete(opcode: ReadLocalVersionInformationCommand.opcode, returnParameters: bytes("00 0B 00 01 0B 0F 00 06")),
             { _ = try $0.returnParameters(for: ReadLocalVersionInformationCommand.self) }),
            (CommandComplete(opcode: ReadBDAddrCommand.opcode, returnParameters: bytes("00 66 55 44 33 22 11 00")),
             { _ = try $0.returnParameters(for: ReadBDAddrCommand.self) }),
            (CommandComplete(opcode: ReadBDAddrCommand.opcode, returnParameters: bytes("0C")),
             { _ = try $0.returnParameters(for: ReadBDAddrCommand.self) }),
            (CommandComplete(opcode: LEReadBufferSizeCommand.opcode, returnParameters: bytes("00 FB 00")),
             { _ = try $0.returnParameters(for: LEReadBufferSizeCommand.self) }),
            (CommandComplete(opcode: LEReadLocalSupportedFeaturesCommand.opcode, returnParameters: bytes("00 01 00 00 00 00 00 00")),
             { _ = try $0.returnParameters(for: LEReadLocalSupportedFeaturesCommand.self) }),
            (CommandComplete(opcode: LEReadAdvertisingPhysicalChannelTxPowerCommand.opcode, returnParameters: bytes("00")),
             { _ = try $0.returnParameters(for: LEReadAdvertisingPhysicalChannelTxPowerCommand.self) }),
            (CommandComplete(opcode: ResetCommand.opcode, returnParameters: []),
             { _ = try $0.returnParameters(for: ResetCommand.self) }),
            (CommandComplete(opcode: ResetCommand.opcode, returnParameters: bytes("00 00")),
             { _ = try $0.returnParameters(for: ResetCommand.self) }),
            (CommandComplete(opcode: ResetCommand.opcode, returnParameters: bytes("00")),
             { _ = try $0.returnParameters(for: ReadBDAddrCommand.self) }),
        ]
        for (complete, decode) in cases {
            #expect(throws: HCIDecodeError.self, "\(complete)") { try decode(complete) }
        }
    }

    /// Random bytes, mostly shaped like the events the decoder knows, must never crash it; whatever it
    /// accepts must encode back to exactly the same bytes.
    @Test func randomBytesNeverCrashAndAcceptedEventsRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x0BAD_C0DE)
        let codes: [UInt8] = [0x0E, 0x0F, 0x10, 0x3E, 0x3E, 0x3E, 0x05, 0xFF]
        let subevents: [UInt8] = [0x02, 0x0D, 0x01]
        var accepted = 0
        for _ in 0..<50_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var packet = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if packet.count >= 2, Bool.random(using: &generator) {
                // Mostly well-framed, so the parameter decoders rather than the header check get exercised.
                packet[0] = codes.randomElement(using: &generator) ?? 0x3E
                packet[1] = UInt8(packet.count - 2)
                if packet[0] == 0x3E, packet.count >= 3 {
                    packet[2] = subevents.randomElement(using: &generator) ?? 0x02
                    if packet.count >= 4 { packet[3] = UInt8.random(in: 0...3, using: &generator) }
                }
            }
            if let event = try? HCIEvent(decoding: packet) {
                accepted += 1
                #expect(event.encoded() == packet, "\(spacedHex(packet))")
            }
        }
        #expect(accepted > 1_000)
    }

    /// Every single-byte corruption of every vector either fails to decode or round-trips.
    @Test(arguments: eventVectors)
    func corruptedBytesNeverCrash(_ vector: EventVector) {
        let packet = vector.packet
        for index in packet.indices {
            for value: UInt8 in [0x00, 0x01, 0x02, 0x1F, 0x20, 0x7F, 0x80, 0xFE, 0xFF] {
                var corrupted = packet
                corrupted[index] = value
                if let event = try? HCIEvent(decoding: corrupted) {
                    #expect(event.encoded() == corrupted)
                }
            }
        }
    }
}
