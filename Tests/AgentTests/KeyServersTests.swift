@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import EventLoop
import Foundation
import HCI
@testable import KeyDownload
import KeySyncTestSupport
import Network
@testable import Simulation
import Testing
import TestSupport

/// Several key servers (`keyserver.<name>.*`): how they are configured, and an agent syncing from two key
/// servers on 127.0.0.1 with their own signing keys and regions.
@Suite struct KeyServersTests {
    // MARK: Configuration

    @Test func namedServersAreConfiguredBesideTheDefaultOne() throws {
        let world = try KeySyncWorld()
        let c = try Configuration(parsing: world.configurationText([
            "keyserver.index_url = https://national.example/index.txt",
            "keyserver.eur.index_url = https://gateway.example/eur/index.txt",
            "keyserver.eur.public_key = \(world.publicKeyPath)",
            "keyserver.eur.key_id = EUR-1",
        ]))
        #expect(c.keyServerNames == ["eur"])
        #expect(c.value(of: "keyserver.eur.key_id") == "EUR-1")
        #expect(c.value(of: "keyserver.eur.key_version") == "v1", "a named server's setting has the unnamed one's default")
        #expect(c.keys.contains { $0.name == "keyserver.eur.public_key" }, "config list shows the named server's keys")
        #expect(ConfigurationKey.named("keyserver.eur.public_key")?.privilege != nil,
                "a named server's public key decides trust like the default's")

        let all = try KeySyncSettings.all(configuration: c)
        #expect(all.map(\.name) == [nil, "eur"])
        #expect(all.map { $0.server?.listingURL } == ["https://national.example/index.txt",
                                                      "https://gateway.example/eur/index.txt"])
        #expect(all.map(\.keyring.keyIDs) == [[VerificationKeyID(id: "999", version: "v1")], [VerificationKeyID(id: "EUR-1", version: "v1")]],
                "each server trusts its own key only")
    }

    @Test func misspeltSettingsAndBadNamesAreRefusedSayingWhich() throws {
        let typo = #expect(throws: ConfigurationError.self) {
            try Configuration(parsing: "keyserver.eur.index_ulr = https://gateway.example/index.txt")
        }
        #expect(typo?.description.contains("line 1") == true)
        #expect(typo?.message.contains("key server eur has no setting 'index_ulr'") == true)

        let name = #expect(throws: ConfigurationError.self) {
            try Configuration(parsing: "keyserver.EU_gw.style = google")
        }
        #expect(name?.message.contains("lowercase letters, digits and '-'") == true)

        var c = Configuration()
        let value = #expect(throws: ConfigurationError.self) { try c.set("keyserver.eur.style", to: "gopher") }
        #expect(value?.message.hasPrefix("keyserver.eur.style: expected google | cwa | folder") == true)
        #expect(c.keyServerNames.isEmpty, "a refused value changes nothing")
    }

    @Test func aNamedServerNeedsItsOwnPublicKeyButMayBeGivenOneKeyAtATime() throws {
        var c = Configuration()
        try c.set("keyserver.eur.public_key", to: "/nonexistent/eur.pem")
        // No URL yet: not configured, as the default server without one; `config set` can go on.
        #expect(try KeySyncSettings.all(configuration: c).map { $0.server == nil } == [true, true])
        try c.set("keyserver.eur.index_url", to: "https://gateway.example/index.txt")
        try c.set("keyserver.eur.public_key", to: "")
        let missing = #expect(throws: ConfigurationError.self) { try KeySyncSettings.all(configuration: c) }
        #expect(missing?.message.hasPrefix("keyserver.eur.public_key is required") == true)
    }

    // MARK: Two servers

    /// The default server (region DE, key 999) and `eur` (region EUR, key EUR-1), each serving its own signed
    /// exports from keyserver.py: one key met only in each feed, and one key both publish.
    @Test func twoServersSyncEachWithItsCursorAndAKeyInBothFeedsMatchesOnce() throws {
        let two = try TwoKeyServers()
        defer { two.stop() }
        let (world, agent, servers, dataDirectory) = (two.world, two.agent, two.servers, two.dataDirectory)
        #expect(servers.syncs.map(\.name) == [nil, "eur"])

        let nationalOnly = two.met(), eurOnly = two.met(), shared = two.met()
        world.publish(world.export([nationalOnly, shared] + world.strangers(20), region: "DE"), at: "one.zip")
        world.publishIndex(["one.zip"])
        try two.publishEUR([eurOnly, shared] + world.strangers(20), at: "one.zip", index: ["one.zip"])
        agent.start()

        let first = try two.syncBoth()
        #expect(first.map(\.name) == [nil, "eur"])
        #expect(first.map(\.report.outcome) == [.succeeded, .succeeded])
        #expect(first.map(\.report.matchedKeys) == [2, 2], "each server matched its own key and the shared one")
        let expected = Set([nationalOnly, eurOnly, shared].map { ExposureID(key: $0.tek) })
        #expect(Set(agent.exposures.exposures.map(\.id)) == expected)
        #expect(agent.exposures.exposures.count == 3, "the key in both feeds is one exposure")
        #expect(first.map(\.report.newExposures) == [2, 1])
        #expect(world.notifications.count == 3, "and it is notified once")
        #expect(servers.statuses.map(\.cursor) == ["after one.zip", "after one.zip"])
        for file in ["keysync", "keysync.eur"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory + "/" + file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(file) holds held keys: 0600")
        }

        // Each cursor moves on its own: a new file on each server is the only one either fetches.
        world.publish(world.export(world.strangers(5), region: "DE"), at: "two.zip")
        world.publishIndex(["one.zip", "two.zip"])
        try two.publishEUR([shared] + world.strangers(5), at: "two.zip", index: ["one.zip", "two.zip"])
        let second = try two.syncBoth()
        #expect(second.map(\.report.new) == [1, 1])
        #expect(servers.statuses.map(\.cursor) == ["after two.zip", "after two.zip"])
        #expect(agent.exposures.exposures.count == 3 && world.notifications.count == 3,
                "the shared key published again changes nothing")

        // Each server has its own status line: `sync` under the server's name, `status` one indented line
        // each, `sync --json` the named ones in `servers` with their own last run.
        let console = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
        guard case .reply(.text(let sync), _) = console.execute("sync", channel: .pipe),
              case .reply(.text(let status), _) = console.execute("status", channel: .pipe),
              case .reply(.json(let json), _) = console.execute("sync --json", channel: .pipe) else {
            Issue.record("sync, status or sync --json gave no answer")
            return
        }
        #expect(sync.contains("\nkey server eur:\n"), "\(sync)")
        #expect(status.contains("\n  eur "), "\(status)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let named = try #require(document["servers"] as? [[String: Any]])
        #expect(named.map { $0["name"] as? String } == ["eur"])
        #expect((named.first?["lastRun"] as? [String: Any])?["new"] as? Int == 1)
        #expect(document["name"] == nil && (document["lastRun"] as? [String: Any])?["new"] as? Int == 1)
    }
}
