import EventLoop
@testable import Indicators
import Testing

/// The board file's indicator lines: the syntax, its errors, and what a machine without the chip says.
@Suite struct GPIOLineSpecTests {
    @Test("CHIP:LINE by number or name, a bare line name, and the options")
    func parses() throws {
        #expect(try GPIOLineSpec(parsing: "gpiochip0:17") == GPIOLineSpec(chip: "gpiochip0", line: .offset(17)))
        #expect(try GPIOLineSpec(parsing: "GPIO17") == GPIOLineSpec(chip: nil, line: .name("GPIO17")))
        #expect(try GPIOLineSpec(parsing: "/dev/gpiochip1:LED0, active-low") ==
                GPIOLineSpec(chip: "/dev/gpiochip1", line: .name("LED0"), activeLow: true))
        #expect(try GPIOLineSpec(parsing: "pinctrl-bcm2711:27,active-low,pull-up") ==
                GPIOLineSpec(chip: "pinctrl-bcm2711", line: .offset(27), activeLow: true, bias: .pullUp))
        #expect(try GPIOLineSpec(parsing: "button,pull-down").bias == .pullDown)
        #expect(try GPIOLineSpec(parsing: "gpiochip0:3,bias-disabled").description == "gpiochip0:3,bias-disabled")
        #expect(try IndicatorWiring.Line(parsing: "virtual") == .virtual)
    }

    @Test("what is wrong with a line spec is said, with the syntax")
    func refuses() {
        let cases: [(String, String)] = [
            ("", "expected [CHIP:]LINE[,active-low][,pull-up|pull-down|bias-disabled] such as gpiochip0:17 or GPIO17, got ''"),
            ("17", "a line number needs its chip, such as gpiochip0:17; a line name (GPIO17) is looked for on every chip"),
            ("gpiochip0:", "expected CHIP:LINE such as gpiochip0:17, got 'gpiochip0:'"),
            ("gpiochip0:99999999999", "line number 99999999999 is too large"),
            ("GPIO17,active-high", "unknown option 'active-high' (known: active-low, pull-up, pull-down, bias-disabled)"),
            ("GPIO17,pull-up,pull-down", "give one bias: pull-up or pull-down"),
        ]
        for (text, message) in cases {
            #expect(throws: GPIOLineSpec.ParseError(description: message), "\(text)") { try GPIOLineSpec(parsing: text) }
        }
    }

    @Test("lines that cannot be had are left out, each with a clear problem")
    func unavailableLines() throws {
        var lines: [String] = []
        let log = Logger(level: .info) { _, line in lines.append(line) }
        let wiring = IndicatorWiring(led: .gpio(try GPIOLineSpec(parsing: "gpiochip97:0")),
                                     buzzer: .gpio(try GPIOLineSpec(parsing: "/dev/null:0")),
                                     button: .gpio(try GPIOLineSpec(parsing: "/dev/gpiochip98:2")))
        let (opened, virtual) = wiring.open(loop: VirtualLoop(), log: log)
        #expect(opened.isEmpty && virtual == nil)
        // "(this machine has none)" here; a machine with chips lists them.
        #expect(opened.problems.count == 3)
        #expect(opened.problems.first?.hasPrefix("LED (indicator.led = gpiochip97:0): no GPIO chip gpiochip97 (this machine has ") == true)
        #expect(opened.problems.dropFirst().first == "buzzer (indicator.buzzer = /dev/null:0): /dev/null is not a GPIO chip")
        #expect(opened.problems.last?.hasPrefix("button (indicator.button = /dev/gpiochip98:2): no GPIO chip /dev/gpiochip98 (") == true)
        // The lines that can be had still serve.
        let partial = IndicatorWiring(led: .gpio(try GPIOLineSpec(parsing: "gpiochip97:0")), button: .virtual)
            .open(loop: VirtualLoop(), log: .silent)
        #expect(partial.lines.led == nil && partial.lines.button === partial.virtual?.button && partial.lines.problems.count == 1)
        #expect(lines.contains { $0.hasPrefix("indicator: LED (indicator.led = gpiochip97:0): no GPIO chip gpiochip97") &&
                                 $0.hasSuffix("; the badge runs without its LED event=indicator_failed") })
    }
}
