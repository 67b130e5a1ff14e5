import Foundation
import HCI
import Testing

/// 2020-09-13T12:26:40Z, in Unix microseconds.
private let september2020: Int64 = 1_600_000_000_000_000

/// A fresh path in the system temporary directory, removed by the caller.
func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "enbeacon-hci-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)-\(name)"
}

@Suite struct BtsnoopTests {
    @Test func fileHeaderIsLiteral() {
        #expect(BtsnoopFormat.fileHeader == bytes("62 74 73 6E 6F 6F 70 00 00 00 00 01 00 00 03 EA"))
    }

    @Test func commandRecordIsLiteral() {
        let record = BtsnoopRecord(packet: H4Packet(ResetCommand()), direction: .sent, unixMicroseconds: september2020)
        #expect(record.flags == 0b10)
        #expect(
            record.encoded()
                == bytes(
                    """
                    00 00 00 04  00 00 00 04  00 00 00 02  00 00 00 00  00 E2 8C E4 16 D3 80 00
                    01 03 0C 00
                    """.replacingOccurrences(of: "  ", with: " ")))
    }

    @Test func eventRecordIsLiteral() {
        let record = BtsnoopRecord(packet: .event(bytes("0E 04 01 03 0C 00")), direction: .received, unixMicroseconds: 0)
        #expect(record.flags == 0b11)
        #expect(
            record.encoded()
                == bytes("00 00 00 07 00 00 00 07 00 00 00 03 00 00 00 00 00 DC DD B3 0F 2F 80 00 04 0E 04 01 03 0C 00"))
    }

    @Test func dataRecordsCarryOnlyTheDirection() {
        let acl = H4Packet.acl(bytes("40 20 00 00"))
        #expect(BtsnoopRecord(packet: acl, direction: .sent, unixMicroseconds: 0).flags == 0)
        #expect(BtsnoopRecord(packet: acl, direction: .received, unixMicroseconds: 0).flags == 1)
    }

    @Test func timestampsBeforeTheUnixEpochAndAbsurdOnesDoNotTrap() {
        #expect(BtsnoopRecord(packet: .event([]), direction: .received, unixMicroseconds: -1).encoded()[16..<24]
            == bytes("00 DC DD B3 0F 2F 7F FF")[...])
        #expect(BtsnoopRecord(packet: .event([]), direction: .received, unixMicroseconds: .max).timestamp == .max)
    }

    @Test func fileHoldsHeaderAndRecordsWithMode0600() throws {
        let path = temporaryPath("capture.btsnoop")
        defer { unlink(path) }
        let file = try BtsnoopFile(path: path)
        try file.write(H4Packet(ResetCommand()), direction: .sent, unixMicroseconds: september2020)
        try file.write(.event(bytes("0E 04 01 03 0C 00")), direction: .received, unixMicroseconds: september2020 + 1)
        file.close()
        #expect(file.recordsWritten == 2)

        let contents = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let expected =
            BtsnoopFormat.fileHeader
            + bytes("00 00 00 04 00 00 00 04 00 00 00 02 00 00 00 00 00 E2 8C E4 16 D3 80 00 01 03 0C 00")
            + bytes("00 00 00 07 00 00 00 07 00 00 00 03 00 00 00 00 00 E2 8C E4 16 D3 80 01 04 0E 04 01 03 0C 00")
        #expect(contents == expected)

        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func reopeningTruncatesAndTightensTheMode() throws {
        let path = temporaryPath("reopen.btsnoop")
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0xAA, count: 100)))
        #expect(chmod(path, 0o644) == 0)
        let file = try BtsnoopFile(path: path)
        file.close()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == BtsnoopFormat.fileHeader)
        var status = stat()
        #expect(stat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
    }

    @Test func failuresAreThrownNotFatal() throws {
        #expect(throws: BtsnoopFileError.self) { try BtsnoopFile(path: "/nonexistent-enbeacon-dir/capture.btsnoop") }

        // /dev/full accepts the open and fails every write with ENOSPC: the disk-full case.
        if access("/dev/full", W_OK) == 0 {
            var before = stat()
            _ = stat("/dev/full", &before)
            #expect(throws: BtsnoopFileError.writeFailed(errno: ENOSPC)) { try BtsnoopFile(path: "/dev/full") }
            var after = stat()
            _ = stat("/dev/full", &after)
            #expect(before.st_mode == after.st_mode, "a device's mode must not be touched")
        }

        let path = temporaryPath("closed.btsnoop")
        defer { unlink(path) }
        let file = try BtsnoopFile(path: path)
        file.close()
        #expect(!file.isOpen)
        #expect(throws: BtsnoopFileError.closed) {
            try file.write(H4Packet(ResetCommand()), direction: .sent, unixMicroseconds: 0)
        }
    }
}

private let btmonPath = "/usr/bin/btmon"

/// btmon (BlueZ) is an independent decoder: a capture it reads cleanly, naming every command we
/// sent, proves both the btsnoop framing and our packet layouts.
@Suite struct BtmonInteropTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: btmonPath), "btmon not installed (Debian package bluez)"))
    func btmonDecodesOurCapture() throws {
        let path = temporaryPath("btmon.btsnoop")
        defer { unlink(path) }
        let file = try BtsnoopFile(path: path)
        var time = september2020
        for vector in commandVectors {
            try file.write(.command(vector.packet), direction: .sent, unixMicroseconds: time)
            time += 1_000
        }
        for vector in eventVectors {
            try file.write(.event(vector.packet), direction: .received, unixMicroseconds: time)
            time += 1_000
        }
        file.close()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: btmonPath)
        process.arguments = ["-r", path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)

        #expect(process.terminationStatus == 0, "\(text)")
        for name in [
            "HCI Command: Reset", "HCI Command: Set Event Mask", "Read Local Version Information", "Read BD ADDR",
            "LE Set Event Mask", "LE Read Buffer Size", "LE Read Local Supported Features",
            "HCI Command: LE Set Random Address", "LE Set Advertising Parameters",
            "LE Read Advertising Channel TX Power", "LE Set Advertising Data", "LE Set Advertise Enable",
            "LE Set Scan Parameters", "LE Set Scan Enable", "Command Complete", "Command Status", "Hardware Error",
            "LE Advertising Report", "LE Extended Advertising Report",
            "Address: 3A:BC:DE:F0:12:34", "Address: 1A:2B:3C:4D:5E:6F",
        ] {
            #expect(text.contains(name), "btmon output lacks \(name)")
        }
        // btmon flags layouts it disagrees with; our encodings must not trigger that. (It prints the
        // RSSI value 127, "not available", as invalid: that one is deliberate in a vector.)
        let lowered = text.lowercased().replacingOccurrences(of: "rssi: invalid (0x7f)", with: "")
        #expect(!lowered.contains("invalid") && !lowered.contains("malformed"), "\(text)")
        #expect(text.components(separatedBy: "HCI Command:").count - 1 == commandVectors.count)
        #expect(text.components(separatedBy: "HCI Event:").count - 1 == eventVectors.count)
    }
}
