import Agent
import ENCore
import EventLoop
import Foundation
import HCI

/// A temporary directory that disappears with the test.
final class TemporaryDirectory {
    let path: String
    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A probe whose answer the test changes: NTP synchronising mid-test.
final class SwitchableClockProbe: ClockSyncProbe {
    var synchronised: Bool
    init(synchronised: Bool) { self.synchronised = synchronised }
    func unsynchronisedReason() -> String? { synchronised ? nil : "test: not synchronised" }
}

/// 2021-06-01T22:00:00Z: two hours before a UTC midnight.
let simulationStart: Int64 = 1_622_584_800

extension SimulatedBadge {
    var storedKeys: [TemporaryExposureKey] {
        KeyFile.parse(TextFile.read(dataDirectory + "/keys") ?? "")
    }
}

/// Which stored key, if any, derives `rpi` in one of `intervals`.
func key(deriving rpi: Bytes16, in intervals: ClosedRange<UInt32>, among keys: [TemporaryExposureKey],
         schedule: KeySchedule) -> TemporaryExposureKey? {
    keys.first { key in
        let rpik = schedule.rpik(key.keyData)
        return intervals.contains { n in
            key.isValid(at: ENIntervalNumber(n)) && schedule.rpi(rpik: rpik, interval: ENIntervalNumber(n)) == rpi
        }
    }
}
