import SystemIO

/// The real file system minus fsync: the baseline of `bench store`, showing what durability costs.
/// Never used by the agent.
final class UnsyncedFileSystem: PosixFileSystem {
    override func synchronizeFile(_ path: String) throws(SystemError) {}
    override func synchronizeDirectory(_ path: String) throws(SystemError) {}
}
