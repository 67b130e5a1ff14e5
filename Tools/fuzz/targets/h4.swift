// The H4 deframer (Sources/HCI/H4): what a UART or TCP controller link hands it is untrusted bytes in any
// chunking. Checked for every input, with the default payload limit and with a small one:
// - the packets and counters do not depend on how the stream is cut into reads (one read, random pieces,
//   byte by byte for short streams, slices that do not start at index 0);
// - every packet is a complete, well-formed one: its header's length is its payload, within the limit;
// - every byte is accounted for: in a packet, discarded, or held as the current partial packet, and what is
//   held never exceeds one header plus the limit;
// - the delivered packets, encoded again, deframe to themselves with nothing discarded;
// - after reset() the deframer is a fresh one.
@testable import HCI
import ENCore

func fuzzSetUp() {}

private struct Run: Equatable {
    var packets: [H4Packet] = []
    var discarded = 0
    var oversized = 0
    var delivered = 0
    var buffered = 0
    var betweenPackets = true
}

/// Feeds `stream` cut at `cuts` (ascending offsets) and checks the bounds after every read.
private func deframe(_ stream: [UInt8], limit: Int, cuts: [Int]) -> Run {
    var deframer = H4Deframer(maximumPayloadLength: limit)
    var run = Run()
    var start = 0
    for end in cuts + [stream.count] where end >= start {
        deframer.feed(stream[start..<end]) { run.packets.append($0) }
        start = end
        let held = deframer.bufferedByteCount
        invariant(held <= 4 + deframer.maximumPayloadLength, "holds \(held) bytes, limit \(deframer.maximumPayloadLength)")
    }
    run.discarded = deframer.discardedByteCount
    run.oversized = deframer.oversizedPacketCount
    run.delivered = deframer.packetCount
    run.buffered = deframer.bufferedByteCount
    run.betweenPackets = deframer.isBetweenPackets
    return run
}

