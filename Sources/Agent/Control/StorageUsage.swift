import Store

/// What `AgentControl.storage()` and `status` report of the sighting store, as a value of the agent's own: the
/// console reaches the badge only through `AgentControl` and never imports the store (and the board build,
/// Embedded Swift, lets a file use only the members of modules it imports).
package struct StorageUsage: Hashable, Sendable {
    /// Bytes of all segment files on disk.
    package var bytes: Int
    package var segments: Int
    package var records: Int
    /// Sightings flushed to disk, including expired ones whose segment still holds readable ones.
    package var storedSightings: Int
    /// Sightings appended but not yet flushed: what a power cut now would lose.
    package var pendingSightings: Int
    /// First-seen time (Unix seconds) of the oldest readable sighting; nil when there is none.
    package var oldestSighting: Int64?

    init(_ usage: StoreUsage) {
        bytes = usage.bytes
        segments = usage.segments
        records = usage.records
        storedSightings = usage.storedSightings
        pendingSightings = usage.pendingSightings
        oldestSighting = usage.oldestSighting
    }
}
