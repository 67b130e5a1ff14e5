import HCI
import SystemIO

/// Whether the badge is on air, as the controller confirmed it, and if not, why — in words staff can act on.
package enum BroadcastState: Equatable, Sendable, CustomStringConvertible {
    /// The controller acknowledged advertising exactly the payload asked for.
    case onAir
    /// Exposure Notification is off (`en off`).
    case switchedOff
    case waitingForTrustedClock
    /// The day's new key could not be written, so no RPI of it may go on air (a full card, a failing one).
    case keyNotStored(SystemError)
    case waitingForController(ControllerDriver.Phase)
    /// Asked for, not yet acknowledged by the controller (a rotation under way, a controller being reset).
    case notYetConfirmed

    package var isOnAir: Bool { self == .onAir }

    package var description: String {
        switch self {
        case .onAir: "yes"
        case .switchedOff: "off (en on turns it back on)"
        case .waitingForTrustedClock: "no: waiting for a trusted clock (time trust, time set, or NTP)"
        case .keyNotStored(let error):
            "no: the day's key cannot be stored (\(error.reason)); free space in the data directory"
        case .waitingForController(let phase): "no: waiting for the controller (\(phase))"
        case .notYetConfirmed: "no: waiting for the controller to confirm advertising"
        }
    }
}
