@testable import Agent
@testable import AgentBase
import Foundation
import Testing
import TestSupport

@Suite struct ConfigurationTests {
    static let sample = """
        # key server of the test region
        keyserver.style = google
        keyserver.index_url = https://keys.example.org/v1/index.txt   # the CDN
        keyserver.public_key = /etc/enbeacon/keyserver.pem
        keyserver.key_id = 999

        sync.interval_hours = 6
        risk.threshold = 512
        notify.command = logger -t enbeacon exposure
        """

    @Test func validFileGivesTypedValues() throws {
        let configuration = try Configuration(parsing: Self.sample)
        #expect(configuration[.keyServerStyle] == "google")
        #expect(configuration.optional(.keyServerIndexURL) == "https://keys.example.org/v1/index.txt")
        #expect(configuration.integer(.syncIntervalHours) == 6)
        #expect(configuration.integer(.riskThreshold) == 512)
        #expect(configuration[.notifyCommand] == "logger -t enbeacon exposure")
        #expect(configuration.source(of: .syncIntervalHours) == .file)
        // Defaults for everything the file leaves out.
        #expect(configuration.integer(.syncMaxFileBytes) == 256 << 20)
        #expect(configuration[.keyServerKeyVersion] == "v1")
        #expect(configuration.optional(.keyServerCAFile) == nil)
        #expect(configuration.source(of: .matchBatchKeys) == .default)
        #expect(configuration.value(of: "sync.interval_hours") == "6")
        #expect(configuration.value(of: "no.such.key") == nil)
    }

    @Test func everyDefaultPassesItsOwnCheck() {
        for key in ConfigurationKey.all {
            #expect(key.accepts(key.defaultValue), "\(key.name) default '\(key.defaultValue)'")
            // A key that falls back (a key server's own limit) is empty by default; what is then in force is
            // its fallback's value, which must pass this key's kind.
            if let fallback = key.fallback.flatMap(ConfigurationKey.named) {
                #expect(key.kind.accepts(fallback.defaultValue), "\(key.name) falls back to \(fallback.name)")
            }
            #expect(!key.help.isEmpty && !key.help.contains("\n"))
            #expect(ConfigurationKey.named(key.name) == key)
        }
        #expect(Set(ConfigurationKey.all.map(\.name)).count == ConfigurationKey.all.count)
    }

