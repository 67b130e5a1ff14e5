@testable import KeyDownload
import Testing

/// The key servers' turns on `SyncTurns` alone: no process, socket, file or loop.
@Suite struct SyncTurnsTests {
    /// Mirrors twoServersSyncEachWithItsCursorAndAKeyInBothFeedsMatchesOnce ("one runs at a time: the second
    /// server's status says it waits for its turn"): a sync asked for while another runs starts only once that
    /// one is over, in the order asked; one that stops while waiting never starts.
    @Test func syncsRunOneAtATimeInTheOrderAsked() {
        let turns = SyncTurns()
        var started: [String] = []
        let national = turns.newOwner(), gateway = turns.newOwner(), third = turns.newOwner(), fourth = turns.newOwner()
        turns.request(national) { started.append("national") }
        turns.request(gateway) { started.append("gateway") }
        turns.request(third) { started.append("third") }
        turns.request(fourth) { started.append("fourth") }
        #expect(started == ["national"], "the others wait")

        turns.release(third)
        #expect(started == ["national"], "a sync that stops while waiting frees no turn")
        turns.release(national)
        #expect(started == ["national", "gateway"], "the first still waiting starts once the running one is over")
        turns.release(gateway)
        #expect(started == ["national", "gateway", "fourth"], "then the next, never the one that stopped")
        turns.release(fourth)
        turns.request(national) { started.append("national again") }
        #expect(started.last == "national again", "with nobody running, a sync starts at once")
    }
}
