import SystemIO

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
        do { fd = try Posix.open(path, .readWrite) } catch { throw GPIOError.from(error, path: path) }
        let info: GPIOCharacterDevice.ChipInfo
        do { info = try GPIOCharacterDevice.chipInfo(fd, path: path) } catch {
            DescriptorIO.close(fd)
            throw GPIOError.from(error, path: path)
        }
        self.fd = fd
        self.path = path
        name = info.name
        label = info.label
        lineCount = info.lineCount
    }

    deinit { DescriptorIO.close(fd) }

    /// `gpiochip0 [pinctrl-bcm2711, 58 lines]`, for messages.
    var summary: String { "\(name) [\(label), \(lineCount) lines]" }

    func lineInfo(_ offset: UInt32) throws(GPIOError) -> GPIOCharacterDevice.LineInfo {
        do { return try GPIOCharacterDevice.lineInfo(fd, offset: offset, path: path) } catch { throw .system(error) }
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
        var flags: GPIOCharacterDevice.LineFlags = switch direction {
        case .output: .output
        case .inputWithEdges: [.input, .risingEdge, .fallingEdge]
        }
        if activeLow { flags.insert(.activeLow) }
        switch bias {
        case .pullUp: flags.insert(.pullUp)
        case .pullDown: flags.insert(.pullDown)
        case .disabled: flags.insert(.biasDisabled)
        case nil: break
        }
        do {
            return try GPIOCharacterDevice.requestLine(fd, offset: offset, flags: flags, consumer: Self.consumer, path: path)
        } catch {
            if error.code == Errno.busy {
                let info = try? lineInfo(offset)
                throw .busy(chip: name, offset: offset, name: info?.name ?? "", consumer: info?.consumer ?? "")
            }
            throw GPIOError.from(error, path: path)
        }
    }

    /// The GPIO chips of this machine, `/dev/gpiochip0` first.
    static func paths() -> [String] { GPIOCharacterDevice.chipPaths() }

    /// What `paths()` names, each as `summary` says it (or its path, if it cannot be opened).
    static func inventory() -> [String] {
        paths().map { path in (try? GPIOChip(path: path))?.summary ?? path }
    }

}
