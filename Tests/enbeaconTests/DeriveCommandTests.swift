import Testing

@Suite struct DeriveCommandTests {
    static let tek = "75c734c6dd1a782de7a965da5eb93125"

    @Test func printsTheOfficialVector() throws {
        let r = try Enbeacon.run(["derive", "--tek", Self.tek, "--interval", "2642976", "--metadata", "40080000", "--count", "144"])
        #expect(r.status == 0)
        #expect(r.stderr.isEmpty)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 144)
        #expect(lines.first == "2642976 8be6cd371c5c891604bfbe49df845096 72033874")
        #expect(lines.last == "2643119 f431b62ecf443102ce4ed0407de54bd4 1215e57e")
    }

    @Test func defaultsToOneIntervalAndVersionOneMetadata() throws {
        let r = try Enbeacon.run(["derive", "--tek", Self.tek.uppercased(), "--interval=2642976"])
        #expect(r.status == 0)
        // Same RPI; AEM differs from the official one only in the TX-power byte (0 instead of 8).
        #expect(r.stdout == "2642976 8be6cd371c5c891604bfbe49df845096 720b3874\n")
    }

    @Test func jsonIsOneDocument() throws {
        let r = try Enbeacon.run(["derive", "--tek", Self.tek, "--interval", "2642976", "--count", "2", "--json"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("{\"rpik\":\"185ad91db69ec7dd048960f1f3ba6175\",\"aemk\":\"d57c46af7a1d83965b9bed8bd152936a\""))
        #expect(r.stdout.contains("{\"interval\":2642977,\"rpi\":\"3c9a1de5dd6b02afa7fded7b570b3e56\""))
        #expect(r.stdout.split(separator: "\n").count == 1)
    }

    /// Each bad command line, and the argument its one-line error must name.
    @Test(arguments: [
        (["derive", "--interval", "1"], "missing --tek"),
        (["derive", "--tek", tek], "missing --interval"),
        (["derive", "--tek", "75c7", "--interval", "1"], "--tek: expected 32 hex digits"),
        (["derive", "--tek", tek + "00", "--interval", "1"], "--tek: expected 32 hex digits"),
        (["derive", "--tek", "zz" + tek.dropFirst(2), "--interval", "1"], "--tek: expected 32 hex digits"),
        (["derive", "--tek", tek, "--interval", "-1"], "--interval: expected an ENIntervalNumber"),
        (["derive", "--tek", tek, "--interval", "4294967296"], "--interval: expected an ENIntervalNumber"),
        (["derive", "--tek", tek, "--interval", "ten"], "--interval: expected an ENIntervalNumber"),
        (["derive", "--tek", tek, "--interval", "1", "--count", "0"], "--count: expected"),
        (["derive", "--tek", tek, "--interval", "4294967295", "--count", "2"], "--count: 2 intervals"),
        (["derive", "--tek", tek, "--interval", "1", "--metadata", "400800"], "--metadata: expected 8 hex digits"),
        (["derive", "--tek", tek, "--interval", "1", "--metadata", "4008000000"], "--metadata: expected 8 hex digits"),
        (["derive", "--tek", tek, "--interval"], "--interval needs a value"),
        (["derive", "--tek", tek, "--interval", "1", "--frequency", "2"], "unknown option --frequency"),
        (["derive", "--tek", tek, "--tek", tek, "--interval", "1"], "--tek given 2 times"),
        (["frobnicate"], "unknown command 'frobnicate'"),
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String], message: String) throws {
        let r = try Enbeacon.run(arguments)
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderrLines.count == 1)
        #expect(r.stderr.contains(message), "stderr was: \(r.stderr)")
    }

    @Test func helpAndVersion() throws {
        let version = try Enbeacon.run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("enbeacon "))
        let help = try Enbeacon.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("derive"))
        let deriveHelp = try Enbeacon.run(["derive", "--help"])
        #expect(deriveHelp.status == 0 && deriveHelp.stdout.contains("--interval ENIN"))
    }
}
