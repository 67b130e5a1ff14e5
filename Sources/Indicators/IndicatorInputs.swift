/// What the indicator's state is derived from: facts the agent already keeps for `status`, in the indicator's
/// own terms, so that the indicators need nothing of the agent (the agent maps its broadcast state onto
/// `Broadcast`).
package struct IndicatorInputs: Equatable, Sendable {
    /// Whether the badge is on air and, if not, the reason the indicator tells apart.
    package enum Broadcast: Equatable, Sendable {
        /// On air, or asked for and about to be confirmed: as far as anyone can tell, on air.
        case onAir
        /// Exposure Notification is off (`en off`).
        case switchedOff
        case waitingForClock
        /// The day's new key could not be written, so the badge may not go on air.
        case keyNotStored
        /// The controller is not ready (starting, resetting, gone).
        case waitingForController
    }

    package var broadcast: Broadcast
    /// The controller is not ready and the last thing it did was fail (gone, timed out, a hardware error).
    package var controllerFault: Bool
    /// Sightings could not be written at the last attempt.
    package var storageFault: Bool
    /// Exposures at or above `risk.threshold` not acknowledged yet.
    package var exposuresToAcknowledge: Int
    /// Any exposure is recorded, acknowledged or not (a long press shows it).
    package var exposuresRecorded: Bool

    package init(broadcast: Broadcast, controllerFault: Bool = false, storageFault: Bool = false,
                exposuresToAcknowledge: Int = 0, exposuresRecorded: Bool = false) {
        self.broadcast = broadcast
        self.controllerFault = controllerFault
        self.storageFault = storageFault
        self.exposuresToAcknowledge = exposuresToAcknowledge
        self.exposuresRecorded = exposuresRecorded || exposuresToAcknowledge > 0
    }

    /// The state to show, most urgent first: an unacknowledged exposure, then what stops the badge
    /// recording (storage, the controller), then why it is not on air.
    package var state: IndicatorState {
        if exposuresToAcknowledge > 0 { return .exposureFound }
        if storageFault { return .storageFault }
        switch broadcast {
        case .keyNotStored: return .storageFault
        case _ where controllerFault: return .controllerFault
        case .switchedOff: return .switchedOff
        case .waitingForClock: return .waitingForClock
        case .onAir: return .onAir
        case .waitingForController: return .starting
        }
    }
}