/// `thorough`: also byte by byte, re-encoded and reset (the default limit); the small limit checks the rest.
private func check(_ stream: [UInt8], limit: Int, thorough: Bool, random: inout InputRandom) {
    let whole = deframe(stream, limit: limit, cuts: [])
    let effectiveLimit = max(255, limit)
    invariant(whole.delivered == whole.packets.count, "packetCount \(whole.delivered), delivered \(whole.packets.count)")

    var accounted = whole.discarded
    for packet in whole.packets {
        let bytes = packet.bytes
        let header = packet.type.headerLength
        invariant(bytes.count >= header, "\(packet.type) packet of \(bytes.count) bytes, shorter than its header")
        let declared = packet.type.payloadLength(header: bytes[0..<header])
        invariant(declared == bytes.count - header, "\(packet.type) header says \(declared), payload is \(bytes.count - header)")
        invariant(declared <= effectiveLimit, "\(packet.type) payload \(declared) over the limit \(effectiveLimit)")
        accounted += 1 + bytes.count
    }
    // Between packets everything is accounted for; inside one, its indicator and buffered bytes are not yet
    // (and, while an oversized packet is skipped, everything already is).
    let unaccounted = stream.count - accounted
    if whole.betweenPackets {
        invariant(unaccounted == 0, "\(unaccounted) bytes unaccounted for between packets")
    } else {
        invariant(unaccounted == 0 || unaccounted == 1 + whole.buffered,
                  "\(unaccounted) bytes unaccounted for, \(whole.buffered) buffered")
    }

    // Random read sizes, and every byte on its own.
    var cuts: [Int] = []
    var offset = 0
    while offset < stream.count {
        offset += 1 + random.below(random.below(4) == 0 ? 300 : 8)
        if offset < stream.count { cuts.append(offset) }
    }
    invariant(deframe(stream, limit: limit, cuts: cuts) == whole, "random reads disagree with one read")
    guard thorough else { return }
    if stream.count <= 64 {
        invariant(deframe(stream, limit: limit, cuts: Array(0..<stream.count)) == whole, "byte-by-byte disagrees")
    }

    // What it delivered is a clean stream.
    let again = deframe(whole.packets.flatMap { $0.encoded() }, limit: limit, cuts: [])
    invariant(again.packets == whole.packets && again.discarded == 0 && again.oversized == 0 && again.betweenPackets,
              "re-encoded packets do not deframe to themselves")

    // reset() mid-stream leaves a fresh deframer.
    if !stream.isEmpty {
        let cut = random.below(stream.count)
        var deframer = H4Deframer(maximumPayloadLength: limit)
        _ = deframer.feed(stream[..<cut])
        deframer.reset()
        invariant(deframer.isBetweenPackets && deframer.bufferedByteCount == 0, "reset left a partial packet")
        let rest = deframer.feed(stream[cut...])
        var fresh = H4Deframer(maximumPayloadLength: limit)
        invariant(rest == fresh.feed(stream[cut...]), "after reset() the deframer differs from a fresh one")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let stream = inputBytes(data, size)
    var random = InputRandom(stream)
    check(stream, limit: H4Deframer.defaultMaximumPayloadLength, thorough: true, random: &random)
    // A small limit, so that small inputs reach the oversized-packet path too (below 255 it is raised to 255).
    check(stream, limit: 200 + random.below(120), thorough: false, random: &random)
    return 0
}

// MARK: Seeds

private let address = BDAddress(rawValue: 0x5A_11_22_33_44_55)
private let gaenData = AdvertisingPayload(rpi: Bytes16(Array(0..<16))!, aem: AssociatedEncryptedMetadata(word: 0x4000_0000))
    .encoded()

private func event(_ e: HCIEvent) -> [UInt8] { H4Packet(e).encoded() }

private func complete<C: HCICommand>(_ command: C.Type, _ result: C.ReturnParameters) -> [UInt8] {
    event(.commandComplete(CommandComplete(answering: command, with: result)))
}

func fuzzSeeds() -> [Seed] {
    // What a controller and the driver exchange at start, as the driver's encoders and the virtual
    // controller's answers write it.
    let startUp: [UInt8] = H4Packet(ResetCommand()).encoded()
        + complete(ResetCommand.self, StatusReturn(status: .success))
        + H4Packet(ReadLocalVersionInformationCommand()).encoded()
        + complete(ReadLocalVersionInformationCommand.self, LocalVersionReturn(
            hciVersion: 0x0B, hciRevision: 0x1234, lmpVersion: 0x0B, manufacturer: 0x005F, lmpSubversion: 0x2001))
        + H4Packet(ReadBDAddrCommand()).encoded()
        + complete(ReadBDAddrCommand.self, BDAddrReturn(address: address))
        + H4Packet(LESetRandomAddressCommand(address: address)).encoded()
        + event(.commandStatus(CommandStatus(status: .unknownCommand, opcode: Opcode(rawValue: 0x2041))))
        + H4Packet(LESetAdvertisingDataCommand(data: gaenData)).encoded()
        + H4Packet(LESetScanEnableCommand(isEnabled: true)).encoded()
    let legacy = LEAdvertisingReport.Report(eventType: .nonConnectableUndirected, addressType: .random, address: address,
                                            data: gaenData, rssi: -60)
    let extended = LEExtendedAdvertisingReport.Report(eventType: .legacyNonConnectable, addressType: .random,
                                                      address: address, rssi: -71, data: gaenData)
    let reports = event(.leAdvertisingReport(LEAdvertisingReport(reports: [legacy])))
        + event(.leExtendedAdvertisingReport(LEExtendedAdvertisingReport(reports: [extended, extended])))
        + event(.hardwareError(code: 3))
    // One packet of every type, a two-byte ACL length, an empty ACL payload, ISO's 14-bit length.
    let everyType: [UInt8] = H4Packet.acl([0x40, 0x20, 0x05, 0x00, 1, 2, 3, 4, 5]).encoded()
        + H4Packet.sco([0x01, 0x00, 0x03, 0xAA, 0xBB, 0xCC]).encoded()
        + H4Packet.iso([0x02, 0x60, 0x02, 0x00, 0xDE, 0xAD]).encoded()
        + H4Packet.acl([0x40, 0x20, 0x00, 0x00]).encoded()
        + event(.unknown(code: 0xFF, subevent: nil, parameters: []))
    // An ACL packet declaring 330 bytes (over the small limit) before a report; noise before a packet.
    let oversized: [UInt8] = [0x02, 0x40, 0x20, 0x4A, 0x01] + [UInt8](repeating: 0xA5, count: 330) + reports
    let noisy: [UInt8] = [0x00, 0xFF, 0x7E, 0x06] + reports + [0x04, 0x3E]
    return [
        Seed("startup", startUp), Seed("reports", reports), Seed("every-type", everyType),
        Seed("oversized-acl", oversized), Seed("noise-and-partial", noisy),
    ]
}
