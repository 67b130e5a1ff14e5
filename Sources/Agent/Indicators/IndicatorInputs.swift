import HCI

/// What the indicator's state is derived from: facts the agent already keeps for `status`.
public struct IndicatorInputs: Equatable, Sendable {
    public var broadcast: BroadcastState
    /// The controller is not ready and the last thing it did was fail (gone, timed out, a hardware error).
    public var controllerFault: Bool
    /// Sightings could not be written at the last attempt.
    public var storageFault: Bool
    /// Exposures at or above `risk.threshold` not acknowledged yet.
    public var exposuresToAcknowledge: Int
    /// Any exposure is recorded, acknowledged or not (a long press shows it).
    public var exposuresRecorded: Bool

    public init(broadcast: BroadcastState, controllerFault: Bool = false, storageFault: Bool = false,
                exposuresToAcknowledge: Int = 0, exposuresRecorded: Bool = false) {
        self.broadcast = broadcast
        self.controllerFault = controllerFault
        self.storageFault = storageFault
        self.exposuresToAcknowledge = exposuresToAcknowledge
        self.exposuresRecorded = exposuresRecorded || exposuresToAcknowledge > 0
    }

    /// The state to show, most urgent first: an unacknowledged exposure, then what stops the badge
    /// recording (storage, the controller), then why it is not on air.
    public var state: IndicatorState {
        if exposuresToAcknowledge > 0 { return .exposureFound }
        if storageFault { return .storageFault }
        switch broadcast {
        case .keyNotStored: return .storageFault
        case _ where controllerFault: return .controllerFault
        case .switchedOff: return .switchedOff
        case .waitingForTrustedClock: return .waitingForClock
        // Asked for and about to be confirmed (a rotation under way): still on air as far as anyone can tell.
        case .onAir, .notYetConfirmed: return .onAir
        case .waitingForController: return .starting
        }
    }
}
