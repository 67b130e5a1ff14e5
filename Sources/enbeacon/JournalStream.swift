#if canImport(Glibc)
import Glibc
#endif
import EventLoop

/// Whether stderr is systemd's journal (JOURNAL_STREAM names its device and inode): then each log line starts
/// with its syslog priority, `<3>` to `<7>`, which journald reads (SyslogLevelPrefix, on by default) so that
/// `journalctl -p warning` and an operator's alerting see errors as errors.
enum JournalStream {
    static var isStandardError: Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0 else {
            return false
        }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// The prefix journald reads as the line's priority.
    static func prefix(_ level: Logger.Level) -> String {
        switch level {
        case .error: "<3>"
        case .warn: "<4>"
        case .info: "<6>"
        case .debug: "<7>"
        }
    }
}