    @Test func unknownKeyIsNamedWithItsLine() {
        #expect {
            try Configuration(parsing: "sync.interval_hours = 4\nsync.intervall_hours = 5\n")
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix("line 2: unknown key 'sync.intervall_hours'") && text.contains("sync.interval_hours")
        }
    }

    @Test(arguments: [
        ("sync.interval_hours = 0", "line 1: sync.interval_hours: expected 1-168, got '0'"),
        ("sync.interval_hours = four", "line 1: sync.interval_hours: expected 1-168, got 'four'"),
        ("risk.threshold = 4097", "line 1: risk.threshold: expected 0-4096, got '4097'"),
        ("keyserver.style = apple", "line 1: keyserver.style: expected google | cwa | folder, got 'apple'"),
        ("keyserver.index_url = ftp://x/index.txt",
         "line 1: keyserver.index_url: expected an http://, https:// or file:// URL, or empty, got 'ftp://x/index.txt'"),
        ("keyserver.country = de", "line 1: keyserver.country: expected 2 or 3 capital letters, got 'de'"),
        ("match.batch_keys = 0", "line 1: match.batch_keys: expected 1-100000, got '0'"),
        ("sync.max_file_bytes = 1024", "line 1: sync.max_file_bytes: expected 65536-2147483647, got '1024'"),
        ("keyserver.key_id = 2 6 2",
         "line 1: keyserver.key_id: expected letters, digits, '-', '_' and '.', or empty, got '2 6 2'"),
        ("just words", "line 1: expected 'key = value', got 'just words'"),
    ])
    func badValueNamesKeyAndRange(line: String, message: String) {
        #expect {
            try Configuration(parsing: line)
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test func keyGivenTwiceIsAnError() {
        #expect(throws: ConfigurationError("risk.threshold is given twice (lines 1 and 3)", at: "line 3")) {
            try Configuration(parsing: "risk.threshold = 1\n\nrisk.threshold = 2\n")
        }
    }

    @Test func setOverridesWinForThisRunOnly() throws {
        var configuration = try Configuration(parsing: Self.sample)
        try configuration.override("sync.interval_hours=1")
        try configuration.override("keyserver.style = folder")
        try configuration.override("notify.command=")
        #expect(configuration.integer(.syncIntervalHours) == 1)
        #expect(configuration[.keyServerStyle] == "folder")
        #expect(configuration.optional(.notifyCommand) == nil)
        #expect(configuration.source(of: .syncIntervalHours) == .override)
        // The file's value is still known, for write-back.
        #expect(configuration.fileValues["sync.interval_hours"] == "6")
    }

    @Test func refusedOverrideChangesNothing() throws {
        var configuration = try Configuration(parsing: Self.sample)
        let before = configuration
        #expect(throws: ConfigurationError("sync.interval_hours: expected 1-168, got '200'", at: "--set")) {
            try configuration.override("sync.interval_hours=200")
        }
        #expect(throws: ConfigurationError("expected KEY=VALUE, got 'sync.interval_hours'", at: "--set")) {
            try configuration.override("sync.interval_hours")
        }
        #expect {
            try configuration.override("colour=blue")
        } throws: { "\($0)".hasPrefix("--set: unknown key 'colour'") }
        #expect {
            try configuration.set("risk.threshold", to: "-1")
        } throws: { "\($0)" == "risk.threshold: expected 0-4096, got '-1'" }
        #expect(configuration == before)
    }

    @Test func writeBackReplacesOneLineAndKeepsTheRest() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/enbeacon.conf"
        try Self.sample.write(toFile: path, atomically: false, encoding: .utf8)
        let file = ConfigurationFile(path: path)
        var configuration = try file.load()
        try configuration.override("sync.interval_hours=2")

        configuration = try file.write("risk.threshold", "900", into: configuration)
        configuration = try file.write("match.batch_keys", "50", into: configuration)
        configuration = try file.write("keyserver.index_url", "https://cdn.example.org/index.txt", into: configuration)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expected = Self.sample
            .replacingOccurrences(of: "risk.threshold = 512", with: "risk.threshold = 900")
            .replacingOccurrences(of: "keyserver.index_url = https://keys.example.org/v1/index.txt   # the CDN",
                                  with: "keyserver.index_url = https://cdn.example.org/index.txt   # the CDN")
            + "\nmatch.batch_keys = 50\n"
        #expect(text == expected)
        // The override stayed out of the file but stays in force.
        #expect(!text.contains("interval_hours = 2"))
        #expect(configuration.integer(.syncIntervalHours) == 2)
        #expect(configuration.integer(.riskThreshold) == 900)
        #expect(try file.load().integer(.matchBatchKeys) == 50)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func refusedWriteLeavesFileAndConfigurationAlone() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/enbeacon.conf"
        try Self.sample.write(toFile: path, atomically: false, encoding: .utf8)
        let file = ConfigurationFile(path: path)
        let configuration = try file.load()
        #expect {
            _ = try file.write("sync.interval_hours", "0", into: configuration)
        } throws: { "\($0)" == "sync.interval_hours: expected 1-168, got '0'" }
        #expect {
            _ = try file.write("sync.interval", "3", into: configuration)
        } throws: { "\($0)".hasPrefix("unknown key 'sync.interval'") }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.sample)
    }

    @Test func writeBackCreatesAMissingFile() throws {
        let folder = TemporaryDirectory()
        let file = ConfigurationFile(path: folder.path + "/new.conf")
        #expect(throws: ConfigurationError.self) { try file.load() }
        let configuration = try file.write("keyserver.style", "cwa", into: Configuration())
        #expect(configuration[.keyServerStyle] == "cwa")
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "keyserver.style = cwa\n")
    }

    @Test func loadErrorsNameTheFileAndLine() throws {
        let folder = TemporaryDirectory()
        let path = folder.path + "/bad.conf"
        try "# header\nsync.interval_hours = 999\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect {
            try ConfigurationFile(path: path).load()
        } throws: { "\($0)" == "\(path) line 2: sync.interval_hours: expected 1-168, got '999'" }
    }
}
