import CLinux
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// One open GPIO chip (`/dev/gpiochipN`) of the Linux character device, uAPI v2: what it is, what its lines
/// are called and who holds them, and requests for single lines. The chip's descriptor is only needed to
/// request; a requested line lives on its own descriptor.
final class GPIOChip {
    let path: String
    /// `gpiochip0`.
    let name: String
    /// The driver's label, `pinctrl-bcm2711`, `gpio-sim.0-node0`.
    let label: String
    let lineCount: Int
    private let fd: Int32

    /// The consumer name every request carries: what `gpioinfo` and the chip's line info show.
    static let consumer = "enbeacon"

    init(path: String) throws(GPIOError) {
        let fd: Int32
        do { fd = try Posix.open(path, O_RDWR) } catch { throw GPIOError.from(error, path: path) }
        var info = gpiochip_info()
        guard enb_gpio_chip_info(fd, &info) == 0 else {
            let error = SystemError.last("GPIO_GET_CHIPINFO_IOCTL", path)
            close(fd)
            throw GPIOError.from(error, path: path)
        }
        self.fd = fd
        self.path = path
        name = Self.string(info.name)
        label = Self.string(info.label)
        lineCount = Int(info.lines)
    }

    deinit { close(fd) }

    /// `gpiochip0 [pinctrl-bcm2711, 58 lines]`, for messages.
    var summary: String { "\(name) [\(label), \(lineCount) lines]" }

    struct LineInfo {
        var name: String
        /// Who holds the line, empty if nobody (or a holder that gave no name).
        var consumer: String
        var isUsed: Bool
    }

    func lineInfo(_ offset: UInt32) throws(GPIOError) -> LineInfo {
        var info = gpio_v2_line_info()
        guard enb_gpio_line_info(fd, offset, &info) == 0 else { throw .system(.last("GPIO_V2_GET_LINEINFO_IOCTL", path)) }
        return LineInfo(name: Self.string(info.name), consumer: Self.string(info.consumer),
                        isUsed: info.flags & UInt64(GPIO_V2_LINE_FLAG_USED.rawValue) != 0)
    }

    /// The line called `name` on this chip, if any.
    func line(named name: String) -> UInt32? {
        (0..<UInt32(lineCount)).first { (try? lineInfo($0))?.name == name }
    }

    enum Direction {
        /// Starts inactive.
        case output
        /// With rising and falling edge events.
        case inputWithEdges
    }

    /// Requests line `offset` for enbeacon; returns the line's descriptor (close it to release the line).
    func request(_ offset: UInt32, _ direction: Direction, activeLow: Bool, bias: GPIOLineSpec.Bias?) throws(GPIOError) -> Int32 {
        guard offset < lineCount else { throw .noSuchLine(chip: name, lines: lineCount, offset: offset) }
        var flags: UInt64 = switch direction {
        case .output: UInt64(GPIO_V2_LINE_FLAG_OUTPUT.rawValue)
        case .inputWithEdges:
            UInt64(GPIO_V2_LINE_FLAG_INPUT.rawValue) | UInt64(GPIO_V2_LINE_FLAG_EDGE_RISING.rawValue)
                | UInt64(GPIO_V2_LINE_FLAG_EDGE_FALLING.rawValue)
        }
        if activeLow { flags |= UInt64(GPIO_V2_LINE_FLAG_ACTIVE_LOW.rawValue) }
        switch bias {
        case .pullUp: flags |= UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_UP.rawValue)
        case .pullDown: flags |= UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN.rawValue)
        case .disabled: flags |= UInt64(GPIO_V2_LINE_FLAG_BIAS_DISABLED.rawValue)
        case nil: break
        }
        let lineFD = enb_gpio_request_line(fd, offset, flags, 0, Self.consumer)
        guard lineFD >= 0 else {
            let error = SystemError.last("GPIO_V2_GET_LINE_IOCTL", path)
            if error.code == EBUSY {
                let info = try? lineInfo(offset)
                throw .busy(chip: name, offset: offset, name: info?.name ?? "", consumer: info?.consumer ?? "")
            }
            throw GPIOError.from(error, path: path)
        }
        return lineFD
    }

    /// The GPIO chips of this machine, `/dev/gpiochip0` first.
    static func paths() -> [String] {
        guard let directory = opendir("/dev") else { return [] }
        defer { closedir(directory) }
        var found: [(Int, String)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.hasPrefix("gpiochip"), let number = Int(name.dropFirst("gpiochip".count)) else { continue }
            found.append((number, "/dev/" + name))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// What `paths()` names, each as `summary` says it (or its path, if it cannot be opened).
    static func inventory() -> [String] {
        paths().map { path in (try? GPIOChip(path: path))?.summary ?? path }
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}
