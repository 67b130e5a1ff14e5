@testable import Agent
import HCI
@testable import Indicators
import SystemIO
import Testing

/// What the indicator is told of the broadcast: each reason it tells apart, and a rotation under way as on air.
@Suite struct BroadcastIndicatorTests {
    @Test("each broadcast state as the indicator sees it, and the state it then shows")
    func broadcastStates() {
        let cases: [(BroadcastState, IndicatorInputs.Broadcast, IndicatorState)] = [
            (.onAir, .onAir, .onAir),
            (.notYetConfirmed, .onAir, .onAir),
            (.switchedOff, .switchedOff, .switchedOff),
            (.waitingForTrustedClock, .waitingForClock, .waitingForClock),
            (.keyNotStored(SystemError(call: "write", code: 28)), .keyNotStored, .storageFault),
            (.waitingForController(.initializing), .waitingForController, .starting),
        ]
        for (state, broadcast, shown) in cases {
            #expect(state.indicatorBroadcast == broadcast, "\(state)")
            #expect(IndicatorInputs(broadcast: state.indicatorBroadcast).state == shown, "\(state)")
        }
        #expect(IndicatorInputs(broadcast: BroadcastState.waitingForController(.waitingToReconnect).indicatorBroadcast,
                                controllerFault: true).state == .controllerFault)
    }
}
