/// What the controller told the host about itself during initialisation.
public struct ControllerInfo: Equatable, Sendable {
    public var version: LocalVersionReturn?
    public var publicAddress: BDAddress?
    public var features: LEFeatures?
    public var leBufferSize: LEBufferSizeReturn?
    /// The advertising TX power in dBm: the value GAEN metadata carries so receivers can compute attenuation.
    public var advertisingTxPower: Int8?

    public init() {}
}

/// Running totals a person can read in `hci info` and tests can assert on.
public struct DriverCounters: Equatable, Sendable {
    public var commandsSent = 0
    public var commandTimeouts = 0
    public var commandsRejected = 0
    public var hardwareErrors = 0
    public var initializations = 0
    public var transportFailures = 0
    public var advertisingReports = 0
    public var unknownEvents = 0
    public var malformedEvents = 0
    public var otherPackets = 0

    public init() {}
}
