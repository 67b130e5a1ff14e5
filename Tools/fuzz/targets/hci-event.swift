// HCI event decoding (Sources/HCI/Packets/Events): every event packet a controller sends goes through
// `HCIEvent(decoding:)`, advertising reports through the shared report-list framing, Command Complete return
// parameters through each command's decoder, and the advertising data through `AdvertisingPayload`. Checked:
// - decoding never traps, and a decoded event encodes back to exactly the input (a slice that does not start
//   at index 0 decodes the same);
// - a report event holds 1 or more reports whose data fits its kind (legacy: 31 bytes, no anonymous
//   address), and its advertisements say what the reports say (127 dBm is "no RSSI");
// - return parameters that decode for a command re-encode to the same bytes, and only under its opcode;
// - a GAEN payload that decodes re-encodes (with and without flags) to one that decodes the same;
// - the same bytes read as a command packet (what the virtual controller decodes from the host) encode
//   back, and a decoded command survives its own encoding.
// Each input is tried as it is and with its length byte set to fit, so the decoders behind it are reached.
@testable import HCI
import ENCore

func fuzzSetUp() {}

private func checkReturn<C: HCICommand>(_ command: C.Type, _ complete: CommandComplete) {
    do {
        let decoded = try complete.returnParameters(for: command)
        invariant(complete.opcode == C.opcode, "\(C.self) return parameters decoded under opcode \(complete.opcode)")
        var bytes: [UInt8] = []
        decoded.encode(into: &bytes)
        invariant(bytes == complete.returnParameters, "\(C.self) return parameters re-encode differently")
        invariant(decoded.status == complete.status, "\(C.self) status differs from the event's")
    } catch {
        if complete.opcode != C.opcode {
            invariant(error == .opcodeMismatch(expected: C.opcode, actual: complete.opcode), "wrong error \(error)")
        }
        _ = error.description
    }
}

private func checkAdvertisement(_ ad: ReceivedAdvertisement, rssi: Int8, data: [UInt8]) {
    invariant(ad.data == data, "advertisement data differs from the report's")
    invariant(ad.rssi == (rssi == 127 ? nil : rssi), "RSSI \(rssi) became \(String(describing: ad.rssi))")
    guard let payload = try? AdvertisingPayload(decoding: ad.data) else { return }
    for flags in [true, false] {
        let encoded = payload.encoded(includingFlags: flags)
        invariant(encoded.count <= AdvertisingPayload.maxLength, "a payload encodes to \(encoded.count) bytes")
        invariant((try? AdvertisingPayload(decoding: encoded)) == payload, "a GAEN payload does not round-trip")
    }
}

