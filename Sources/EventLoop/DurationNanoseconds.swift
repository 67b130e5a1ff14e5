extension Duration {
    /// Whole nanoseconds in this duration, truncated toward zero and clamped to `Int64`
    /// (about ±292 years): for the loop's clock arithmetic and random draws.
    ///
    /// Clamping rather than trapping because a caller asking for "a very long time" (for example
    /// `.seconds(Int64.max)` as "never") should get the farthest representable instant, not a
    /// crash in a process that has to run unattended.
    public var nanosecondsValue: Int64 {
        Int64(clamping: attoseconds / 1_000_000_000)
    }
}
