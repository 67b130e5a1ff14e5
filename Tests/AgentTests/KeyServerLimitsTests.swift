@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import Foundation
@testable import KeyDownload
import Testing
import TestSupport

/// Each key server's own limits (`keyserver.<limit>`, `keyserver.<name>.<limit>`) beside the board-wide
/// `sync.*` ones, which stay in force for a server that gives none.
@Suite struct KeyServerLimitsTests {
    @Test func aServerWithoutItsOwnLimitHasTheSyncOne() throws {
        let c = try Configuration(parsing: """
            sync.max_file_bytes = 1048576
            keyserver.index_url = https://national.example/index.txt
            keyserver.eur.index_url = https://gateway.example/eur/index.txt
            keyserver.eur.max_index_bytes = 2048
            keyserver.eur.give_up_after_runs =
            """)
        #expect(c.value(of: "keyserver.eur.max_file_bytes") == "1048576")
        #expect(c.value(of: "keyserver.max_file_bytes") == "1048576")
        #expect(c.value(of: "keyserver.eur.give_up_after_runs") == "3", "empty: sync.give_up_after_runs' default")
        #expect(c.value(of: "keyserver.eur.max_index_bytes") == "2048")
        let eurLimit = try #require(ConfigurationKey.named("keyserver.eur.max_file_bytes"))
        #expect(c.source(of: eurLimit) == .fallback)
        #expect(c.source(of: try #require(ConfigurationKey.named("keyserver.eur.max_index_bytes"))) == .file)

        let national = KeySyncLimits(configuration: c)
        let eur = KeySyncLimits(configuration: c, server: "eur")
        #expect((national.maxFileBytes, national.maxIndexBytes) == (1_048_576, 4 << 20))
        #expect((eur.maxFileBytes, eur.maxIndexBytes, eur.giveUpAfterRuns) == (1_048_576, 2048, 3))
        #expect(eur.keyName(.syncMaxIndexBytes) == "keyserver.eur.max_index_bytes")
        #expect(eur.keyName(.syncMaxFileBytes) == "sync.max_file_bytes")

        // config list shows each server's limits in force, and which ones are the sync.* key's.
        let list = c.keys.map { "\($0.name) = \(c[$0])" + AgentConsole.sourceNote($0, c) }
        #expect(list.contains("keyserver.eur.max_file_bytes = 1048576   (sync.max_file_bytes)"))
        #expect(list.contains("keyserver.eur.max_index_bytes = 2048"))
        #expect(list.contains("keyserver.max_redirects = 5   (sync.max_redirects)"))
    }

    @Test func aBadOwnLimitIsRefusedWithTheSyncKeysRange() throws {
        for (text, error) in [
            ("keyserver.eur.max_file_bytes = 1024", "line 1: keyserver.eur.max_file_bytes: expected 65536-2147483647, got '1024'"),
            ("keyserver.max_index_lines = 0", "line 1: keyserver.max_index_lines: expected 1-1000000, got '0'"),
            ("keyserver.eur.min_rate_seconds = soon", "line 1: keyserver.eur.min_rate_seconds: expected 1-3600, got 'soon'"),
        ] {
            let refused = #expect(throws: ConfigurationError.self) { try Configuration(parsing: text) }
            #expect(refused?.description == error)
        }
        var c = Configuration()
        try c.set("keyserver.eur.max_redirects", to: "2")
        let refused = #expect(throws: ConfigurationError.self) { try c.set("keyserver.eur.max_redirects", to: "21") }
        #expect(refused?.message == "keyserver.eur.max_redirects: expected 0-20, got '21'")
        #expect(c.value(of: "keyserver.eur.max_redirects") == "2", "a refused value changes nothing")
        try c.set("keyserver.eur.max_redirects", to: "")
        #expect(c.value(of: "keyserver.eur.max_redirects") == "5", "set empty, the sync.* value is in force again")
        #expect(ConfigurationKey.named("keyserver.eur.max_flies") == nil)
    }

    /// Both servers publish the same large export (6,000 keys, one of them met): `eur`, given
    /// `keyserver.eur.max_file_bytes = 65536`, skips it saying which key refused it; the default server, under
    /// the board-wide `sync.max_file_bytes`, matches it.
    @Test func aServersOwnLimitRefusesAnExportTheOtherServerAccepts() throws {
        let two = try TwoKeyServers(["sync.max_file_bytes = 1048576", "keyserver.eur.max_file_bytes = 65536"])
        defer { two.stop() }
        let (world, agent) = (two.world, two.agent)
        let met = two.met()
        let keys = world.strangers(3_000) + [met] + world.strangers(2_999)
        world.publish(world.export(keys, region: "DE"), at: "big.zip")
        world.publishIndex(["big.zip"])
        try two.publishEUR(keys, at: "big.zip", index: ["big.zip"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: world.root + "/big.zip")[.size] as? Int)
        #expect((65_537...1_048_576).contains(size), "\(size) bytes: over eur's limit, under the board's")
        agent.start()

        let reports = try two.syncBoth()
        #expect(reports.map(\.name) == [nil, "eur"])
        #expect(reports.map(\.report.outcome) == [.succeeded, .succeeded])
        #expect(reports.map(\.report.processed) == [1, 0])
        #expect(reports.map(\.report.skipped) == [0, 1])
        #expect(reports.map(\.report.matchedKeys) == [1, 0])
        let refusal = "big.zip: skipped, response larger than 65536 bytes, aborted (keyserver.eur.max_file_bytes)"
        #expect(reports[1].report.refusals == [refusal])
        #expect(agent.exposures.exposures.map(\.id) == [ExposureID(key: met.tek)])

        // `sync` shows the refusal under the server's name.
        let console = AgentConsole.commandTable(for: AgentControl(agent: agent, stop: {}))
        guard case .reply(.text(let sync), _) = console.execute("sync", channel: .pipe) else {
            throw TestFailure("sync gave no answer")
        }
        let sections = sync.components(separatedBy: "key server eur:\n")
        #expect(sections.count == 2 && sections[1].contains("  " + refusal), "\(sync)")
        #expect(!sections[0].contains("skipped"), "the default server refused nothing: \(sync)")
    }
}
