/// Which end of the log a read starts from.
public enum ReadOrder: Sendable {
    case oldestFirst
    case newestFirst
}

/// What a visitor tells an iteration after each item: go on, or stop reading (no more segments are read).
public enum VisitDecision: Sendable {
    case proceed
    case stop
}

extension ReadOrder {
    /// The indices of a collection of `count` items in this order.
    func indices(_ count: Int) -> StrideTo<Int> {
        self == .oldestFirst ? stride(from: 0, to: count, by: 1) : stride(from: count - 1, to: -1, by: -1)
    }
}