private func checkEvent(_ packet: [UInt8]) {
    let event: HCIEvent
    do {
        event = try HCIEvent(decoding: packet)
    } catch {
        _ = error.description
        // A slice decodes as the array does, errors included.
        let shifted = ([0xA5] + packet)[1...]
        do { _ = try HCIEvent(decoding: shifted); invariant(false, "a slice decoded where the array did not") } catch {
            invariant(error == error, "")
        }
        return
    }
    invariant(event.encoded() == packet, "decoded event does not encode back to its bytes")
    invariant((try? HCIEvent(decoding: ([0xA5] + packet)[1...])) == event, "a slice decodes differently")
    invariant(H4Packet(event).encoded() == [0x04] + packet, "H4 framing of the event differs")
    invariant(event.code == packet[0], "code \(event.code), packet says \(packet[0])")

    switch event {
    case .commandComplete(let complete):
        invariant(complete.returnParameters.count <= CommandComplete.maximumReturnParametersLength, "return parameters too long")
        checkReturn(ResetCommand.self, complete)
        checkReturn(SetEventMaskCommand.self, complete)
        checkReturn(ReadLocalVersionInformationCommand.self, complete)
        checkReturn(ReadBDAddrCommand.self, complete)
        checkReturn(LESetEventMaskCommand.self, complete)
        checkReturn(LEReadBufferSizeCommand.self, complete)
        checkReturn(LEReadLocalSupportedFeaturesCommand.self, complete)
        checkReturn(LESetRandomAddressCommand.self, complete)
        checkReturn(LESetAdvertisingParametersCommand.self, complete)
        checkReturn(LEReadAdvertisingPhysicalChannelTxPowerCommand.self, complete)
        checkReturn(LESetAdvertisingDataCommand.self, complete)
        checkReturn(LESetAdvertisingEnableCommand.self, complete)
        checkReturn(LESetScanParametersCommand.self, complete)
        checkReturn(LESetScanEnableCommand.self, complete)
    case .leAdvertisingReport(let report):
        invariant(!report.reports.isEmpty && LEAdvertisingReport.fits(report.reports), "legacy report list out of bounds")
        invariant(LEAdvertisingReport(reports: report.reports) == report, "legacy reports do not rebuild the event")
        invariant(report.advertisements.count == report.reports.count, "advertisements and reports differ in number")
        for (entry, ad) in zip(report.reports, report.advertisements) {
            invariant(entry.data.count <= LEAdvertisingReport.Report.maximumDataLength, "legacy data over 31 bytes")
            invariant(entry.addressType != .anonymous, "anonymous address in a legacy report")
            invariant(ad.isScanResponse == (entry.eventType == .scanResponse) && ad.isDataComplete, "legacy flags")
            checkAdvertisement(ad, rssi: entry.rssi, data: entry.data)
        }
    case .leExtendedAdvertisingReport(let report):
        invariant(!report.reports.isEmpty && LEExtendedAdvertisingReport.fits(report.reports), "extended list out of bounds")
        invariant(LEExtendedAdvertisingReport(reports: report.reports) == report, "extended reports do not rebuild the event")
        invariant(report.advertisements.count == report.reports.count, "advertisements and reports differ in number")
        for (entry, ad) in zip(report.reports, report.advertisements) {
            invariant(entry.data.count <= LEExtendedAdvertisingReport.Report.maximumDataLength, "extended data too long")
            invariant(ad.isDataComplete == (entry.eventType.dataStatus == .complete), "extended data status")
            checkAdvertisement(ad, rssi: entry.rssi, data: entry.data)
        }
    case .hardwareError, .commandStatus:
        invariant(event.advertisements.isEmpty, "a non-report event has advertisements")
    case .unknown(let code, let subevent, _):
        invariant((subevent != nil) == (code == HCIEvent.leMetaCode), "subevent set on a non-LE-meta event")
        invariant(![HCIEvent.commandCompleteCode, HCIEvent.commandStatusCode, HCIEvent.hardwareErrorCode].contains(code),
                  "a known event code decoded as unknown")
    }
}

private func checkCommand(_ packet: [UInt8]) {
    guard let command = try? HCICommandPacket(decoding: packet) else { return }
    invariant(command.encoded() == packet, "command packet does not encode back to its bytes")
    guard let decoded = try? DecodedCommand(command) else { return }
    // Encoding normalises what the controller ignores (the zero padding of advertising data), so the
    // round trip is checked from the decoded command.
    invariant(decoded.opcode == command.opcode, "decoded command has another opcode")
    invariant((try? DecodedCommand(decoded.packet)) == decoded, "a decoded command does not survive encoding")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let packet = inputBytes(data, size)
    checkEvent(packet)
    checkCommand(packet)
    if packet.count >= 2, packet.count <= 2 + HCIEvent.maximumParameterLength, Int(packet[1]) != packet.count - 2 {
        var fitted = packet
        fitted[1] = UInt8(packet.count - 2)
        checkEvent(fitted)
    }
    if packet.count >= 3, packet.count <= 3 + 255, Int(packet[2]) != packet.count - 3 {
        var fitted = packet
        fitted[2] = UInt8(packet.count - 3)
        checkCommand(fitted)
    }
    return 0
}

// MARK: Seeds

