@testable import Agent
@testable import AgentBase
import Foundation
import Testing
import TestSupport

/// The config file's syntax as editors on any system write it, and `config set` writing values back so
/// that they read back the same.
@Suite struct ConfigurationSyntaxTests {
    @Test func crlfLineEndsAndAByteOrderMarkAreAccepted() throws {
        let text = "\u{FEFF}# written on Windows\r\nkeyserver.style = cwa\r\nrisk.threshold = 7\r\n\r\nsync.interval_hours = 2"
        let configuration = try Configuration(parsing: text)
        #expect(configuration[.keyServerStyle] == "cwa")
        #expect(configuration.integer(.riskThreshold) == 7)
        #expect(configuration.integer(.syncIntervalHours) == 2)
        #expect {
            try Configuration(parsing: "risk.threshold = 7\r\nrisk.threshold = 8\r\n")
        } throws: { "\($0)" == "line 2: risk.threshold is given twice (lines 1 and 2)" }
    }

    @Test func aHashStartsACommentOnlyAtTheStartOfALineOrAfterASpace() throws {
        let configuration = try Configuration(parsing: """
            # a comment
              # an indented comment
            keyserver.index_url = https://keys.example.org/index.txt#frag   # the CDN
            keyserver.base_url = https://keys.example.org/#/exports\t# tab before this one
            notify.command = logger -t enbeacon#1
            """)
        #expect(configuration[.keyServerIndexURL] == "https://keys.example.org/index.txt#frag")
        #expect(configuration[.keyServerBaseURL] == "https://keys.example.org/#/exports")
        #expect(configuration[.notifyCommand] == "logger -t enbeacon#1")
    }

    @Test func valuesMayBeQuoted() throws {
        let configuration = try Configuration(parsing: #"""
            notify.command = "logger -t enbeacon \"exposure #1\" \\ done"   # quoted: a space before #
            risk.config = '/etc/enbeacon/risk config.json'
            keyserver.key_id = ""
            """#)
        #expect(configuration[.notifyCommand] == #"logger -t enbeacon "exposure #1" \ done"#)
        #expect(configuration[.riskConfig] == "/etc/enbeacon/risk config.json")
        #expect(configuration[.keyServerKeyID] == "")
    }

    @Test(arguments: [
        (#"notify.command = "echo hi"#, "line 1: notify.command: a quote is not closed"),
        (#"notify.command = "echo" hi"#, "line 1: notify.command: unexpected text after the quoted value"),
        (##"notify.command = "echo"#hi"##, "line 1: notify.command: unexpected text after the quoted value"),
        ("just words # and a comment", "line 1: expected 'key = value', got 'just words'"),
        ("   = 5", "line 1: missing key before '='"),
        // Found by the config fuzz target: a stray CR before `#` made a key that `config set` wrote back as a comment.
        ("\r#\u{0}nc keyserver.key_id = x", "line 1: '#?nc keyserver.key_id' is not a key: letters, digits, '.', '_' and '-' only"),
        ("risk threshold = 3", "line 1: 'risk threshold' is not a key: letters, digits, '.', '_' and '-' only"),
    ])
    func quotingMistakesNameTheLine(text: String, message: String) {
        #expect { try Configuration(parsing: text) } throws: { "\($0)" == message }
    }

    /// Every value `config set` accepts reads back the same from the file it writes.
    @Test(arguments: [
        ("notify.command", "logger -t enbeacon exposure #1"),
        ("notify.command", #"sh -c 'echo "a" \ b'"#),
        ("notify.command", "#!/bin/sh"),
        ("notify.command", #""quoted" at the start"#),
        ("keyserver.index_url", "https://keys.example.org/index.txt#frag"),
        ("risk.config", "/etc/enbeacon/risk config.json"),
        ("notify.command", ""),
    ])
    func valuesWrittenBackReadBackTheSame(key: String, value: String) throws {
        let folder = TemporaryDirectory()
        let file = ConfigurationFile(path: folder.path + "/enbeacon.conf")
        try "# badge 7\nrisk.threshold = 3 # low\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        let written = try file.write(key, value, into: try file.load())
        #expect(written.value(of: key) == value)
        let reloaded = try file.load()
        #expect(reloaded.value(of: key) == value, "\((try? String(contentsOfFile: file.path, encoding: .utf8)) ?? "")")
        #expect(reloaded.integer(.riskThreshold) == 3)
    }

    @Test func aCommentAfterAnEmptyValueStaysAComment() throws {
        let folder = TemporaryDirectory()
        let file = ConfigurationFile(path: folder.path + "/enbeacon.conf")
        try "notify.command =   # none yet\n".write(toFile: file.path, atomically: false, encoding: .utf8)
        _ = try file.write("notify.command", "logger x", into: try file.load())
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "notify.command = logger x # none yet\n")
        #expect(try file.load()[.notifyCommand] == "logger x")
    }

    /// Found by Tools/fuzz (target config): a URL ending in a second CR (`\r\r\n`, a broken line-end conversion)
    /// was accepted, but writing the line back lost that CR, so the file read back another value. A URL with a
    /// control character in it is refused, naming the line, like one with a space.
    @Test func aURLWithAControlCharacterIsRefused() throws {
        for text in ["\nkeyserver.index_url = https://keys.example/index.txt\r\r\n", "keyserver.base_url = https://a\u{1B}[2J/\n"] {
            #expect(throws: ConfigurationError.self) { try Configuration(parsing: text) }
        }
        var configuration = Configuration()
        #expect(throws: ConfigurationError.self) { try configuration.set("keyserver.index_url", to: "https://a\tb/index.txt") }
        try configuration.set("keyserver.index_url", to: "https://keys.example/index.txt#x")
        #expect(configuration[.keyServerIndexURL] == "https://keys.example/index.txt#x")
    }

    @Test func writingBackKeepsCRLFTheByteOrderMarkAndTheComment() throws {
        let folder = TemporaryDirectory()
        let file = ConfigurationFile(path: folder.path + "/enbeacon.conf")
        let original = "\u{FEFF}# badge 7\r\nkeyserver.index_url = https://a.example/index.txt#x   # the CDN\r\nrisk.threshold = 3\r\n"
        try original.write(toFile: file.path, atomically: false, encoding: .utf8)
        var configuration = try file.load()
        configuration = try file.write("keyserver.index_url", "https://b.example/index.txt#y", into: configuration)
        configuration = try file.write("notify.command", "logger #1", into: configuration)
        // The bytes, since Foundation's String(contentsOfFile:) drops a byte order mark.
        let text = String(decoding: try #require(FileManager.default.contents(atPath: file.path)), as: UTF8.self)
        #expect(text == "\u{FEFF}# badge 7\r\nkeyserver.index_url = https://b.example/index.txt#y   # the CDN\r\n"
                + "risk.threshold = 3\r\nnotify.command = \"logger #1\"\r\n")
        let reloaded = try file.load()
        #expect(reloaded[.keyServerIndexURL] == "https://b.example/index.txt#y")
        #expect(reloaded[.notifyCommand] == "logger #1")
        #expect(reloaded.integer(.riskThreshold) == 3)
    }
}
