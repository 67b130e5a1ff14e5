/// What the host wants on air, and what the controller is known to be doing: the pure core of the driver.
///
/// The driver never scripts a fixed command sequence. After every completed command it asks
/// `RadioPlan.nextStep` for the single command that brings the controller closer to the goal. That one
/// function encodes the controller's strict rules (no address change while advertising or scanning, a
/// random address before random advertising, parameters only while disabled), so rotations, a scan
/// starting mid-rotation, or a reset in the middle of either all converge without special cases.
public struct RadioGoal: Equatable, Sendable {
    public struct Broadcast: Equatable, Sendable {
        public var address: BDAddress
        public var data: [UInt8]
        public init(address: BDAddress, data: [UInt8]) {
            self.address = address
            self.data = data
        }
    }

    public var broadcast: Broadcast?
    public var scanning: Bool

    public init(broadcast: Broadcast? = nil, scanning: Bool = false) {
        self.broadcast = broadcast
        self.scanning = scanning
    }
}

/// The controller state as far as the host knows it: updated only on a successful Command Complete.
public struct RadioState: Equatable, Sendable {
    public var randomAddress: BDAddress?
    public var advertisingData: [UInt8]?
    public var advertisingParametersSet = false
    public var scanParametersSet = false
    public var advertising = false
    public var scanning = false

    public init() {}

    /// Whether the controller is transmitting exactly the goal's broadcast.
    public func isBroadcasting(_ b: RadioGoal.Broadcast) -> Bool {
        advertising && randomAddress == b.address && advertisingData == b.data
    }
}

public enum RadioStep: Equatable, Sendable {
    case disableScanning
    case disableAdvertising
    case setRandomAddress(BDAddress)
    case setAdvertisingParameters
    case setAdvertisingData([UInt8])
    case enableAdvertising
    case setScanParameters
    case enableScanning

    /// The state after the controller accepted this step.
    public func applied(to state: RadioState) -> RadioState {
        var s = state
        switch self {
        case .disableScanning: s.scanning = false
        case .disableAdvertising: s.advertising = false
        case .setRandomAddress(let a): s.randomAddress = a
        case .setAdvertisingParameters: s.advertisingParametersSet = true
        case .setAdvertisingData(let d): s.advertisingData = d
        case .enableAdvertising: s.advertising = true
        case .setScanParameters: s.scanParametersSet = true
        case .enableScanning: s.scanning = true
        }
        return s
    }
}

public enum RadioPlan {
    /// The next command towards `goal`, or nil when the controller already matches it.
    public static func nextStep(from s: RadioState, to goal: RadioGoal) -> RadioStep? {
        if let b = goal.broadcast {
            if s.randomAddress != b.address {
                // The address may change only with both advertising and scanning off.
                if s.scanning { return .disableScanning }
                if s.advertising { return .disableAdvertising }
                return .setRandomAddress(b.address)
            }
            if s.advertisingData != b.data {
                // New data under the old address would put two RPIs on one address: stop first.
                if s.advertising { return .disableAdvertising }
                return .setAdvertisingData(b.data)
            }
            if !s.advertisingParametersSet {
                if s.advertising { return .disableAdvertising }
                return .setAdvertisingParameters
            }
            if !s.advertising { return .enableAdvertising }
        } else if s.advertising {
            return .disableAdvertising
        }
        if goal.scanning {
            if !s.scanParametersSet {
                if s.scanning { return .disableScanning }
                return .setScanParameters
            }
            if !s.scanning { return .enableScanning }
        } else if s.scanning {
            return .disableScanning
        }
        return nil
    }
}
