import CLinux

/// Free space of the file system holding a path (statvfs): what a card has left for sightings and keys.
public enum FileSystemSpace {
    /// Bytes an unprivileged writer may still use, and the file system's size; nil when `path` cannot be read.
    public static func of(_ path: String) -> (available: Int64, total: Int64)? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let block = Int64(info.f_frsize)
        return (Int64(info.f_bavail) * block, Int64(info.f_blocks) * block)
    }
}
