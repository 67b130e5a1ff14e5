import EventLoop

/// The board file's `indicator.led`, `indicator.buzzer` and `indicator.button`: each a GPIO line
/// (`GPIOLineSpec`) or `virtual`. None set: no indicator, and no GPIO touched.
package struct IndicatorWiring: Equatable, Sendable {
    package enum Line: Equatable, Sendable, CustomStringConvertible {
        case virtual
        case gpio(GPIOLineSpec)

        init(parsing text: String) throws(GPIOLineSpec.ParseError) {
            self = text == "virtual" ? .virtual : .gpio(try GPIOLineSpec(parsing: text))
        }

        package var description: String {
            switch self {
            case .virtual: "virtual"
            case .gpio(let spec): "\(spec)"
            }
        }
    }

    package var led: Line?
    package var buzzer: Line?
    package var button: Line?

    package init(led: Line? = nil, buzzer: Line? = nil, button: Line? = nil) {
        self.led = led
        self.buzzer = buzzer
        self.button = button
    }

    package static let keys = ["indicator.led", "indicator.buzzer", "indicator.button"]
    /// All three virtual: the virtual board's.
    package static let virtual = IndicatorWiring(led: .virtual, buzzer: .virtual, button: .virtual)

    package var isEmpty: Bool { led == nil && buzzer == nil && button == nil }

    /// Sets the line of one of `keys`.
    package mutating func set(_ key: String, _ text: String) throws(GPIOLineSpec.ParseError) {
        let line = try Line(parsing: text)
        switch key {
        case "indicator.led": led = line
        case "indicator.buzzer": buzzer = line
        default: button = line
        }
    }

    /// Requests every configured line: GPIO lines through the character device, virtual ones from
    /// `virtual` (made on first need). A line that cannot be had is left out, with a problem saying why, and
    /// the others still serve; each problem is logged.
    package func open(loop: any EventLoop, log: Logger) -> (lines: IndicatorLines, virtual: VirtualIndicator?) {
        var lines = IndicatorLines()
        var virtual: VirtualIndicator?
        func virtualIndicator() -> VirtualIndicator {
            if let virtual { return virtual }
            let made = VirtualIndicator(loop: loop)
            virtual = made
            return made
        }
        func request(_ what: String, _ key: String, _ spec: GPIOLineSpec, _ direction: GPIOChip.Direction) -> GPIORequestedLine? {
            do { return try GPIORequestedLine.request(spec, direction) } catch {
                let problem = "\(what) (\(key) = \(spec)): \(error)"
                log.error(.indicatorFailed, "indicator: \(problem); the badge runs without its \(what)")
                lines.problems.append(problem)
                return nil
            }
        }
        switch led {
        case .virtual: lines.led = virtualIndicator().led
        case .gpio(let spec): lines.led = request("LED", "indicator.led", spec, .output).map(GPIOOutputLine.init)
        case nil: break
        }
        switch buzzer {
        case .virtual: lines.buzzer = virtualIndicator().buzzer
        case .gpio(let spec): lines.buzzer = request("buzzer", "indicator.buzzer", spec, .output).map(GPIOOutputLine.init)
        case nil: break
        }
        switch button {
        case .virtual: lines.button = virtualIndicator().button
        case .gpio(let spec):
            lines.button = request("button", "indicator.button", spec, .inputWithEdges).map { GPIOButtonLine($0, loop: loop, log: log) }
        case nil: break
        }
        let held = [("LED", lines.led?.location), ("buzzer", lines.buzzer?.location), ("button", lines.button?.location)]
            .compactMap { what, location in location.map { "\(what) \($0)" } }
        if !held.isEmpty { log.info("indicator: " + held.joined(separator: ", ")) }
        return (lines, virtual)
    }
}
