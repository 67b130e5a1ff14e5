import Foundation
import HCI

/// A btsnoop file read back independently of the writer: the header's fields checked, each record's header
/// taken apart by hand, its H4 packet decoded with the HCI decoders. What a badge put on the air is in the
/// LE Set Advertising Data commands it sent; what it heard, in the LE advertising reports it received.
struct BtsnoopCapture {
    /// The advertising data of each LE Set Advertising Data command the host sent, in order.
    var advertisingDataSent: [[UInt8]] = []
    /// Each advertisement the controller reported to the host, in order.
    var advertisementsReceived: [ReceivedAdvertisement] = []

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw Malformed(description: "\(path): unreadable") }
        let bytes = [UInt8](data)
        guard bytes.count >= 16, Array(bytes[0..<8]) == Array("btsnoop".utf8) + [0] else {
            throw Malformed(description: "\(path): no btsnoop identification")
        }
        guard Self.bigEndian(bytes, at: 8) == 1, Self.bigEndian(bytes, at: 12) == 1002 else {
            throw Malformed(description: "\(path): not version 1 with H4 datalink (1002)")
        }
        var at = 16
        while at < bytes.count {
            guard at + 24 <= bytes.count else { throw Malformed(description: "record header cut short at \(at)") }
            let included = Int(Self.bigEndian(bytes, at: at + 4))
            let flags = Self.bigEndian(bytes, at: at + 8)
            let start = at + 24
            guard start + included <= bytes.count, included >= 1 else { throw Malformed(description: "record cut short at \(at)") }
            let packet = bytes[(start + 1)..<(start + included)]
            let received = flags & 1 == 1
            switch (bytes[start], received) {
            case (0x01, false):
                let command = try HCICommandPacket(decoding: packet)
                if command.opcode == LESetAdvertisingDataCommand.opcode {
                    advertisingDataSent.append(try LESetAdvertisingDataCommand(parameters: command.parameters[...]).data)
                }
            case (0x04, true):
                switch try HCIEvent(decoding: packet) {
                case .leAdvertisingReport(let report): advertisementsReceived += report.advertisements
                case .leExtendedAdvertisingReport(let report): advertisementsReceived += report.advertisements
                default: break
                }
            default: break
            }
            at = start + included
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
