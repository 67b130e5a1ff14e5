import ENCore

/// Why `keys share` or `keys share cancel` did nothing. Each message says what to do; none repeats the code.
package enum KeyShareError: Error, Equatable, Sendable, CustomStringConvertible {
    /// These `share.*` keys have no value.
    case notConfigured(missing: [String])
    /// The badge was built without a network client.
    case noNetwork
    case clockNotTrusted
    /// A verified share is waiting to publish (or publishing): one at a time.
    case alreadyUnderWay(publishAfter: Int64)
    /// `keys share` is already asking about a code.
    case busy
    case invalidCode(VerificationCodeError)
    /// A date option is after today, or too long ago for the key server to use.
    case badDate(option: String, reason: String)
    /// The verification server did not accept the code, or could not be asked; the message is for staff.
    case refused(String)
    case nothingToCancel
    /// The agent stopped (or the share was cancelled) before the answer came.
    case interrupted

    package var description: String {
        switch self {
        case .notConfigured(let missing):
            "keys share needs \(Self.list(missing)) (the health authority gives them): set "
                + (missing.count == 1 ? "it" : "them") + " with config set"
        case .noNetwork:
            "this badge has no network client for the health authority"
        case .clockNotTrusted:
            "the clock is not trusted yet (time trust, time set, or wait for NTP): the keys of each day are "
                + "only known with the right date"
        case .alreadyUnderWay(let publishAfter):
            "a share is already under way (publishing after \(UTCDateTime(unixSeconds: publishAfter))): keys share "
                + "status shows it; keys share cancel ends it"
        case .busy:
            "keys share is already checking a code: wait for its answer"
        case .invalidCode(let error):
            "\(error)"
        case .badDate(let option, let reason):
            "\(option) \(reason)"
        case .refused(let message):
            message
        case .nothingToCancel:
            "no share is under way"
        case .interrupted:
            "the agent stopped before the health authority answered: nothing was kept; enter the code again"
        }
    }

    static func list(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: names[0]
        default: names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        }
    }
}
