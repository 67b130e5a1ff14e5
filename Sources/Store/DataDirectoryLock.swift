import SystemIO

/// Keeps a second agent out of a data directory: an exclusive, non-blocking flock on `DIR/lock`, held
/// for as long as this object lives.
///
/// flock, not a PID file alone: the kernel drops the lock when the holder dies however it dies (a
/// SIGKILL, a power cut), so a stale lock never keeps the badge from starting. The holder's PID is
/// written into the file only so that the refusal can say who holds it.
public final class DataDirectoryLock {
    public let path: String
    private var descriptor: Int32

    /// Takes the lock on `directory` (which must exist), or says who holds it.
    public init(directory: String) throws(DataDirectoryLockError) {
        path = directory + "/lock"
        do {
            descriptor = try Posix.open(path, .readWrite, [.create], mode: 0o600)
        } catch {
            throw .file(error)
        }
        let locked: Bool
        do { locked = try Posix.tryLockExclusively(descriptor, path: path) } catch {
            DescriptorIO.close(descriptor)
            throw .file(error)
        }
        guard locked else {
            let holder = Self.pid(in: descriptor)
            DescriptorIO.close(descriptor)
            throw .inUse(directory: directory, pid: holder)
        }
        let text = Array("\(Posix.processID)\n".utf8)
        // Best effort and never fsync'd: the PID only makes a refusal's message better.
        if (try? Posix.truncate(descriptor, to: 0)) != nil { try? Posix.write(text, to: descriptor, at: 0, path: path) }
    }

    deinit { release() }

    /// Gives the lock up (also done when the object goes away, or when the process ends).
    public func release() {
        guard descriptor >= 0 else { return }
        DescriptorIO.close(descriptor)
        descriptor = -1
    }

    private static func pid(in descriptor: Int32) -> Int32? {
        guard let bytes = try? Posix.readAll(descriptor, path: "") else { return nil }
        return Int32(String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? "")
    }
}

/// Why a data directory could not be locked.
public enum DataDirectoryLockError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another process holds the lock; its PID when the lock file says.
    case inUse(directory: String, pid: Int32?)
    case file(SystemError)

    public var description: String {
        switch self {
        case .inUse(let directory, let pid?):
            "data directory \(directory) is in use by another enbeacon (pid \(pid)); stop it or use another data directory"
        case .inUse(let directory, nil):
            "data directory \(directory) is in use by another enbeacon; stop it or use another data directory"
        case .file(let error):
            "cannot lock the data directory: \(error)"
        }
    }
}
