import Foundation
import Testing

/// Under systemd (JOURNAL_STREAM naming stderr) each log line carries its syslog priority for journald;
/// anywhere else it carries its time, as before.
@Suite struct JournalPriorityTests {
    @Test func linesCarryTheirPriorityOnlyWhenStderrIsTheJournal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let logPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var status = stat()
        #expect(stat(logPath, &status) == 0)

        let plain = try runAgent(journal: nil)
        #expect(plain.contains { $0.contains(" info enbeacon ") && $0.first?.isNumber == true }, "\(plain.prefix(3))")
        let journal = try runAgent(journal: "\(status.st_dev):\(status.st_ino)")
        #expect(journal.contains { $0.hasPrefix("<6>info enbeacon ") }, "\(journal.prefix(3))")
        #expect(journal.allSatisfy { $0.hasPrefix("<") }, "every line has its priority")
        let elsewhere = try runAgent(journal: "1:2")
        #expect(!elsewhere.contains { $0.hasPrefix("<") }, "JOURNAL_STREAM naming another stream is not stderr")

        func runAgent(journal: String?) throws -> [Substring] {
            let process = Process()
            process.executableURL = Enbeacon.binary
            process.arguments = ["run", "--data", directory + "/data", "--console", "none", "--seconds", "1"]
            var environment = ProcessInfo.processInfo.environment
            environment["JOURNAL_STREAM"] = journal
            process.environment = environment
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            try handle.truncate(atOffset: 0)
            process.standardError = handle
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try handle.close()
            return try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
        }
    }
}
