@testable import Agent
@testable import AgentBase
@testable import Indicators
import Testing

/// The board file's indicator keys, read into the indicator's wiring.
extension BoardProfileTests {
    @Test("a board file's indicator keys; none means no indicator")
    func boardKeys() throws {
        let board = try BoardProfile(parsing: """
            transport = user:hci0
            indicator.led = gpiochip0:17
            indicator.buzzer = BUZZER,active-low
            indicator.button = gpiochip0:27,active-low,pull-up
            """, defaultName: "pi")
        #expect(board.indicators.led == .gpio(GPIOLineSpec(chip: "gpiochip0", line: .offset(17))))
        #expect(board.indicators.buzzer == .gpio(GPIOLineSpec(chip: nil, line: .name("BUZZER"), activeLow: true)))
        #expect(board.indicators.button == .gpio(GPIOLineSpec(chip: "gpiochip0", line: .offset(27), activeLow: true, bias: .pullUp)))
        #expect(try BoardProfile(parsing: "transport = user:hci0", defaultName: "pi").indicators.isEmpty)
        #expect(BoardProfile.virtual.indicators == .virtual)
        #expect(throws: ConfigurationError(line: 2, "indicator.led: a line number needs its chip, such as gpiochip0:5; "
                                    + "a line name (GPIO5) is looked for on every chip")) {
            try BoardProfile(parsing: "transport = virtual\nindicator.led = 5", defaultName: "v")
        }
    }
}
