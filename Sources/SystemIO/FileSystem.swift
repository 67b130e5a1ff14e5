import CLinux
/// The file operations the agent's durable state goes through (the ring log of sightings, the key file),
/// behind a protocol so tests and simulations can count every fsync and inject failures (a full card, a
/// failing write) without touching a real device.
///
/// Operations take paths, not descriptors: the log opens its active segment once per flush, which on
/// a one-a-minute cadence costs nothing and leaves no descriptor state to get wrong.
public protocol FileSystem: AnyObject {
    /// Replaces the file with `bytes`, 0600, so that a power cut leaves the old or the new contents, never
    /// a mix (see `AtomicFile`).
    func replaceAtomically(_ path: String, with bytes: [UInt8]) throws(SystemError)
    /// Creates the directory (and missing parents) 0700, durably; tightens an existing one to 0700.
    func makeDirectory(_ path: String) throws(SystemError)
    /// The names of the entries in `directory` (not `.` and `..`).
    func fileNames(in directory: String) throws(SystemError) -> [String]
    /// The whole file. A block the device cannot read comes back as zeros, which no record verifies
    /// against: a bad sector costs the records in it, never the opening of the store.
    func contents(of path: String) throws(SystemError) -> [UInt8]
    /// Creates an empty file, 0600, failing if it already exists. Not durable until the directory is synchronized.
    func createFile(_ path: String) throws(SystemError)
    /// Writes `bytes` at `offset` without synchronizing.
    func write(_ bytes: [UInt8], to path: String, at offset: Int) throws(SystemError)
    /// Makes the file's data (and its size) durable: one fdatasync.
    func synchronizeFile(_ path: String) throws(SystemError)
    /// Makes entries created in or removed from `directory` durable: one fsync on the directory.
    func synchronizeDirectory(_ path: String) throws(SystemError)
    func truncateFile(_ path: String, to length: Int) throws(SystemError)
    func removeFile(_ path: String) throws(SystemError)
}
