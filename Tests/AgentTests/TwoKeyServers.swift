@testable import Agent
@testable import AgentBase
import ENCore
import Foundation
import HCI
@testable import KeyDownload
import KeySyncTestSupport
import Network
@testable import Simulation
import Testing
import TestSupport

/// An agent syncing from two key servers on 127.0.0.1, each keyserver.py serving its own signed exports: the
/// default server (the world's root, key 999) and `eur` (its own root, region EUR, key EUR-1).
final class TwoKeyServers {
    let world: KeySyncWorld
    let eurRoot: String
    let eurSigner: ExportSigner
    let dataDirectory: String
    let agent: Agent
    let servers: KeyServers
    private let national: ServerProcess
    private let gateway: ServerProcess

    /// `extra` configuration lines go after the two servers' (limits, say).
    init(_ extra: [String] = []) throws {
        world = try KeySyncWorld()
        eurRoot = world.folder.path + "/eur-root"
        try FileManager.default.createDirectory(atPath: eurRoot, withIntermediateDirectories: true)
        eurSigner = ExportSigner(key: try SigningKey.generateP256(), keyID: VerificationKeyID(id: "EUR-1", version: "v1"))
        let eurKeyPath = world.folder.path + "/eur.pem"
        try eurSigner.key.publicKeyPEM.write(toFile: eurKeyPath, atomically: false, encoding: .utf8)

        dataDirectory = world.folder.path + "/agent"
        let (national, nationalPort) = try TestServers.keyServer(root: world.root)
        let gateway: ServerProcess, gatewayPort: Int
        do { (gateway, gatewayPort) = try TestServers.keyServer(root: eurRoot) } catch {
            national.kill()
            throw error
        }
        self.national = national
        self.gateway = gateway
        var settings = Agent.Settings()
        settings.clockPolicy = .trusted
        do {
            settings.configuration = try Configuration(parsing: world.configurationText([
                "keyserver.index_url = http://127.0.0.1:\(nationalPort)/index.txt",
                "keyserver.eur.index_url = http://127.0.0.1:\(gatewayPort)/index.txt",
                "keyserver.eur.public_key = \(eurKeyPath)",
                "keyserver.eur.key_id = EUR-1",
            ] + extra))
            let board = VirtualBoard(loop: world.loop, phones: 0, log: .silent)
            agent = try Agent(loop: world.loop, settings: settings, log: .silent, dataDirectory: dataDirectory,
                              makeTransport: { board.makeAgentTransport() })
            agent.attach(network: try HTTPClient(loop: world.loop))
            servers = try #require(agent.keyServers)
        } catch {
            national.kill()
            gateway.kill()
            throw error
        }
    }

    /// Stops the agent and both servers.
    func stop() {
        agent.stop()
        national.kill()
        gateway.kill()
    }

    /// A key the badge met on the key day: its sightings are in the agent's store.
    func met() -> DiagnosisKey {
        let tek = TemporaryExposureKey(keyData: Bytes16.random(), rollingStart: world.keyDay)
        sightings(of: tek, from: world.keyDay.unixSeconds + 9 * 3600, minutes: 30, schedule: world.schedule)
            .forEach(agent.store.append)
        return DiagnosisKey(tek: tek, transmissionRiskLevel: 4)
    }

    /// An export signed by the `eur` server's key, and its index.
    func publishEUR(_ keys: [DiagnosisKey], at name: String, index: [String]) throws {
        try Data(world.export(keys, signer: eurSigner, region: "EUR")).write(to: URL(fileURLWithPath: eurRoot + "/" + name))
        try Data(index.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: eurRoot + "/index.txt"))
    }

    /// `sync now` on both servers, until both runs and every notify command they started are over.
    func syncBoth() throws -> [(name: String?, report: SyncReport)] {
        var reports: [(name: String?, report: SyncReport)]?
        #expect(servers.syncNow { reports = $0 } == .started)
        // One runs at a time: the second server's status says it waits for its turn.
        #expect(servers.syncs[1].status.phase == .waitingForTurn)
        let notifier = agent.notifier
        let over = world.loop.run(until: { reports != nil && (notifier.command?.running ?? 0) == 0 }, timeout: .seconds(60))
        #expect(over)
        return try #require(reports)
    }
}
