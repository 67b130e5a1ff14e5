import ENCore
/// How much the sighting store holds, for `status` and the benchmark.
public struct StoreUsage: Hashable, Sendable {
    /// Bytes of all segment files on disk.
    public var bytes: Int
    public var segments: Int
    public var records: Int
    /// Sightings flushed to disk, including expired ones whose segment still holds readable ones.
    public var storedSightings: Int
    /// Sightings appended but not yet flushed: what a power cut now would lose.
    public var pendingSightings: Int
    /// Sightings refused because too many were pending (flushes kept failing).
    public var droppedSightings: Int
    /// First-seen time (Unix seconds) of the oldest readable sighting; nil when there is none.
    public var oldestSighting: Int64?
}
