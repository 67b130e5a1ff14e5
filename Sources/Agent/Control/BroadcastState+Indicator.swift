import Indicators

extension BroadcastState {
    /// What the indicator shows of the broadcast: the reasons it tells apart, a rotation under way (asked
    /// for, not yet confirmed) counting as on air, as far as anyone can tell.
    var indicatorBroadcast: IndicatorInputs.Broadcast {
        switch self {
        case .onAir, .notYetConfirmed: .onAir
        case .switchedOff: .switchedOff
        case .waitingForTrustedClock: .waitingForClock
        case .keyNotStored: .keyNotStored
        case .waitingForController: .waitingForController
        }
    }
}
