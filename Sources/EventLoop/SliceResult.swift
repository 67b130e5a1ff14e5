/// What one step of a `SlicedJob` reports back.
public enum SliceResult: Hashable, Sendable {
    /// There is more to do: call the step again (now or in a later slice).
    case more
    /// The job is complete.
    case done
}
