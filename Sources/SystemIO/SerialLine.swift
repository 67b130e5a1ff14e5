import CLinux

/// A serial line in raw mode: what an H4 controller on a UART and the serial console both need.
public enum SerialLine {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notASerialDevice(path: String, reason: String)
        case unsupportedBaudRate(path: String, baud: Int)
        case cannotConfigure(path: String, baud: Int, reason: String)

        public var description: String {
            switch self {
            case .notASerialDevice(let path, let reason): "\(path) is not a serial device: \(reason)"
            case .unsupportedBaudRate(let path, let baud): "\(path): unsupported baud rate \(baud)"
            case .cannotConfigure(let path, let baud, let reason): "\(path): cannot set \(baud) baud: \(reason)"
            }
        }
    }

    /// Raw mode at `baud`, 8N1, modem lines ignored; RTS/CTS flow control when asked. Anything already
    /// buffered in either direction is discarded: it belongs to whoever had the line before.
    public static func configureRaw(fd: Int32, path: String, baud: Int, flowControl: Bool) throws(Failure) {
        var tio = termios()
        guard tcgetattr(fd, &tio) == 0 else { throw .notASerialDevice(path: path, reason: SystemError.last("tcgetattr").reason) }
        cfmakeraw(&tio)
        tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if flowControl { tio.c_cflag |= tcflag_t(CRTSCTS) } else { tio.c_cflag &= ~tcflag_t(CRTSCTS) }
        guard let speed = speedConstant(baud) else { throw .unsupportedBaudRate(path: path, baud: baud) }
        guard cfsetispeed(&tio, speed) == 0, cfsetospeed(&tio, speed) == 0, tcsetattr(fd, TCSANOW, &tio) == 0 else {
            throw .cannotConfigure(path: path, baud: baud, reason: SystemError.last("tcsetattr").reason)
        }
        tcflush(fd, TCIOFLUSH)
    }

    /// The termios speed for a baud rate, nil for rates the kernel has no constant for.
    public static func speedConstant(_ baud: Int) -> speed_t? {
        let table: [Int: Int32] = [
            9600: B9600, 19200: B19200, 38400: B38400, 57600: B57600, 115_200: B115200, 230_400: B230400,
            460_800: B460800, 500_000: B500000, 576_000: B576000, 921_600: B921600, 1_000_000: B1000000,
            1_152_000: B1152000, 1_500_000: B1500000, 2_000_000: B2000000, 2_500_000: B2500000,
            3_000_000: B3000000, 3_500_000: B3500000, 4_000_000: B4000000,
        ]
        return table[baud].map { speed_t($0) }
    }
}
