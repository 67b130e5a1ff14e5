@testable import Console
import ENCore
import Testing
@testable import Agent

/// The command table: words, names, options, help, errors, consent and completion, without any I/O.
@Suite struct ConsoleCommandTableTests {
    /// A table like the agent's, whose handlers record what they were given.
    final class Fixture {
        let table = CommandTable()
        var requests: [ConsoleRequest] = []

        init() {
            let record: (String) -> (ConsoleRequest) -> ConsoleReply = { answer in
                { [unowned self] request in
                    requests.append(request)
                    return .text(answer)
                }
            }
            table.register(ConsoleCommand("status", summary: "how the badge is", handler: record("fine")))
            table.register(ConsoleCommand("keys", summary: "own keys", flags: ["--reveal"], consent: .withFlag("--reveal"),
                                          handler: record("keys")))
            table.register(ConsoleCommand("keys export", summary: "keys to publish", consent: .always, handler: record("exported")))
            table.register(ConsoleCommand("config get", summary: "one value", usage: "config get KEY", arguments: 1...1,
                                          completion: .firstArgument { ["name", "scan_interval"] }, handler: record("value")))
            table.register(ConsoleCommand("config set", summary: "set one value", usage: "config set KEY VALUE", arguments: 2...2,
                                          handler: record("set")))
            table.register(ConsoleCommand("sightings", summary: "stored sightings", options: ["--since", "--limit"],
                                          handler: record("sightings")))
            table.register(ConsoleCommand("limit", summary: "checks its own value", arguments: 1...1) { request in
                Int(request.arguments[0]) == nil ? .usage("not a number") : .text("ok")
            })
            table.register(ConsoleCommand("later", summary: "answers later") { _ in
                let reply = ConsoleDeferredReply()
                reply.resolve(.usage(nil))
                return .deferred(reply)
            })
        }

        /// The text of a reply, or "error: …" for an error.
        func run(_ line: String, on channel: ConsoleChannel = .pipe) -> String {
            switch table.execute(line, channel: channel) {
            case .nothing: return "(nothing)"
            case .confirm(let question): return "(ask) " + question.prompt
            case .reply(let reply, _): return Self.describe(reply)
            }
        }

        static func describe(_ reply: ConsoleReply) -> String {
            switch reply {
            case .text(let text): return text
            case .json(let json): return "json: " + json
            case .error(let message): return "error: " + message
            case .failure(let text, let json): return "failure: " + text + " / " + json
            case .usage(let detail): return "usage?! \(detail ?? "")"
            case .stream: return "(stream)"
            case .deferred(let later):
                var answer = "(deferred)"
                later.attach { answer = describe($0) }
                return answer
            case .endStream(let text): return "(end) " + text
            }
        }
    }

    // MARK: Words

    @Test func wordsSplitOnSpacesWithQuotesAndEscapes() throws {
        #expect(try CommandLineWords.split("  config   set\tname  x ") == ["config", "set", "name", "x"])
        #expect(try CommandLineWords.split(#"config set name "Room 12""#) == ["config", "set", "name", "Room 12"])
        #expect(try CommandLineWords.split(#"a 'b "c" d' e\ f"#) == ["a", #"b "c" d"#, "e f"])
        #expect(try CommandLineWords.split(#""say \"hi\" \\ \n""#) == [#"say "hi" \ \n"#])
        #expect(try CommandLineWords.split(#"x "" ''"#) == ["x", "", ""])
        #expect(throws: CommandLineWords.SyntaxError.self) { try CommandLineWords.split(#"config set "open"#) }
        #expect(throws: CommandLineWords.SyntaxError.self) { try CommandLineWords.split(#"trailing\"#) }
    }

