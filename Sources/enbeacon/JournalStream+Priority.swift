import EventLoop
import SystemIO

/// Under the journal each log line starts with its syslog priority, `<3>` to `<7>`, which journald reads
/// (SyslogLevelPrefix, on by default) so that `journalctl -p warning` and an operator's alerting see errors
/// as errors.
extension JournalStream {
    static func prefix(_ level: Logger.Level) -> String {
        switch level {
        case .error: "<3>"
        case .warn: "<4>"
        case .info: "<6>"
        case .debug: "<7>"
        }
    }
}
