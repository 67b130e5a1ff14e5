import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// Where exports are downloaded to: temporary files in the data directory (`keysync-N.download`, 0600),
/// each removed once its keys have been matched or the file refused. Files of a multi-file batch wait here
/// for the rest of their batch. A run cut short by a crash or a power cut can leave some behind: they are
/// removed when the key sync starts (`removeStale`).
///
/// On disk rather than in memory because an export can be tens of megabytes and the badge has little RAM;
/// in the data directory rather than /tmp because /tmp is often a RAM disk on such boards.
final class DownloadFolder {
    static let prefix = "keysync-"
    static let suffix = ".download"

    let directory: String
    private var next = 1

    init(directory: String) { self.directory = directory }

    /// A new empty file, open for writing.
    func create() throws(SystemError) -> (path: String, descriptor: Int32) {
        while true {
            let path = directory + "/" + Self.prefix + String(next) + Self.suffix
            next += 1
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                // A name still taken (another run's file): take the next one.
                if errno == EINTR || errno == EEXIST { continue }
                throw .last("open", path)
            }
            // open's mode is filtered by the umask; downloads hold keys, so 0600 whatever it is.
            guard fchmod(fd, 0o600) == 0 else {
                let error = SystemError.last("fchmod", path)
                close(fd)
                unlink(path)
                throw error
            }
            return (path, fd)
        }
    }

    func remove(_ path: String) {
        unlink(path)
    }

    /// Removes every download left behind; returns how many there were.
    @discardableResult
    func removeStale() -> Int {
        guard let dir = opendir(directory) else { return 0 }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(Self.prefix) && name.hasSuffix(Self.suffix) { names.append(name) }
        }
        for name in names { unlink(directory + "/" + name) }
        return names.count
    }
}
