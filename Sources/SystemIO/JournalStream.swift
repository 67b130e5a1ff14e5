import CLinux

/// Whether stderr is systemd's journal: JOURNAL_STREAM names the device and inode of the stream systemd
/// connected, and stderr is that stream (not a pipe a child redirected it to).
public enum JournalStream {
    public static var isStandardError: Bool {
        guard let value = Posix.environment("JOURNAL_STREAM") else { return false }
        let parts = value.split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0 else {
            return false
        }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
