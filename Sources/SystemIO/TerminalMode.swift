import CLinux

/// A terminal's settings saved before the console changes them, to be put back when it ends: a
/// terminal left in raw mode is unusable to the person who gets it back.
public struct TerminalMode {
    public let fd: Int32
    private let saved: termios

    /// Saves the settings of `fd`; nil when it is not a terminal.
    public init?(saving fd: Int32) {
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { return nil }
        self.fd = fd
        saved = settings
    }

    /// Raw input (bytes as typed: no line buffering, no echo, Ctrl-C and Ctrl-D as bytes, no XON/XOFF),
    /// keeping output processing so that log lines written to the same terminal still start at column 0.
    public func makeRawInput() throws(SystemError) {
        var settings = saved
        cfmakeraw(&settings)  // glibc's also sets VMIN 1, VTIME 0: a read returns as soon as one byte is there
        settings.c_oflag = saved.c_oflag
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else { throw .last("tcsetattr") }
    }

    public func restore() {
        var settings = saved
        _ = tcsetattr(fd, TCSANOW, &settings)
    }

    /// The terminal's width in columns, when it knows it (a serial line does not).
    public static func columns(of fd: Int32) -> Int? {
        var size = winsize()
        let result = withUnsafeMutablePointer(to: &size) { enb_ioctl_pointer(fd, UInt(TIOCGWINSZ), $0) }
        guard result == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}
