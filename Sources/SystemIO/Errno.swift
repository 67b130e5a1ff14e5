import CLinux

/// The errno values the rest of the code decides on, by name, so that only this module sees the C library.
public enum Errno {
    /// The value the last failing call in this thread left.
    public static var current: Int32 { errno }

    public static let interrupted = EINTR
    public static let wouldBlock = EAGAIN
    public static let outOfMemory = ENOMEM
    public static let badDescriptor = EBADF
    public static let brokenPipe = EPIPE
    public static let notPermitted = EPERM
    public static let invalidArgument = EINVAL
    public static let busy = EBUSY
    public static let noSpace = ENOSPC
    public static let accessDenied = EACCES
    public static let noDevice = ENODEV
    public static let noEntry = ENOENT
    /// An ioctl the device does not know (a tty asked for GPIO chip info).
    public static let notATerminalOrDevice = ENOTTY
    public static let exists = EEXIST
    public static let notDirectory = ENOTDIR
    public static let nameTooLong = ENAMETOOLONG
    public static let connectionRefused = ECONNREFUSED
    public static let addressFamilyNotSupported = EAFNOSUPPORT
    /// Linux's ERFKILL: the radio is blocked by rfkill.
    public static let rfkilled: Int32 = 132
    /// Linux's EUSERS, which the HCI user channel answers for an adapter another channel holds.
    public static let tooManyUsers: Int32 = 87
}

/// errno under the name the calls of this module expect: the C map reaches the thread's value through shims,
/// since the macro behind it is not visible to Swift without the Glibc overlay, which the board build lacks.
var errno: Int32 {
    get { enb_errno() }
    set { enb_set_errno(newValue) }
}
