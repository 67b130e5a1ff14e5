/// Which keys still under embargo (SPEC §4) an `ExposureDetection` sets aside to be matched later, and how
/// many at most: the bound applies as keys stream in, so a hostile file cannot grow memory with them.
public struct EmbargoHold: Sendable, Equatable {
    /// Keys usable only after this Unix time are not valid yet (published before they could even be used):
    /// counted, never kept.
    public var usableBy: Int64
    /// At most this many keys are set aside; the rest are counted.
    public var capacity: Int

    public init(usableBy: Int64, capacity: Int) {
        self.usableBy = usableBy
        self.capacity = max(0, capacity)
    }

    /// Nothing set aside (`enbeacon match`, which reads its files once and has no later).
    public static let none = EmbargoHold(usableBy: .max, capacity: 0)
}

/// What became of the keys under embargo that a detection saw; each figure counts keys as read (a key
/// listed by two files counts twice where it was left out).
public struct EmbargoCounts: Sendable, Equatable {
    /// Set aside (and not revoked since).
    public var held = 0
    /// Left out: the hold was full.
    public var overCapacity = 0
    /// Left out: usable only after `EmbargoHold.usableBy`.
    public var notValidYet = 0

    public init() {}
}
