@testable import Console
@testable import Agent
import ENCore
@testable import KeyShare
import Testing

/// How `keys share status`, `status` and `--json` put a share, from its status alone: no agent, process, socket
/// or file. Pins down the console checks of AgentTests/KeyShareEndToEndTests, which reach them through the
/// Python test health authority.
@Suite struct KeyShareStatusWordsTests {
    /// 2021-06-02T02:10:00Z.
    static let published: Int64 = 1_622_599_800

    static func object(_ json: String) -> [String: JSONValue] {
        if case .object(let members)? = try? JSONValue.parse(json) { members } else { [:] }
    }

    /// Mirrors aSharedBadgeWarnsTheBadgeItMetAndNoOther: once published, the last outcome is shown in full, the
    /// status line says when, and of all the secrets only the revision token is held — shown as "redacted".
    @Test func aPublishedShareShowsItsOutcomeAndOnlyARedactedRevisionToken() {
        let message = "shared 3 key(s) of 2021-05-30 to 2021-06-01 with the key server (3 stored)"
        var status = KeyShareStatus()
        status.phase = .idle
        status.state = "nothing under way"
        status.publishedKeys = 3
        status.publishedAt = Self.published
        status.holdsRevisionToken = true
        status.lastOutcome = ShareOutcome(kind: .published, message: message, at: Self.published, keys: 3,
                                          insertedExposures: 3)
        let text = AgentConsole.shareText(status)
        #expect(text.contains("last outcome 2021-06-02T02:10:00Z published: \(message)"))
        #expect(text.contains("published    3 key(s), last at 2021-06-02T02:10:00Z; revision token held (redacted)"))
        #expect(AgentConsole.shareLine(status) == "nothing under way; last: published at 2021-06-02T02:10:00Z")
        let json = Self.object(AgentConsole.shareStatusJSON(status))
        #expect(json["revisionToken"] == .string("redacted") && json["token"] == .null)
        #expect(json["certificate"] == .null && json["hmacSecret"] == .null)
        guard case .object(let outcome)? = json["lastOutcome"] else {
            Issue.record("the last outcome is the event notify.command was given")
            return
        }
        #expect(outcome["outcome"] == .string("published") && outcome["message"] == .string(message))
    }

    /// Mirrors refusedCodesSayWhatToDoAndKeepNothing and aTokenThatExpiresBeforePublishingIsReported: a share
    /// that ended without keys says how in `keys share status`, and `status` says when.
    @Test func aShareThatEndedWithoutKeysSaysHowAndWhen() {
        var status = KeyShareStatus()
        status.phase = .idle
        status.state = "nothing under way"
        status.lastOutcome = ShareOutcome(kind: .refused, message: "this code is for a kind of test result the badge "
                                          + "does not share: ask the health authority whether it is the right code",
                                          at: 1_622_462_400)
        #expect(AgentConsole.shareText(status).contains("refused: this code is for a kind of test result"))
        status.lastOutcome = ShareOutcome(kind: .expired, message: "the code's verification expired", at: 1_622_548_800)
        #expect(AgentConsole.shareLine(status) == "nothing under way; last: expired at 2021-06-01T12:00:00Z")
    }

    /// Mirrors unreachableServersDelayThePublishUntilTheyAreBack: a share under way shows its state and what it
    /// holds, redacted; `status` shows the state alone.
    @Test func aShareUnderWayShowsWhatItHoldsRedacted() {
        var status = KeyShareStatus()
        status.phase = .retrying
        status.state = "attempt 3 failed (cannot reach the health authority's verification server (timed out): the "
            + "badge will try again); next try at 2021-06-01T02:20:00Z, possible until 2021-06-01T12:00:00Z"
        status.testType = .confirmed
        status.holdsToken = true
        status.usableUntil = 1_622_548_800
        status.lastOutcome = ShareOutcome(kind: .retrying, message: "cannot reach", at: 1_622_513_000)
        let text = AgentConsole.shareText(status)
        #expect(text.hasPrefix("state        attempt 3 failed (cannot reach the health authority's verification server"))
        #expect(text.contains("holds        verification token (redacted), usable until 2021-06-01T12:00:00Z"))
        #expect(AgentConsole.shareLine(status) == status.state, "no last outcome while the share is under way")
        #expect(Self.object(AgentConsole.shareStatusJSON(status))["token"] == .string("redacted"))
    }
}
