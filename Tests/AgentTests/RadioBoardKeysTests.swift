@testable import Agent
@testable import AgentBase
import Testing
import TestSupport

/// The board's radio figures: `radio.tx_power` (dBm at the antenna, what the metadata says) and
/// `radio.rssi_correction` (dB added to every RSSI measured), the model's figure in the board profile and this
/// unit's own, measured by `radio calibrate`, in the config file.
@Suite struct RadioBoardKeysTests {
    @Test func aBoardDeclaresItsTXPowerAtTheAntennaAndItsRSSICorrection() throws {
        let board = try BoardProfile(parsing: "radio.tx_power = -12\nradio.rssi_correction = 5", defaultName: "b")
        #expect(board.txPower == -12 && board.rssiCorrection == 5)
        // Neither given: the controller's reported TX power, and no correction declared.
        let plain = try BoardProfile(parsing: "transport = user:hci0", defaultName: "b")
        #expect(plain.txPower == nil && plain.rssiCorrection == nil)
    }

    @Test func outOfRangeFiguresAreRefusedNamingTheKeyAndItsRange() {
        for (line, message) in [("radio.tx_power = 21", "radio.tx_power: expected -60 to 20 (dBm at the antenna), got '21'"),
                                ("radio.tx_power = loud", "radio.tx_power: expected -60 to 20 (dBm at the antenna), got 'loud'"),
                                ("radio.rssi_correction = 41", "radio.rssi_correction: expected -40 to 40 (dB), got '41'")] {
            #expect(throws: ConfigurationError(line: 1, message)) { try BoardProfile(parsing: line, defaultName: "b") }
        }
    }

    /// The board's correction is in force until the config file gives this unit's, which `config list` then
    /// shows as the file's; a `--set` still wins for one run.
    @Test func theConfigFilesCorrectionTakesThePlaceOfTheBoardsOwn() throws {
        let key = ConfigurationKey.radioRSSICorrection
        var c = Configuration()
        #expect(c[key] == "0" && c.source(of: key) == .default)
        try c.setBoardValue(key.name, to: "4")
        #expect(c.integer(key) == 4 && c.source(of: key) == .board)
        try c.set(key.name, to: "-3")
        #expect(c.integer(key) == -3 && c.source(of: key) == .file)
        try c.override("radio.rssi_correction=2")
        #expect(c.integer(key) == 2 && c.source(of: key) == .override)
        #expect(throws: ConfigurationError.self) { try c.setBoardValue(key.name, to: "99") }
    }

    /// SIGHUP reads the file again; the board's figure is no part of the file and must survive it.
    @Test func reloadingTheConfigFileKeepsTheBoardsCorrection() throws {
        let dir = TemporaryDirectory()
        let file = ConfigurationFile(path: dir.path + "/enbeacon.conf")
        var initial = Configuration()
        try initial.setBoardValue("radio.rssi_correction", to: "6")
        _ = try file.write("sync.max_files", "10", into: initial)
        var reread = try file.load()
        #expect(reread.source(of: .radioRSSICorrection) == .default)
        reread.keepBoardValues(of: initial)
        #expect(reread.integer(.radioRSSICorrection) == 6 && reread.integer(.syncMaxFiles) == 10)
    }
}
