import Foundation
import Testing

/// One RPI, one address, as a receiver sees it on air: an agent killed with SIGKILL and started again
/// within the same 10-minute interval puts the same RPI on air under the same address (two addresses for
/// one RPI would let anyone link them), read from the HCI commands in the btsnoop logs of both runs.
@Suite struct AddressContinuityTests {
    /// (time, address, RPI) of every advertising set-up in a btsnoop log: the LE Set Random Address before
    /// an LE Set Advertising Data carrying a GAEN payload.
    struct Broadcast: Hashable {
        var time: Int64
        var address: [UInt8]
        var rpi: [UInt8]
    }

    static func broadcasts(inBtsnoop path: String) -> [Broadcast] {
        guard let data = FileManager.default.contents(atPath: path), data.count >= 16 else { return [] }
        let bytes = [UInt8](data)
        var found: [Broadcast] = []
        var address: [UInt8]?
        var offset = 16  // "btsnoop\0", version, datalink
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        while offset + 24 <= bytes.count {
            let included = be32(offset + 4)
            let micros = bytes[offset + 16..<offset + 24].reduce(Int64(0)) { $0 << 8 | Int64($1) }
            let start = offset + 24
            guard start + included <= bytes.count else { break }
            let packet = Array(bytes[start..<start + included])
            offset = start + included
            // H4 command: 0x01, opcode (LE), length, parameters.
            guard packet.count >= 4, packet[0] == 0x01 else { continue }
            let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
            let parameters = Array(packet.dropFirst(4))
            if opcode == 0x2005, parameters.count == 6 {
                address = parameters
            } else if opcode == 0x2008, parameters.count == 32, let address {
                // Flags (3), 16-bit UUID list (4), then service data: length, 0x16, 0xFD6F, RPI (16), AEM (4).
                let ad = Array(parameters[1...])
                guard ad.count >= 31, ad[7] == 0x17, ad[8] == 0x16, ad[9] == 0x6F, ad[10] == 0xFD else { continue }
                // btsnoop time is microseconds since 0 AD; Unix seconds for the interval.
                let unix = (micros - 0x00DC_DDB3_0F2F_8000) / 1_000_000
                found.append(Broadcast(time: unix, address: address, rpi: Array(ad[11..<27])))
            }
        }
        return found
    }

    /// Starts the agent on the virtual board; returns once the btsnoop log shows a broadcast.
    func startAgent(data: String, btsnoop: String) throws -> Process {
        let process = Process()
        process.executableURL = Enbeacon.binary
        process.arguments = ["run", "--data", data, "--btsnoop", btsnoop, "--console", "none", "--seconds", "60"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while Self.broadcasts(inBtsnoop: btsnoop).isEmpty && Date() < deadline && process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)  // polling a file another process writes, bounded by the deadline
        }
        return process
    }

    @Test func aRestartWithinTheIntervalKeepsTheAddressOfTheRPI() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-address-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var all: [Broadcast] = []
        var sameIntervalRestarts = 0
        // A restart can straddle a 10-minute boundary; the runs take about a second, so of two attempts at
        // least one falls within one interval.
        for attempt in 0..<2 where sameIntervalRestarts == 0 {
            let first = try startAgent(data: dir + "/data", btsnoop: dir + "/a\(attempt).btsnoop")
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            let second = try startAgent(data: dir + "/data", btsnoop: dir + "/b\(attempt).btsnoop")
            kill(second.processIdentifier, SIGTERM)
            second.waitUntilExit()
            let before = try #require(Self.broadcasts(inBtsnoop: dir + "/a\(attempt).btsnoop").last)
            let after = try #require(Self.broadcasts(inBtsnoop: dir + "/b\(attempt).btsnoop").first)
            all += [before, after]
            if before.time / 600 == after.time / 600 {
                sameIntervalRestarts += 1
                #expect(after.rpi == before.rpi, "same interval, same key: same RPI")
                #expect(after.address == before.address, "the RPI is back on air under its address")
            }
        }
        #expect(sameIntervalRestarts == 1)
        // Whatever the intervals: never one RPI under two addresses, never one address for two RPIs.
        let addressesByRPI = Dictionary(grouping: all, by: \.rpi).mapValues { Set($0.map(\.address)) }
        let rpisByAddress = Dictionary(grouping: all, by: \.address).mapValues { Set($0.map(\.rpi)) }
        #expect(addressesByRPI.values.allSatisfy { $0.count == 1 })
        #expect(rpisByAddress.values.allSatisfy { $0.count == 1 })
    }
}
