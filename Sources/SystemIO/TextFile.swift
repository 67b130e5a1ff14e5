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
        String(decoding: try ReadOnlyFile(path: path).readAll(limit: limit), as: UTF8.self)
    }

    /// The text, or nil whatever the reason (a missing state file, say): for callers that need no words.
    public static func read(_ path: String, limit: Int = 1 << 20) -> String? {
        try? contents(of: path, limit: limit)
    }

    /// Checks that `path` is a regular file of at most `limit` bytes that can be opened for reading, as
    /// `contents` would, without reading it: for a file another library opens later (libcurl's CA file).
    public static func check(_ path: String, limit: Int = 1 << 20) throws(TextFileError) {
        let file = try ReadOnlyFile(path: path)
        guard file.byteCount <= limit else { throw .tooLarge(path: path, size: file.byteCount, limit: limit) }
    }
}
