import Store

/// What `AgentControl.storage()` reports: the sighting store's figures, as a value. Named here so that the
/// console, which reaches the badge only through `AgentControl`, never imports the store itself.
public typealias StorageUsage = StoreUsage
