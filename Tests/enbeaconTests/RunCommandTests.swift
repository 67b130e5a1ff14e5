import Foundation
import Testing

/// `enbeacon run` as an operator meets it: one agent per data directory, a clean stop on SIGTERM.
@Suite struct RunCommandTests {
    @Test func aSecondAgentOnTheSameDataDirectoryIsRefusedAndTheFirstStopsCleanly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let first = Process()
        first.executableURL = Enbeacon.binary
        first.arguments = ["run", "--data", dir, "--seconds", "60"]
        let stderr = Pipe()
        first.standardError = stderr
        first.standardOutput = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }

        // Wait (bounded) until the first agent has put its key on disk: it then holds the lock.
        var log = ""
        let deadline = Date().addingTimeInterval(30)
        while !log.contains("scan heard"), Date() < deadline {
            let chunk = stderr.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
        }
        #expect(log.contains("controller ready"), "first agent log: \(log)")

        let second = try Enbeacon.run(["run", "--data", dir, "--seconds", "5"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("is in use by another enbeacon (pid \(first.processIdentifier))"))

        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        log += String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("stopping on signal 15"))
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/keys")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: dir)
        #expect((dirAttributes[.posixPermissions] as? Int) == 0o700)
        #expect(!log.contains(try String(contentsOfFile: dir + "/keys", encoding: .utf8).split(separator: " ")[2].prefix(32)),
                "the TEK never appears in the log")
    }

    @Test func aMissingBoardFileIsAUsageError() throws {
        let r = try Enbeacon.run(["run", "--board", "no-such-board"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--board: cannot read Board/no-such-board.conf"))
    }
}
