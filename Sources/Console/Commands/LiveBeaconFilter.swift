import ENCore
import EventLoop
import HCI

/// Which received beacons `live` shows. A phone advertises several times a second and the radio listens
/// all the time while someone watches, so every report would be a dozen lines a second of the same few
/// beacons. Instead each beacon (one RPI) gets a line when it is first heard, and again when its RSSI has
/// moved by `rssiChange` dB from the line shown (someone came closer or left) or `refresh` has passed.
struct LiveBeaconFilter {
    struct Settings {
        var refresh: Duration = .seconds(10)
        var rssiChange = 8
        /// A beacon not heard for this long is forgotten (it has rotated or left); heard again, it is new.
        var forgetAfter: Duration = .seconds(60)
        /// The most beacons remembered; a crowd beyond it costs lines, not memory.
        var capacity = 1024
    }

    private struct Shown {
        var at: MonotonicInstant
        var rssi: Int8?
        var lastHeard: MonotonicInstant
    }

    private let settings: Settings
    private var beacons: [Bytes16: Shown] = [:]

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Whether `report` gets a line; remembers it if so.
    mutating func shows(_ report: GAENReport) -> Bool {
        let now = report.receivedAt
        let key = report.payload.rpi
        if var shown = beacons[key], now - shown.lastHeard < settings.forgetAfter {
            shown.lastHeard = now
            let moved = switch (shown.rssi, report.rssi) {
            case (let before?, let after?): abs(Int(after) - Int(before)) >= settings.rssiChange
            case (nil, nil): false
            default: true
            }
            guard moved || now - shown.at >= settings.refresh else {
                beacons[key] = shown
                return false
            }
            beacons[key] = Shown(at: now, rssi: report.rssi, lastHeard: now)
            return true
        }
        if beacons.count >= settings.capacity {
            beacons = beacons.filter { now - $0.value.lastHeard < settings.forgetAfter }
            if beacons.count >= settings.capacity { beacons.removeAll() }
        }
        beacons[key] = Shown(at: now, rssi: report.rssi, lastHeard: now)
        return true
    }
}
