import Foundation
import Testing
import TestSupport

/// `keys share CODE` answers once the verification server has, which the agent allows 60 s: ctl waits that
/// long and more, so staff read the outcome instead of "did not answer within 30 s" (issue 23, finding 4).
@Suite struct CtlKeyShareWaitTests {
    @Test(.enabled(if: HealthAuthorityTestServer.isAvailable,
                   "Python's cryptography package is missing (pip install cryptography): skipping"))
    func aVerificationServerAnsweringAfter45SecondsGivesTheOutcomeNotATimeout() throws {
        let server = try HealthAuthorityTestServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enbeacon-share-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/enbeacon.conf"
        try [
            "share.verification_url = \(server["verification_url"])",
            "share.api_key = \(server["api_key"])",
            "share.publish_url = \(server["publish_url"])",
            "share.health_authority_id = \(server["health_authority_id"])",
        ].joined(separator: "\n").write(toFile: config, atomically: true, encoding: .utf8)
        let agent = try RunningAgent(config: config, directory: directory)
        let code = try server.issueCode()
        try server.control("POST", "/_test/faults",
                           #"{"server":"verification","path":"/api/verify","kind":"delay","delay":45,"count":1}"#)

        let started = Date()
        let share = try agent.ctl(["keys", "share", code, "--yes"], timeout: 110)
        let seconds = Date().timeIntervalSince(started)
        print("ctl keys share against a verification server answering after 45 s: exit \(share.status) after "
              + "\(Int(seconds)) s: \(share.stdout.split(separator: "\n").first ?? "")")
        #expect(share.status == 0, "\(share.stderr)")
        #expect(share.stdout.hasPrefix("code accepted: "), "\(share.stdout)")
        #expect(seconds >= 45)
    }
}
