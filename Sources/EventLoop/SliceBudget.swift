/// How much work a `SlicedJob` may do before it yields to the loop.
public enum SliceBudget: Hashable, Sendable {
    /// Stop once this much loop time has passed since the slice began. Right for the real loop,
    /// whose clock moves while code runs.
    case duration(Duration)
    /// Stop after this many calls of the job's step. Right for virtual time, where the clock stands
    /// still inside a callback and a time budget would never run out.
    case iterations(Int)
}