private let address = BDAddress(rawValue: 0x5A_11_22_33_44_55)
private let gaenData = AdvertisingPayload(rpi: Bytes16(Array(0..<16))!, aem: AssociatedEncryptedMetadata(word: 0x4000_0000))
    .encoded()

private func complete<C: HCICommand>(_ command: C.Type, _ result: C.ReturnParameters) -> [UInt8] {
    HCIEvent.commandComplete(CommandComplete(answering: command, with: result)).encoded()
}

func fuzzSeeds() -> [Seed] {
    let legacy = LEAdvertisingReport.Report(eventType: .nonConnectableUndirected, addressType: .random, address: address,
                                            data: gaenData, rssi: -60)
    let response = LEAdvertisingReport.Report(eventType: .scanResponse, addressType: .public, address: address,
                                              data: [], rssi: 127)
    let extended = LEExtendedAdvertisingReport.Report(eventType: .legacyNonConnectable, addressType: .random,
                                                      address: address, rssi: -71, data: gaenData)
    let truncated = LEExtendedAdvertisingReport.Report(
        eventType: ExtendedAdvertisingEventType(rawValue: 0x0040), addressType: .anonymous, address: .zero,
        primaryPHY: .leCoded, secondaryPHY: .le2M, advertisingSID: 3, txPower: 4, rssi: 127,
        periodicAdvertisingInterval: 6, directAddressType: 0xFE, directAddress: address, data: Array(gaenData.prefix(9)))
    return [
        Seed("legacy-gaen", HCIEvent.leAdvertisingReport(LEAdvertisingReport(reports: [legacy])).encoded()),
        Seed("legacy-two", HCIEvent.leAdvertisingReport(LEAdvertisingReport(reports: [legacy, response])).encoded()),
        Seed("extended-gaen", HCIEvent.leExtendedAdvertisingReport(LEExtendedAdvertisingReport(reports: [extended])).encoded()),
        Seed("extended-two", HCIEvent.leExtendedAdvertisingReport(
            LEExtendedAdvertisingReport(reports: [truncated, extended])).encoded()),
        Seed("complete-reset", complete(ResetCommand.self, StatusReturn(status: .success))),
        Seed("complete-version", complete(ReadLocalVersionInformationCommand.self, LocalVersionReturn(
            hciVersion: 0x0B, hciRevision: 0x1234, lmpVersion: 0x0B, manufacturer: 0x005F, lmpSubversion: 0x2001))),
        Seed("complete-bdaddr", complete(ReadBDAddrCommand.self, BDAddrReturn(address: address))),
        Seed("complete-buffer", complete(LEReadBufferSizeCommand.self, LEBufferSizeReturn(aclDataPacketLength: 251,
                                                                                          totalACLDataPackets: 8))),
        Seed("complete-features", complete(LEReadLocalSupportedFeaturesCommand.self,
                                           LESupportedFeaturesReturn(features: LEFeatures(rawValue: 0x1FF)))),
        Seed("complete-txpower", complete(LEReadAdvertisingPhysicalChannelTxPowerCommand.self,
                                          AdvertisingTxPowerReturn(txPower: -4))),
        Seed("complete-failed", HCIEvent.commandComplete(CommandComplete(opcode: ReadBDAddrCommand.opcode,
                                                                         returnParameters: [0x0C])).encoded()),
        Seed("status", HCIEvent.commandStatus(CommandStatus(status: .unknownCommand, opcode: Opcode(rawValue: 0x2041))).encoded()),
        Seed("hardware-error", HCIEvent.hardwareError(code: 3).encoded()),
        Seed("le-meta-other", HCIEvent.unknown(code: 0x3E, subevent: 0x14, parameters: [0xAA, 0xBB]).encoded()),
        Seed("command-adv-data", LESetAdvertisingDataCommand(data: gaenData).encoded()),
        Seed("command-scan-enable", LESetScanEnableCommand(isEnabled: true).encoded()),
    ]
}
