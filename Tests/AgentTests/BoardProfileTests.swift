@testable import Agent
@testable import AgentBase
import ENCore
import Foundation
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

    @Test("radio.calibration_confidence: 0-3 or its name, lowest unless given")
    func calibrationConfidence() throws {
        #expect(BoardProfile.virtual.calibrationConfidence == .lowest)
        #expect(try BoardProfile(parsing: "transport = user:hci0", defaultName: "pi").calibrationConfidence == .lowest)
        for (value, expected) in [("0", CalibrationConfidence.lowest), ("1", .low), ("2", .medium), ("3", .high),
                                  ("medium", .medium), ("high", .high)] {
            let board = try BoardProfile(parsing: "transport = user:hci0\nradio.calibration_confidence = \(value)", defaultName: "b")
            #expect(board.calibrationConfidence == expected, "\(value)")
        }
        for value in ["4", "-1", "best", ""] {
            #expect(throws: ConfigurationError(line: 1, "radio.calibration_confidence: expected 0-3 (lowest, low, medium, high), got '\(value)'")) {
                try BoardProfile(parsing: "radio.calibration_confidence = \(value)", defaultName: "b")
            }
        }
    }

    @Test("every board file shipped in Board/ parses")
    func shippedBoardFilesParse() throws {
        let board = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Board")
        for name in ["virtual", "raspberry-pi", "usb-uart-dongle"] {
            let text = try String(contentsOf: board.appendingPathComponent("\(name).conf"), encoding: .utf8)
            let profile = try BoardProfile(parsing: text, defaultName: name)
            #expect(profile.name == name && profile.calibrationConfidence == .lowest)
        }
    }

    @Test("a console that is not stdin, none or a device is refused with its line")
    func badConsole() {
        #expect(throws: ConfigurationError(line: 2, "console: expected stdin, none or DEVICE[,BAUD] such as /dev/ttyS0,115200, got 'ttyS0'")) {
            try BoardProfile(parsing: "transport = virtual\nconsole = ttyS0", defaultName: "v")
        }
    }
}
