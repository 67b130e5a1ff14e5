import Foundation
import Testing
import TestSupport

/// `enbeacon risk` through the binary: the Corona-Warn-App's 29 published cases, each written to its own windows
/// file as the app's test file has it and scored with that file as the configuration; then the text answer, and
/// the exit codes and one-line errors of bad files and command lines.
@Suite struct RiskCommandTests {
    /// The app's test file (Tests/ENCoreTests/Resources/CoronaWarnApp, with its licence).
    static let cwaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ENCoreTests/Resources/CoronaWarnApp/exposure-windows-risk-calculation.json").path
    static let today = "2026-11-26"

    static func cases() throws -> [[String: Any]] {
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cwaFile)))
        return (document as? [String: Any])?["testCases"] as? [[String: Any]] ?? []
    }

    /// `object` as a file in `directory`, for --windows or --config.
    static func file(_ object: Any, named name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/" + name
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func reproducesTheAppsTwentyNineCases() throws {
        let directory = TemporaryDirectory()
        let cases = try Self.cases()
        #expect(cases.count == 29)
        for (index, testCase) in cases.enumerated() {
            let windows = try Self.file(testCase, named: "case\(index + 1).json", in: directory)
            let r = try Enbeacon.run(["risk", "--config", Self.cwaFile, "--windows", windows, "--today", Self.today, "--json"])
            let name = Comment(rawValue: "case \(index + 1): \(testCase["description"] as? String ?? "?")")
            #expect(r.status == 0 && r.stderr.isEmpty, name)
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let levels = ["low": 1, "high": 2]
            #expect(levels[answer["totalRiskLevel"] as? String ?? ""] == testCase["expTotalRiskLevel"] as? Int, name)
            for level in ["Low", "High"] {
                for member in ["AgeOfMostRecentDateWith\(level)Risk", "NumberOfDaysWith\(level)Risk",
                               "TotalMinimumDistinctEncountersWith\(level)Risk"] {
                    let answered = answer[member.prefix(1).lowercased() + member.dropFirst()] as? Int
                    #expect(answered == testCase["exp" + member] as? Int, "\(name): \(member)")
                }
            }
        }
    }

    /// Case 17: three low-risk windows of one day, one encounter, whose sum makes the day high.
    @Test func textNamesTheTotalTheLevelsAndEachWindow() throws {
        let directory = TemporaryDirectory()
        let windows = try Self.file(try Self.cases()[16], named: "windows.json", in: directory)
        let r = try Enbeacon.run(["risk", "--config", Self.cwaFile, "--windows", windows, "--today", Self.today])
        #expect(r.status == 0 && r.stderr.isEmpty)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "total risk: high (today \(Self.today))")
        #expect(lines.contains("low risk: 0 days, none, minimum distinct encounters 1"))
        #expect(lines.contains("high risk: 1 day, most recent 2026-11-25 (age 1), minimum distinct encounters 0"))
        #expect(lines.contains("windows: 3"))
        #expect(lines.filter { $0.hasSuffix(": low, transmission risk level 3, normalized time 4.8") }.count == 3)
    }

    /// A refused file: exit 1, nothing on stdout, one line on stderr naming the file and the member at fault.
    @Test func badFilesExitOneNamingTheMember() throws {
        let directory = TemporaryDirectory()
        let good = try Self.file(try Self.cases()[0], named: "good.json", in: directory)
        let badWindow: [String: Any] = ["ageInDays": 1, "reportType": 0, "infectiousness": 2, "scanInstances": []]
        let badWindows = try Self.file([badWindow], named: "bad-windows.json", in: directory)
        let badConfig = try Self.file(["trlEncoding": [:]], named: "bad-config.json", in: directory)
        let notJSON = directory.path + "/not.json"
        try "{\"exposureWindows\": [".write(toFile: notJSON, atomically: true, encoding: .utf8)
        for (arguments, message) in [
            (["--config", Self.cwaFile, "--windows", badWindows],
             "enbeacon risk: --windows \(badWindows): [0].reportType: 0 (unknown) never labels a phone's window"),
            (["--config", badConfig, "--windows", good], "enbeacon risk: --config \(badConfig): minutesAtAttenuationWeights: missing"),
            (["--config", Self.cwaFile, "--windows", notJSON], "enbeacon risk: --windows \(notJSON): invalid JSON at byte"),
            (["--config", directory.path + "/absent.json", "--windows", good],
             "enbeacon risk: --config \(directory.path)/absent.json: No such file or directory"),
        ] {
            let r = try Enbeacon.run(["risk"] + arguments + ["--json"])
            #expect(r.status == 1 && r.stdout.isEmpty && r.stderrLines.count == 1, "\(arguments)")
            #expect(r.stderr.hasPrefix(message), "stderr was: \(r.stderr)")
        }
    }

    @Test(arguments: [
        (["risk", "--windows", "w.json"], "missing --config"),
        (["risk", "--config", "c.json"], "missing --windows"),
        (["risk", "--config", "c.json", "--windows", "w.json", "--today", "2026-13-01"], "--today: expected YYYY-MM-DD"),
        (["risk", "--config", "c.json", "--windows", "w.json", "--model", "cwa"], "unknown option --model"),
    ])
    func usageErrorsExitTwo(arguments: [String], message: String) throws {
        let r = try Enbeacon.run(arguments)
        #expect(r.isOneLineUsageError)
        #expect(r.stderr.contains(message), "stderr was: \(r.stderr)")
    }

    @Test func helpListsAndExplainsTheCommand() throws {
        #expect(try Enbeacon.run(["--help"]).stdout.contains("  risk "))
        let help = try Enbeacon.run(["risk", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: enbeacon risk --config"))
    }
}
