import CLinux

/// The Linux GPIO character device, uAPI v2 (`/dev/gpiochipN`), as plain Swift values: the kernel's structs,
/// ioctl numbers and flag macros stay on this side of the system edge (the C shims fill and pass them).
public enum GPIOCharacterDevice {
    public struct ChipInfo: Equatable, Sendable {
        /// `gpiochip0`.
        public var name: String
        /// The driver's label, `pinctrl-bcm2711`.
        public var label: String
        public var lineCount: Int
    }

    public struct LineInfo: Equatable, Sendable {
        public var name: String
        /// Who holds the line, empty if nobody (or a holder that gave no name).
        public var consumer: String
        public var isUsed: Bool
    }

    /// GPIO_V2_LINE_FLAG_*: what a request asks of a line.
    public struct LineFlags: OptionSet, Sendable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let input = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_INPUT.rawValue))
        public static let output = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_OUTPUT.rawValue))
        public static let activeLow = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_ACTIVE_LOW.rawValue))
        public static let risingEdge = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_EDGE_RISING.rawValue))
        public static let fallingEdge = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_EDGE_FALLING.rawValue))
        public static let pullUp = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_UP.rawValue))
        public static let pullDown = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_DOWN.rawValue))
        public static let biasDisabled = LineFlags(rawValue: UInt64(GPIO_V2_LINE_FLAG_BIAS_DISABLED.rawValue))
    }

    /// One edge a requested input line saw, stamped by the kernel with CLOCK_MONOTONIC.
    public struct Edge: Equatable, Sendable {
        public var isRising: Bool
        public var monotonicNanoseconds: Int64
    }

    /// The ioctl names errors carry, so callers can tell which request failed.
    public static let chipInfoCall = "GPIO_GET_CHIPINFO_IOCTL"

    public static func chipInfo(_ chip: Int32, path: String) throws(SystemError) -> ChipInfo {
        var info = gpiochip_info()
        guard enb_gpio_chip_info(chip, &info) == 0 else { throw .last(chipInfoCall, path) }
        return ChipInfo(name: string(info.name), label: string(info.label), lineCount: Int(info.lines))
    }

    public static func lineInfo(_ chip: Int32, offset: UInt32, path: String) throws(SystemError) -> LineInfo {
        var info = gpio_v2_line_info()
        guard enb_gpio_line_info(chip, offset, &info) == 0 else { throw .last("GPIO_V2_GET_LINEINFO_IOCTL", path) }
        return LineInfo(name: string(info.name), consumer: string(info.consumer),
                        isUsed: info.flags & UInt64(GPIO_V2_LINE_FLAG_USED.rawValue) != 0)
    }

    /// Requests line `offset` for `consumer`; an output starts inactive. Returns the line's descriptor, which
    /// holds the line until it is closed.
    public static func requestLine(_ chip: Int32, offset: UInt32, flags: LineFlags, consumer: String,
                                   path: String) throws(SystemError) -> Int32 {
        let line = enb_gpio_request_line(chip, offset, flags.rawValue, 0, consumer)
        guard line >= 0 else { throw .last("GPIO_V2_GET_LINE_IOCTL", path) }
        return line
    }

    /// Drives a requested output line (active-low is the kernel's business).
    public static func setValue(_ line: Int32, active: Bool, location: String) throws(SystemError) {
        guard enb_gpio_set_value(line, active ? 1 : 0) == 0 else { throw .last("GPIO_V2_LINE_SET_VALUES_IOCTL", location) }
    }

    /// Reads the edge events queued on a requested input line: at most 16 per call.
    public static func readEdges(_ line: Int32) -> (edges: [Edge], outcome: DescriptorIO.Outcome) {
        var events = [gpio_v2_line_event](repeating: gpio_v2_line_event(), count: 16)
        let size = MemoryLayout<gpio_v2_line_event>.stride
        let outcome = events.withUnsafeMutableBytes { DescriptorIO.read(line, into: $0) }
        guard case .transferred(let count) = outcome else { return ([], outcome) }
        let edges = events.prefix(count / size).map { event in
            Edge(isRising: event.id == UInt32(GPIO_V2_LINE_EVENT_RISING_EDGE.rawValue),
                 monotonicNanoseconds: Int64(bitPattern: event.timestamp_ns))
        }
        return (edges, outcome)
    }

    /// The `gpiochipN` devices under /dev, by number.
    public static func chipPaths() -> [String] {
        let names = (try? PosixFileSystem().fileNames(in: "/dev")) ?? []
        let chips = names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix("gpiochip"), let number = Int(name.dropFirst("gpiochip".count)) else { return nil }
            return (number, "/dev/" + name)
        }
        return chips.sorted { $0.0 < $1.0 }.map { $0.1 }
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}
