import CLinux

/// Reads a small text file whole (the config file, board profiles, the files configuration names, key and
/// state files) without ever blocking the loop on a wrong path.
///
/// Only regular files are read: the file is opened non-blocking (so a FIFO nobody writes, or a device,
/// cannot freeze the agent in `open`), checked with fstat before a byte is read, and refused when it is
/// larger than `limit` rather than cut short. Every refusal says why, for the operator who named the path.
public enum TextFile {
    /// The text of the regular file at `path`; invalid UTF-8 is replaced, not refused.
    public static func contents(of path: String, limit: Int = 1 << 20) throws(TextFileError) -> String {
        let fd = try openChecked(path, limit: limit)
        defer { close(fd) }
        do {
            return String(decoding: try Posix.readAll(fd, path: path), as: UTF8.self)
        } catch {
            throw .system(error)
        }
    }

    /// The text, or nil whatever the reason (a missing state file, say): for callers that need no words.
    public static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        try? contents(of: path, limit: limit)
    }

    /// Checks that `path` is a regular file of at most `limit` bytes that can be opened for reading, as
    /// `contents` would, without reading it: for a file another library opens later (libcurl's CA file).
    public static func check(_ path: String, limit: Int = 1 << 20) throws(TextFileError) {
        close(try openChecked(path, limit: limit))
    }

    private static func openChecked(_ path: String, limit: Int) throws(TextFileError) -> Int32 {
        let fd: Int32
        do { fd = try Posix.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) } catch { throw .system(error) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = SystemError.last("fstat", path)
            close(fd)
            throw .system(error)
        }
        let kind = FileType.of(status)
        guard kind == FileType.regular else {
            close(fd)
            throw .notRegular(path: path, kind: TextFileError.name(ofFileType: kind))
        }
        guard status.st_size <= limit else {
            close(fd)
            throw .tooLarge(path: path, size: Int(status.st_size), limit: limit)
        }
        return fd
    }
}
