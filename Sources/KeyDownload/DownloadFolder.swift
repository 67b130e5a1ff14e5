import SystemIO

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
            let fd: Int32
            do { fd = try Posix.open(path, .writeOnly, [.create, .exclusive]) } catch {
                // A name still taken (another run's file): take the next one.
                if error.code == Errno.exists { continue }
                throw error
            }
            // open's mode is filtered by the umask; downloads hold keys, so 0600 whatever it is.
            do { try Posix.changeMode(fd, to: 0o600, path: path) } catch {
                DescriptorIO.close(fd)
                Posix.removeName(path)
                throw error
            }
            return (path, fd)
        }
    }

    func remove(_ path: String) {
        Posix.removeName(path)
    }

    /// Removes every download left behind; returns how many there were.
    @discardableResult
    func removeStale() -> Int {
        let names = ((try? Posix.fileNames(in: directory)) ?? []).filter {
            $0.hasPrefix(Self.prefix) && $0.hasSuffix(Self.suffix)
        }
        for name in names { Posix.removeName(directory + "/" + name) }
        return names.count
    }
}