    @Test func quotedWordsSplitBackUnchanged() throws {
        let words = ["config", "set", "name", "Room 12", "", #"a"b\c"#, "it's", "ünïcode", "--limit=5", "tab\there"]
        let line = CommandLineWords.join(words)
        #expect(try CommandLineWords.split(line) == words)
        #expect(CommandLineWords.quote("plain-word_1.2:3") == "plain-word_1.2:3")
    }

    // MARK: Names and errors

    @Test func oneAndTwoWordCommandsAreMatchedLongestFirst() {
        let fixture = Fixture()
        #expect(fixture.run("keys") == "keys")
        #expect(fixture.run("keys export --yes") == "exported")
        #expect(fixture.requests.map(\.command) == ["keys", "keys export"])
        #expect(fixture.requests.map(\.channel) == [.pipe, .pipe])
    }

    @Test func anUnknownCommandIsNamedWithTheClosestKnownOne() {
        let fixture = Fixture()
        #expect(fixture.run("staus") == "error: unknown command 'staus'; did you mean 'status'?")
        #expect(fixture.run("keys exprot") == "error: unknown command 'keys exprot'; did you mean 'keys export'?")
        #expect(fixture.run("config sett a b") == "error: unknown command 'config sett'; did you mean 'config set'?")
        #expect(fixture.run("xyzzyplugh").hasPrefix("error: unknown command 'xyzzyplugh'; the closest is '"))
    }

    @Test func noiseInAnUnknownCommandIsShownSafelyAndShort() {
        let fixture = Fixture()
        let answer = fixture.run("\u{1B}[31m" + String(repeating: "x", count: 5000))
        #expect(!answer.contains("\u{1B}"))
        #expect(answer.count < 200)
    }

    @Test func aGroupNameAloneAnswersWithTheGroupsUsage() {
        #expect(Fixture().run("config") == "error: usage: config get KEY | config set KEY VALUE")
    }

    @Test func wrongArgumentsAnswerWithTheUsageLine() {
        let fixture = Fixture()
        #expect(fixture.run("config set name") == "error: usage: config set KEY VALUE")
        #expect(fixture.run("status extra") == "error: usage: status")
        #expect(fixture.run("sightings --lmit 5") == "error: usage: sightings [--since VALUE] [--limit VALUE] (unknown option --lmit)")
        #expect(fixture.run("sightings --limit") == "error: usage: sightings [--since VALUE] [--limit VALUE] (--limit needs a value)")
        #expect(fixture.run("sightings --limit 1 --limit 2").hasSuffix("(--limit given twice)"))
        #expect(fixture.run("keys --reveal=1").hasSuffix("(--reveal takes no value)"))
        #expect(fixture.run("limit abc") == "error: usage: limit (not a number)")
        #expect(fixture.run("later") == "error: usage: later")
        #expect(fixture.requests.isEmpty)
    }

    @Test func optionsFlagsAndPositionalsReachTheHandlerParsed() {
        let fixture = Fixture()
        // A text answer to --json comes wrapped in a JSON document.
        #expect(fixture.run("sightings --since 2h --limit=20 --json") == #"json: {"message":"sightings"}"#)
        #expect(fixture.run(#"config set name "Room 12""#) == "set")
        #expect(fixture.run("config set -- --odd value") == "set")
        let request = fixture.requests[0]
        #expect(request.option("--since") == "2h")
        #expect(request.option("--limit") == "20")
        #expect(request.json)
        #expect(!request.yes)
        #expect(fixture.requests[1].arguments == ["name", "Room 12"])
        #expect(fixture.requests[2].arguments == ["--odd", "value"])
    }

    @Test func blankLinesAndCommentsAreNothing() {
        let fixture = Fixture()
        #expect(fixture.run("") == "(nothing)")
        #expect(fixture.run("   \t") == "(nothing)")
        #expect(fixture.run("# a comment") == "(nothing)")
    }

    @Test func anUnreadableLineIsAnError() {
        #expect(Fixture().run(#"config set name "Room"#) == "error: cannot read the line: a quote is not closed")
    }

    @Test func errorsKnowWhetherJSONWasAskedFor() {
        let table = Fixture().table
        guard case .reply(.error, let json) = table.execute("bogus --json", channel: .socket) else {
            Issue.record("expected an error")
            return
        }
        #expect(json)
        #expect(JSONText.error("a \"b\"\n") == #"{"error":"a \"b\"\n"}"#)
        #expect(JSONText.quoted("\u{1}") == #""\u0001""#)
    }

    // MARK: Help

    @Test func helpListsEveryCommandWithItsSummary() {
        let help = Fixture().run("help")
        #expect(help.hasPrefix("commands (help COMMAND explains one"))
        for name in ["config get", "config set", "help", "keys", "keys export", "sightings", "status"] {
            #expect(help.contains("\n  \(name) "), "\(name)")
        }
        #expect(help.contains("  status       how the badge is"))
    }

    @Test func helpExplainsOneCommandAGroupOrSaysItIsUnknown() {
        let fixture = Fixture()
        #expect(fixture.run("help config set") == "usage: config set KEY VALUE\nset one value")
        #expect(fixture.run("status --help") == "usage: status\nhow the badge is")
        #expect(fixture.run("help keys export") == "usage: keys export [--yes]\nkeys to publish\n" + ConsentRule.summary)
        #expect(fixture.run("help config").hasPrefix("config commands"))
        #expect(fixture.run("help stauts") == "error: unknown command 'stauts'; did you mean 'status'?")
        #expect(fixture.run("help --json").hasPrefix(#"json: {"commands":[{"name":"config get","summary":"one value","usage":"config get KEY","consent":"never"}"#))
        #expect(fixture.run("help keys --json") == #"json: {"name":"keys","summary":"own keys","usage":"keys [--reveal]","help":"","consent":"--reveal"}"#)
    }

    // MARK: Consent

    @Test func consentIsAskedOnATerminalEvenWithYes() {
        let fixture = Fixture()
        for line in ["keys export", "keys export --yes", "keys --reveal", "keys --reveal --yes"] {
            guard case .confirm(let question) = fixture.table.execute(line, channel: .terminal) else {
                Issue.record("\(line): no question")
                continue
            }
            #expect(question.prompt.hasSuffix("type yes to confirm: "))
            guard case .reply(.error(let refusal), _) = question.answer("y") else {
                Issue.record("\(line): not refused")
                continue
            }
            #expect(refusal.hasSuffix("not confirmed, nothing done"))
            guard case .reply(.text(let text), _) = question.answer(" yes ") else {
                Issue.record("\(line): not run")
                continue
            }
            #expect(["exported", "keys"].contains(text))
        }
        #expect(fixture.requests.count == 4)
        #expect(fixture.run("keys", on: .terminal) == "keys")
    }

    @Test func consentOnThePipeOrSocketIsYesOrARefusal() {
        let fixture = Fixture()
        for channel in [ConsoleChannel.pipe, .socket] {
            #expect(fixture.run("keys export", on: channel) == "error: keys export needs consent: add --yes (on a terminal the console asks instead)")
            #expect(fixture.run("keys --reveal", on: channel).hasPrefix("error: keys needs consent"))
            #expect(fixture.run("keys export --yes", on: channel) == "exported")
            #expect(fixture.run("keys --reveal --yes", on: channel) == "keys")
        }
        #expect(fixture.requests.count == 4)
        #expect(fixture.requests.allSatisfy { $0.yes })
    }

    // MARK: Completion

    @Test func completionOffersNamesSubcommandsOptionsAndArguments() {
        let table = Fixture().table
        #expect(table.completions(forLinePrefix: "") .candidates == ["config", "help", "keys", "later", "limit", "sightings", "status"])
        #expect(table.completions(forLinePrefix: "s").candidates == ["sightings", "status"])
        #expect(table.completions(forLinePrefix: "keys ").candidates == ["export"])
        #expect(table.completions(forLinePrefix: "keys --").candidates == ["--help", "--json", "--reveal", "--yes"])
        #expect(table.completions(forLinePrefix: "sightings --l").candidates == ["--limit"])
        #expect(table.completions(forLinePrefix: "config get ").candidates == ["name", "scan_interval"])
        #expect(table.completions(forLinePrefix: "config get name ").candidates == [])
        #expect(table.completions(forLinePrefix: "help ").candidates.contains("config"))
        #expect(table.completions(forLinePrefix: "help config ").candidates == ["get", "set"])
        #expect(table.completions(forLinePrefix: "config set \"Ro").candidates == [])
        #expect(table.completions(forLinePrefix: "st") == CompletionCandidates(partial: "st", candidates: ["status"]))
    }

    @Test func suggestionsUseEditDistance() {
        #expect(CommandSuggestion.editDistance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)) == 3)
        #expect(CommandSuggestion.editDistance(Array("sitting".unicodeScalars), Array("kitten".unicodeScalars)) == 3)
        #expect(CommandSuggestion.editDistance([], Array("keys".unicodeScalars)) == 4)
        #expect(CommandSuggestion.editDistance(Array("keys".unicodeScalars), []) == 4)
        // One set of rows reused across names of different lengths, as `closest` does.
        var rows = CommandSuggestion.Rows()
        #expect(CommandSuggestion.editDistance(Array("flaw".unicodeScalars), "lawn".unicodeScalars, rows: &rows) == 2)
        #expect(CommandSuggestion.editDistance(Array("sync".unicodeScalars), "sightings".unicodeScalars, rows: &rows) == 7)
        #expect(CommandSuggestion.closest(to: "stats", among: ["status", "sync"]) == .init(name: "status", isClose: true))
    }

    // MARK: Console specs

    @Test func consoleSpecsParse() throws {
        #expect(try ConsoleSpec(parsing: "stdin") == .standardInput)
        #expect(try ConsoleSpec(parsing: "none") == ConsoleSpec.none)
        #expect(try ConsoleSpec(parsing: "/dev/ttyS0") == .serial(path: "/dev/ttyS0", baud: 115_200))
        #expect(try ConsoleSpec(parsing: "/dev/ttyAMA0,9600") == .serial(path: "/dev/ttyAMA0", baud: 9600))
        for bad in ["stdn", "/dev/ttyS0,fast", "/dev/ttyS0,0", "/dev/x,1,2", ""] {
            #expect(throws: ConsoleSpec.ParseError.self) { try ConsoleSpec(parsing: bad) }
        }
    }
}
