import EventLoop
import SystemIO

/// A line found and requested: where it is, in words (`gpiochip0:17 (GPIO17)`), and its descriptor.
struct GPIORequestedLine {
    let location: String
    let fd: Int32

    /// Finds the line `spec` names (on its chip, or on every chip for a bare name) and requests it for
    /// enbeacon, held until the descriptor is closed.
    static func request(_ spec: GPIOLineSpec, _ direction: GPIOChip.Direction) throws(GPIOError) -> GPIORequestedLine {
        let chip: GPIOChip
        let offset: UInt32
        switch (spec.chip, spec.line) {
        case (let chipName?, .offset(let n)):
            chip = try open(chipName)
            offset = n
        case (let chipName?, .name(let name)):
            chip = try open(chipName)
            guard let n = chip.line(named: name) else { throw .noLineNamed(name, searched: [chip.name]) }
            offset = n
        case (nil, .name(let name)):
            (chip, offset) = try find(name)
        case (nil, .offset):
            preconditionFailure("GPIOLineSpec gives a line number with its chip")
        }
        let fd = try chip.request(offset, direction, activeLow: spec.activeLow, bias: spec.bias)
        let name = (try? chip.lineInfo(offset))?.name ?? ""
        return GPIORequestedLine(location: "\(chip.name):\(offset)" + (name.isEmpty ? "" : " (\(name))"), fd: fd)
    }

    /// `gpiochipN`, a path, or a chip's label.
    private static func open(_ chip: String) throws(GPIOError) -> GPIOChip {
        let isPath = chip.hasPrefix("/")
        if isPath || chip.hasPrefix("gpiochip") && Int(chip.dropFirst("gpiochip".count)) != nil {
            do { return try GPIOChip(path: isPath ? chip : "/dev/" + chip) } catch {
                if case .system(let e) = error, e.code == Errno.noEntry { throw .noSuchChip(chip, chips: GPIOChip.inventory()) }
                throw error
            }
        }
        for path in GPIOChip.paths() {
            if let candidate = try? GPIOChip(path: path), candidate.label == chip { return candidate }
        }
        throw .noSuchChip(chip, chips: GPIOChip.inventory())
    }

    /// The first chip with a line called `name`. A chip that cannot be opened is passed over, but if the line
    /// is found nowhere and some chip refused us, that refusal is the better answer.
    private static func find(_ name: String) throws(GPIOError) -> (GPIOChip, UInt32) {
        var searched: [String] = []
        var refusal: GPIOError?
        for path in GPIOChip.paths() {
            do {
                let chip = try GPIOChip(path: path)
                if let offset = chip.line(named: name) { return (chip, offset) }
                searched.append(chip.name)
            } catch {
                refusal = refusal ?? error
            }
        }
        if let refusal { throw refusal }
        throw .noLineNamed(name, searched: searched)
    }
}

/// An LED or buzzer on a GPIO output line, requested for enbeacon until `release`.
final class GPIOOutputLine: IndicatorOutput {
    let location: String
    private var fd: Int32

    init(_ line: GPIORequestedLine) {
        location = line.location
        fd = line.fd
    }

    deinit { release() }

    func set(_ on: Bool) throws(SystemError) {
        guard fd >= 0 else { return }
        try GPIOCharacterDevice.setValue(fd, active: on, location: location)
    }

    func release() {
        guard fd >= 0 else { return }
        DescriptorIO.close(fd)
        fd = -1
    }
}

/// A button on a GPIO input line with edge events, read on the loop as they come.
final class GPIOButtonLine: IndicatorButton {
    let location: String
    private var fd: Int32
    private let loop: any EventLoop
    private let log: Logger
    private var watch: WatchHandle?

    init(_ line: GPIORequestedLine, loop: any EventLoop, log: Logger) {
        location = line.location
        fd = line.fd
        self.loop = loop
        self.log = log
    }

    deinit { release() }

    func start(_ edge: @escaping (Bool, MonotonicInstant) -> Void) {
        guard fd >= 0, watch == nil else { return }
        watch = loop.watch(fd: fd, for: .readable) { _ in
            self.readEvents(edge)
        }
    }

    /// Reads every queued edge event. The kernel stamps each with CLOCK_MONOTONIC, the loop's clock, so a
    /// press's length does not depend on how soon the loop came round to read it.
    private func readEvents(_ edge: (Bool, MonotonicInstant) -> Void) {
        let (edges, outcome) = GPIOCharacterDevice.readEdges(fd)
        switch outcome {
        case .transferred:
            for event in edges { edge(event.isRising, MonotonicInstant(nanoseconds: event.monotonicNanoseconds)) }
        case .wouldBlock: break
        case .endOfFile: giveUp("end of file")
        case .failed(let code): giveUp(SystemError(call: "read", code: code).reason)
        }
    }

    /// A line that cannot be read would be reported ready forever: stop watching it, once, saying why.
    private func giveUp(_ reason: String) {
        log.error(.indicatorFailed, "indicator: the button (\(location)) cannot be read (\(reason)); presses are ignored from now on")
        stopWatching()
    }

    private func stopWatching() {
        if let watch { loop.unwatch(watch) }
        watch = nil
    }

    func release() {
        stopWatching()
        guard fd >= 0 else { return }
        DescriptorIO.close(fd)
        fd = -1
    }
}
