/// Lets the key servers' syncs run one at a time: a run builds its detection from every stored sighting and
/// holds downloads on disk, and one transfer at a time is kinder to a small board's memory, card and link
/// than several. A sync that is due while another runs waits for its turn, in the order asked.
final class SyncTurns {
    /// Who runs now (a `KeySync`'s number), if anyone.
    private var holder: Int?
    private var waiting: [(owner: Int, start: () -> Void)] = []
    private var lastOwner = 0

    init() {}

    /// A number for a new sync to ask with.
    func newOwner() -> Int {
        lastOwner += 1
        return lastOwner
    }

    /// Calls `start` now if nobody runs, else once every sync that asked before has had its turn.
    func request(_ owner: Int, start: @escaping () -> Void) {
        guard holder != nil else {
            holder = owner
            start()
            return
        }
        waiting.append((owner, start))
    }

    /// `owner` no longer wants a turn (stopped while waiting), or its run is over: the next in line starts.
    func release(_ owner: Int) {
        waiting.removeAll { $0.owner == owner }
        guard holder == owner else { return }
        holder = nil
        guard !waiting.isEmpty else { return }
        let next = waiting.removeFirst()
        holder = next.owner
        next.start()
    }
}
