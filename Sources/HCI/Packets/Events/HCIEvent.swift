/// An HCI event packet: event code, one-byte parameter length, parameters.
///
/// The events enbeacon acts on have cases; every other event code or LE subevent decodes to `unknown`
/// instead of failing, so the driver can count and skip what it did not ask for (controllers send
/// vendor events, and Bumble ignores event masks). Errors are reserved for events that claim to be
/// one of the known kinds but are malformed, and for headers whose length disagrees with the bytes.
public enum HCIEvent: Hashable, Sendable {
    public static let headerLength = 2
    public static let maximumParameterLength = 255

    public static let commandCompleteCode: UInt8 = 0x0E
    public static let commandStatusCode: UInt8 = 0x0F
    public static let hardwareErrorCode: UInt8 = 0x10
    public static let leMetaCode: UInt8 = 0x3E

    case commandComplete(CommandComplete)
    case commandStatus(CommandStatus)
    /// The controller hit a fault it cannot report otherwise; the code is vendor specific. The host's
    /// answer is a reset.
    case hardwareError(code: UInt8)
    case leAdvertisingReport(LEAdvertisingReport)
    case leExtendedAdvertisingReport(LEExtendedAdvertisingReport)
    /// Any other event, kept whole. `subevent` is set for LE Meta events (code 0x3E), and
    /// `parameters` then excludes the subevent code. Encoding more than 255 parameter bytes (254 with a
    /// subevent) is a programming error.
    case unknown(code: UInt8, subevent: UInt8?, parameters: [UInt8])

    public init(decoding packet: [UInt8]) throws(HCIDecodeError) {
        try self.init(decoding: packet[...])
    }

    /// Decodes one event packet (without the H4 indicator): code, length, and exactly that many parameters.
    public init(decoding packet: ArraySlice<UInt8>) throws(HCIDecodeError) {
        var reader = ByteReader(packet)
        let code = try reader.uint8()
        let declared = Int(try reader.uint8())
        guard declared == reader.remaining else {
            throw .lengthMismatch(declared: declared, actual: reader.remaining)
        }
        let parameters = reader.rest()
        switch code {
        case Self.commandCompleteCode:
            self = .commandComplete(try CommandComplete(parameters: parameters))
        case Self.commandStatusCode:
            self = .commandStatus(try CommandStatus(parameters: parameters))
        case Self.hardwareErrorCode:
            var fields = ByteReader(parameters)
            let hardwareCode = try fields.uint8()
            try fields.finish()
            self = .hardwareError(code: hardwareCode)
        case Self.leMetaCode:
            var fields = ByteReader(parameters)
            let subevent = try fields.uint8()
            let subeventParameters = fields.rest()
            switch subevent {
            case LEAdvertisingReport.subeventCode:
                self = .leAdvertisingReport(try LEAdvertisingReport(parameters: subeventParameters))
            case LEExtendedAdvertisingReport.subeventCode:
                self = .leExtendedAdvertisingReport(try LEExtendedAdvertisingReport(parameters: subeventParameters))
            default:
                self = .unknown(code: code, subevent: subevent, parameters: Array(subeventParameters))
            }
        default:
            self = .unknown(code: code, subevent: nil, parameters: Array(parameters))
        }
    }

    public var code: UInt8 {
        switch self {
        case .commandComplete: Self.commandCompleteCode
        case .commandStatus: Self.commandStatusCode
        case .hardwareError: Self.hardwareErrorCode
        case .leAdvertisingReport, .leExtendedAdvertisingReport: Self.leMetaCode
        case .unknown(let code, _, _): code
        }
    }

    /// The LE subevent code for LE Meta events, nil for the others.
    public var subevent: UInt8? {
        switch self {
        case .leAdvertisingReport: LEAdvertisingReport.subeventCode
        case .leExtendedAdvertisingReport: LEExtendedAdvertisingReport.subeventCode
        case .unknown(_, let subevent, _): subevent
        case .commandComplete, .commandStatus, .hardwareError: nil
        }
    }

    /// The advertisements an advertising report event carries, legacy or extended; empty for other events.
    public var advertisements: [ReceivedAdvertisement] {
        switch self {
        case .leAdvertisingReport(let report): report.advertisements
        case .leExtendedAdvertisingReport(let report): report.advertisements
        default: []
        }
    }

    /// Code, length and parameters, without the H4 indicator.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [code, 0]
        switch self {
        case .commandComplete(let event): event.encodeParameters(into: &bytes)
        case .commandStatus(let event): event.encodeParameters(into: &bytes)
        case .hardwareError(let hardwareCode): bytes.append(hardwareCode)
        case .leAdvertisingReport(let event):
            bytes.append(LEAdvertisingReport.subeventCode)
            event.encodeParameters(into: &bytes)
        case .leExtendedAdvertisingReport(let event):
            bytes.append(LEExtendedAdvertisingReport.subeventCode)
            event.encodeParameters(into: &bytes)
        case .unknown(_, let subevent, let parameters):
            if let subevent { bytes.append(subevent) }
            bytes += parameters
        }
        let parameterLength = bytes.count - Self.headerLength
        precondition(parameterLength <= Self.maximumParameterLength, "HCI event parameters exceed 255 bytes")
        bytes[1] = UInt8(parameterLength)
        return bytes
    }
}
