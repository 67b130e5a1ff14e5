/// What the badge's LED (and buzzer) says while nothing else is being played, in order of precedence:
/// an exposure the wearer's carers have not acknowledged outranks every fault, a fault outranks waiting, and
/// a healthy badge on air gives a short flash every few seconds. The flash counts (1 on air, 2 clock,
/// 3 controller, 4 storage) are also what a long press of the button reports.
package enum IndicatorState: String, Sendable, CustomStringConvertible {
    /// Controller and clock not both ready yet, with nothing known to be wrong.
    case starting
    /// Exposure Notification is off (`en off`).
    case switchedOff
    case onAir
    case waitingForClock
    /// The controller is gone or being recovered after a problem.
    case controllerFault
    /// Sightings, or the day's key, cannot be written.
    case storageFault
    /// An exposure at or above `risk.threshold` that nobody has acknowledged yet.
    case exposureFound

    /// Flashes per 5 s cycle, and in a long press's status report (0: dark).
    var flashCount: Int {
        switch self {
        case .onAir: 1
        case .waitingForClock: 2
        case .controllerFault: 3
        case .storageFault: 4
        case .starting, .switchedOff, .exposureFound: 0
        }
    }

    package var pattern: IndicatorPattern {
        switch self {
        case .starting, .switchedOff: .darkness
        case .onAir, .waitingForClock, .controllerFault, .storageFault: .flashes(flashCount)
        case .exposureFound: .exposure
        }
    }

    /// What it means and what it looks like, in words for a carer.
    package var description: String {
        "\(meaning): \(looks)"
    }

    package var meaning: String {
        switch self {
        case .starting: "starting"
        case .switchedOff: "Exposure Notification off"
        case .onAir: "on air"
        case .waitingForClock: "waiting for a trusted clock"
        case .controllerFault: "Bluetooth controller fault"
        case .storageFault: "storage fault"
        case .exposureFound: "exposure found"
        }
    }

    package var looks: String {
        switch self {
        case .starting, .switchedOff: "dark"
        case .onAir: "one short flash every 5 s"
        case .waitingForClock: "two flashes every 5 s"
        case .controllerFault: "three flashes every 5 s"
        case .storageFault: "four flashes every 5 s"
        case .exposureFound: "fast blinking, three beeps every 10 s, until acknowledged"
        }
    }
}
