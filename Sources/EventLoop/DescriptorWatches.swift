import SystemIO

/// The watched descriptors of a loop, and one `poll(2)` over them: shared by the real loop and by the
/// virtual one, which serves real descriptors too (a simulated badge talking HTTP to a local server).
final class DescriptorWatches {
    private struct Watch {
        let id: UInt64
        let fd: Int32
        var interest: FDInterest
        let handler: (FDReadiness) -> Void
    }

    /// In registration order, so that ready descriptors are served in a stable order.
    private var watches: [Watch] = []
    private var nextWatchID: UInt64 = 0

    // Reused across iterations: the loop runs for months and need not allocate per poll.
    private var pollSet = PollSet()
    private var polledWatchIDs: [UInt64] = []
    private var readyWatches: [(id: UInt64, readiness: FDReadiness)] = []

    /// Whether some watch wants to hear about its descriptor (an empty interest pauses a watch).
    var anyInterest: Bool { watches.contains { !$0.interest.isEmpty } }

    func add(fd: Int32, for interest: FDInterest, _ handler: @escaping (FDReadiness) -> Void) -> WatchHandle {
        precondition(fd >= 0, "watch: invalid descriptor \(fd)")
        let id = nextWatchID
        nextWatchID += 1
        watches.append(Watch(id: id, fd: fd, interest: interest, handler: handler))
        return WatchHandle(id: id)
    }

    func update(_ watch: WatchHandle, interest: FDInterest) {
        guard let index = watches.firstIndex(where: { $0.id == watch.id }) else { return }
        watches[index].interest = interest
    }

    func remove(_ watch: WatchHandle) {
        watches.removeAll { $0.id == watch.id }
    }

    /// Polls the descriptors of interest for at most `timeoutMilliseconds` (-1: until one is ready) and
    /// remembers which are ready, for `dispatchReady`.
    func poll(timeoutMilliseconds: Int32) {
        pollSet.removeAll()
        polledWatchIDs.removeAll(keepingCapacity: true)
        readyWatches.removeAll(keepingCapacity: true)
        for watch in watches where !watch.interest.isEmpty {
            pollSet.append(watch.fd, events: Self.pollEvents(for: watch.interest))
            polledWatchIDs.append(watch.id)
        }
        if case .failure(let error) = pollSet.poll(timeoutMilliseconds: timeoutMilliseconds) {
            switch error.code {
            case Errno.interrupted, Errno.wouldBlock, Errno.outOfMemory:
                // A signal handler ran, or the kernel was briefly short of memory: just go round
                // again; due timers still run.
                return
            default:
                fatalError("poll: \(error)")
            }
        }
        for index in 0..<pollSet.count {
            let found = pollSet.found(at: index)
            if !found.isEmpty { readyWatches.append((polledWatchIDs[index], Self.readiness(from: found))) }
        }
    }

    /// Calls the handler of each descriptor the last poll found ready, while `proceed()` holds.
    func dispatchReady(while proceed: () -> Bool) {
        let ready = readyWatches
        readyWatches.removeAll(keepingCapacity: true)
        for (id, observed) in ready {
            if !proceed() { return }
            // Look the watch up again: an earlier callback in this iteration may have removed it
            // (and closed its descriptor) or changed its interest.
            guard let watch = watches.first(where: { $0.id == id }), !watch.interest.isEmpty else { continue }
            let readiness = observed.intersection(FDReadiness(deliverableFor: watch.interest))
            guard !readiness.isEmpty else { continue }
            if readiness.contains(.invalid) {
                // A closed descriptor stays invalid forever and would be reported on every
                // iteration; report it once, then drop the watch.
                remove(WatchHandle(id: id))
            }
            watch.handler(readiness)
        }
    }

    private static func pollEvents(for interest: FDInterest) -> PollEvents {
        var events: PollEvents = []
        if interest.contains(.readable) { events.insert(.readable) }
        if interest.contains(.writable) { events.insert(.writable) }
        return events
    }

    private static func readiness(from found: PollEvents) -> FDReadiness {
        var readiness: FDReadiness = []
        if found.contains(.readable) { readiness.insert(.readable) }
        if found.contains(.writable) { readiness.insert(.writable) }
        if found.contains(.error) { readiness.insert(.error) }
        if found.contains(.hangup) { readiness.insert(.hangup) }
        if found.contains(.invalid) { readiness.insert(.invalid) }
        return readiness
    }
}
