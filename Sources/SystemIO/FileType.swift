import CLinux

/// The file-type bits of a mode, by name. C defines S_IFMT and the types as int macros, which Swift imports as
/// Int32 beside st_mode's mode_t; the Glibc overlay converted them, and the board build has no overlay.
enum FileType {
    static let mask = mode_t(S_IFMT)
    static let regular = mode_t(S_IFREG)
    static let directory = mode_t(S_IFDIR)
    static let socket = mode_t(S_IFSOCK)
    static let fifo = mode_t(S_IFIFO)
    static let characterDevice = mode_t(S_IFCHR)
    static let blockDevice = mode_t(S_IFBLK)

    /// The type bits of `status`, to compare with the constants above.
    static func of(_ status: stat) -> mode_t { status.st_mode & mask }
}
