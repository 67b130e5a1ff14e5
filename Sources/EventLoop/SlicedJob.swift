/// A long computation (matching two million keys, say) run cooperatively: its step is called
/// repeatedly until the slice budget is spent, then the job yields by rescheduling itself with zero
/// delay, so descriptors and timers get their turn between slices.
///
/// The loop keeps a running job alive through its pending slice, so a caller that never needs to
/// cancel may drop the returned job. The step closure is called at least once per slice and
/// should do a small unit of work (microseconds, not milliseconds) for the budget to mean anything.
public final class SlicedJob {
    public enum State: Hashable, Sendable {
        case running
        case finished
        case cancelled
    }

    public private(set) var state: State = .running
    /// Slices run so far.
    public private(set) var slices = 0

    private let loop: any EventLoop
    private let budget: SliceBudget
    // Released when the job ends, breaking any cycle through an owner the closures capture.
    private var step: (() -> SliceResult)?
    private var onFinished: (() -> Void)?
    private var pendingSlice: TimerHandle?

    private init(loop: any EventLoop, budget: SliceBudget, step: @escaping () -> SliceResult, onFinished: @escaping () -> Void) {
        self.loop = loop
        self.budget = budget
        self.step = step
        self.onFinished = onFinished
    }

    /// Starts a job whose first slice runs after the work already due, never inside the caller.
    ///
    /// - Parameters:
    ///   - budget: per-slice budget; by default the loop's (a few milliseconds on the real loop,
    ///     a fixed number of steps in virtual time).
    ///   - step: does one unit of work and says whether more remains.
    ///   - onFinished: called once, when `step` returns `.done`; not called on cancellation.
    @discardableResult
    public static func start(
        on loop: any EventLoop,
        budget: SliceBudget? = nil,
        step: @escaping () -> SliceResult,
        onFinished: @escaping () -> Void = {}
    ) -> SlicedJob {
        let job = SlicedJob(loop: loop, budget: budget ?? loop.defaultSliceBudget, step: step, onFinished: onFinished)
        job.scheduleSlice()
        return job
    }

    /// Stops the job before its next step; safe from anywhere, including its own step.
    public func cancel() {
        guard state == .running else { return }
        state = .cancelled
        if let pendingSlice { loop.cancel(pendingSlice) }
        release()
    }

    private func scheduleSlice() {
        pendingSlice = loop.schedule(after: .zero) { [self] in runSlice() }
    }

    private func runSlice() {
        pendingSlice = nil
        guard state == .running, let step else { return }
        slices += 1
        let sliceStart = loop.now
        var iterations = 0
        while true {
            if step() == .done {
                finish()
                return
            }
            // The step may have cancelled the job.
            guard state == .running else { return }
            iterations += 1
            if isBudgetSpent(iterations: iterations, since: sliceStart) { break }
        }
        scheduleSlice()
    }

    private func isBudgetSpent(iterations: Int, since sliceStart: MonotonicInstant) -> Bool {
        switch budget {
        case .iterations(let limit): iterations >= limit
        case .duration(let limit): loop.now - sliceStart >= limit
        }
    }

    private func finish() {
        state = .finished
        let onFinished = onFinished
        release()
        onFinished?()
    }

    private func release() {
        step = nil
        onFinished = nil
    }
}
