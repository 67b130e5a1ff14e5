import Agent
import HCI
import Testing

@Suite struct BoardProfileTests {
    @Test("a board file names its transport, clock and console")
    func parsesEveryKey() throws {
        let board = try BoardProfile(parsing: """
            # a badge with a serial console
            name = badge
            transport = user:hci0
            clock = ntp
            console = /dev/ttyS0,115200
            """, defaultName: "file")
        #expect(board.name == "badge")
        #expect(board.transport == .userChannel(adapter: 0))
        #expect(board.clock == .ntp)
        #expect(board.console == .serial(path: "/dev/ttyS0", baud: 115_200))
        #expect(try BoardProfile(parsing: "transport = virtual", defaultName: "v").console == nil)
    }

    @Test("a console that is not stdin, none or a device is refused with its line")
    func badConsole() {
        #expect(throws: ConfigError(line: 2, "console: expected stdin, none or DEVICE[,BAUD] such as /dev/ttyS0,115200, got 'ttyS0'")) {
            try BoardProfile(parsing: "transport = virtual\nconsole = ttyS0", defaultName: "v")
        }
    }
}
