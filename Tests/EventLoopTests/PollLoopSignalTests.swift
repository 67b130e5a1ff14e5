import Foundation
import Glibc
import Synchronization
import Testing
import EventLoop

/// The thread a forwarded SIGHUP must reach; written before the signal is sent, read only by
/// `forwardToLoopThread`.
nonisolated(unsafe) private var loopThread: pthread_t = 0

/// Re-sends a process-directed signal to the loop's thread.
///
/// In production the signals are blocked on the main thread before any other thread exists, so
/// every thread blocks them and a process-directed `kill` can only end up in the signalfd. The test
/// runner, however, has worker threads that do not block SIGHUP: the kernel may pick one of them,
/// and with the default action that would terminate the whole test process. Forwarding from a
/// handler (pthread_kill is async-signal-safe) gets the signal to the loop thread, where it is
/// blocked and therefore readable from the signalfd, either way.
private let forwardToLoopThread: @convention(c) (Int32) -> Void = { signal in
    _ = pthread_kill(loopThread, signal)
}

private let noOpHandler: @convention(c) (Int32) -> Void = { _ in }

/// Runs `body` and puts the calling thread's signal mask back afterwards, so that a worker thread
/// of the test runner is not left with signals blocked.
private func withSignalMaskRestored(_ body: () throws -> Void) rethrows {
    var saved = sigset_t()
    pthread_sigmask(SIG_SETMASK, nil, &saved)
    defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
    try body()
}

private final class SignalStorm: Sendable {
    let finished = Atomic<Bool>(false)
    let sent = Atomic<Int>(0)
}

// Serialized: these tests change process-wide signal dispositions.
@Suite(.serialized) struct PollLoopSignalTests {
    @Test func sighupSentToTheOwnProcessReachesTheHandlerThroughSignalfd() throws {
        try withSignalMaskRestored {
            let loop = PollLoop()
            var received: [Int32] = []
            try loop.handleSignals { [unowned loop] signal in
                received.append(signal)
                loop.stop()
            }
            defer { loop.stopHandlingSignals() }

            var forwarding = sigaction()
            forwarding.__sigaction_handler.sa_handler = forwardToLoopThread
            sigemptyset(&forwarding.sa_mask)
            var previous = sigaction()
            loopThread = pthread_self()
            sigaction(SIGHUP, &forwarding, &previous)
            defer { sigaction(SIGHUP, &previous, nil) }

            #expect(kill(getpid(), SIGHUP) == 0)
            loop.run()
            #expect(received == [SIGHUP])
        }
    }

    @Test func sigtermDeliveredAsACallbackCanStopTheLoop() throws {
        try withSignalMaskRestored {
            let loop = PollLoop()
            var received: [Int32] = []
            try loop.handleSignals([SIGTERM, SIGINT]) { [unowned loop] signal in
                received.append(signal)
                if signal == SIGTERM { loop.stop() }
            }
            defer { loop.stopHandlingSignals() }
            var laterTimerFired = false
            loop.schedule(after: .seconds(3_600)) { laterTimerFired = true }
            // Thread-directed, so no other thread of the test runner can take it; sent from a timer
            // so that it arrives while the loop is running.
            let thread = pthread_self()
            loop.schedule(after: .zero) {
                pthread_kill(thread, SIGINT)
                pthread_kill(thread, SIGTERM)
            }
            loop.run()
            #expect(Set(received) == [SIGINT, SIGTERM])
            #expect(!laterTimerFired)
        }
    }

    @Test func sigpipeIsIgnoredOnceSignalsAreHandled() throws {
        try withSignalMaskRestored {
            let loop = PollLoop()
            try loop.handleSignals([SIGHUP]) { _ in }
            defer { loop.stopHandlingSignals() }
            let pipe = TestPipe()
            pipe.closeReadEnd()
            defer { pipe.closeWriteEnd() }
            // Without SIG_IGN this write would kill the test process.
            let byte: [UInt8] = [1]
            let written = byte.withUnsafeBytes { write(pipe.writeEnd, $0.baseAddress, 1) }
            #expect(written == -1)
            #expect(errno == EPIPE)
        }
    }

    /// Signals that run a handler on the loop thread interrupt poll(2) with EINTR; the loop must
    /// carry on and still fire its timer.
    @Test func interruptedPollCarriesOn() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = noOpHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0   // no SA_RESTART: poll fails with EINTR
        // Left installed: a signal still in flight after the test must not kill the runner.
        sigaction(SIGUSR1, &action, nil)

        let loop = PollLoop()
        let storm = SignalStorm()
        let target = pthread_self()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            while !storm.finished.load(ordering: .acquiring) {
                pthread_kill(target, SIGUSR1)
                storm.sent.add(1, ordering: .relaxed)
                var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
                nanosleep(&pause, nil)   // pacing the storm, not waiting for an outcome
            }
            done.signal()
        }
        thread.start()

        let start = loop.now
        var firedAt: MonotonicInstant?
        // Long enough for the storm to hit the loop while it is blocked in poll.
        loop.schedule(after: .milliseconds(30)) { [unowned loop] in firedAt = loop.now }
        loop.run()
        storm.finished.store(true, ordering: .releasing)
        done.wait()

        #expect(firedAt.map { $0 - start >= .milliseconds(30) } == true)
        #expect(storm.sent.load(ordering: .relaxed) > 0)
    }
}
