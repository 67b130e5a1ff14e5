@testable import Agent
@testable import AgentBase
@testable import Console
import ENCore
import EventLoop
import Foundation
import Glibc
import HCI
@testable import KeyShare
import Network
@testable import Metrics
@testable import Simulation
import TestSupport

/// Badges in virtual time beside the test health authority (Tools/healthauthority) on 127.0.0.1: every badge is
/// configured for it (share.*, and keyserver.* for its signed exports), logs at debug into memory, records its
/// HCI traffic in a btsnoop file and runs `notify.command` into a folder of its own. The servers' clock is set to
/// the simulation's whenever the badges are about to talk to them, since virtual time runs ahead of it.
final class ShareWorld {
    let folder = TemporaryDirectory()
    let server: HealthAuthorityTestServer
    let sim: Simulation
    private(set) var badges: [SimulatedBadge] = []
    private var logs: [String: LogLines] = [:]
    private var tables: [String: CommandTable] = [:]

    final class LogLines {
        var lines: [String] = []
    }

    init(start: Int64, seed: UInt64, serverArguments: [String] = []) throws {
        server = try HealthAuthorityTestServer(now: start, arguments: serverArguments)
        sim = try Simulation(startUnixSeconds: start, seed: seed, dataRoot: folder.path + "/badges")
        // Indoors (as in the demo): badges a few hundred metres apart never hear each other.
        sim.radio.pathLoss.exponent = 3.0
    }

    func notifyFolder(_ badge: SimulatedBadge) -> String { folder.path + "/notify-" + badge.name }
    func btsnoopPath(_ badge: SimulatedBadge) -> String { folder.path + "/" + badge.name + ".btsnoop" }

    /// A badge configured for the servers; without `keySync` it has no key server, so that it makes no request
    /// on its own.
    @discardableResult
    func addBadge(_ name: String, at position: RadioPosition = RadioPosition(x: 0, y: 0), keySync: Bool = true,
                  indicator: Bool = false, extra: [String] = []) throws -> SimulatedBadge {
        let notify = folder.path + "/notify-" + name
        try FileManager.default.createDirectory(atPath: notify, withIntermediateDirectories: true)
        var settings = Agent.Settings()
        let share = [
            "share.verification_url = \(server["verification_url"])",
            "share.api_key = \(server["api_key"])",
            "share.publish_url = \(server["publish_url"])",
            "share.health_authority_id = \(server["health_authority_id"])",
            "notify.command = cat > \(notify)/event-$$.json",
        ]
        let sync = [
            "keyserver.index_url = \(server["index_url"])",
            "keyserver.base_url = \(server["base_url"])",
            "keyserver.public_key = \(server["public_key"])",
            "keyserver.key_id = \(server["key_id"])",
            "keyserver.key_version = \(server["key_version"])",
            "sync.interval_hours = 1",
        ]
        let lines = share + (keySync ? sync : []) + extra
        settings.configuration = try Configuration(parsing: lines.joined(separator: "\n"))
        let captured = LogLines()
        let log = Logger(level: .debug) { level, message in captured.lines.append("\(level) \(message)") }
        let badge = try sim.addBadge(name, at: position, settings: settings, indicator: indicator, log: log,
                                     btsnoop: folder.path + "/" + name + ".btsnoop")
        // In virtual time a child's exit is polled at 0.5 s of virtual time, which passes in microseconds: a
        // command's real milliseconds must not count against its time limit.
        badge.agent.notifier.command?.timeLimit = .seconds(365 * 86_400)
        logs[name] = captured
        tables[name] = AgentConsole.commandTable(for: AgentControl(agent: badge.agent, stop: {}))
        badges.append(badge)
        return badge
    }

    func log(_ badge: SimulatedBadge) -> [String] { logs[badge.name]?.lines ?? [] }

    // MARK: Console

    /// One console line on `badge` (through the socket's channel unless told), its answer awaited in virtual time.
    func execute(_ line: String, on badge: SimulatedBadge, channel: ConsoleChannel = .socket) throws -> ConsoleReply {
        guard let table = tables[badge.name] else { throw TestFailure("no badge \(badge.name)") }
        return try answer(table.execute(line, channel: channel))
    }

    func answer(_ outcome: ConsoleOutcome) throws -> ConsoleReply {
        guard case .reply(let reply, _) = outcome else { throw TestFailure("expected an answer, got \(outcome)") }
        guard case .deferred(let later) = reply else { return reply }
        var answered: ConsoleReply?
        later.attach { answered = $0 }
        guard run(until: { answered != nil }, within: .seconds(300), step: .seconds(1)), let answered else {
            throw TestFailure("no answer within 5 minutes")
        }
        return answered
    }

    func table(_ badge: SimulatedBadge) -> CommandTable { tables[badge.name]! }

    /// A command's text answer; an error or a JSON answer fails the test.
    func text(_ line: String, on badge: SimulatedBadge) throws -> String {
        switch try execute(line, on: badge) {
        case .text(let text): return text
        case let other: throw TestFailure("\(line): \(other)")
        }
    }

    /// A command's JSON answer, parsed, with its text.
    func json(_ line: String, on badge: SimulatedBadge) throws -> (object: [String: Any], text: String) {
        guard case .json(let text) = try execute(line, on: badge) else { throw TestFailure("\(line): no JSON answer") }
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
        return (object, text)
    }

    /// A command's error line.
    func error(_ line: String, on badge: SimulatedBadge, channel: ConsoleChannel = .socket) throws -> String {
        switch try execute(line, on: badge, channel: channel) {
        case .error(let text): return text
        case let other: throw TestFailure("\(line) was not refused: \(other)")
        }
    }

    // MARK: Time

    /// Runs the simulation in `step`s until `condition` holds or `limit` of virtual time has passed.
    @discardableResult
    func run(until condition: () -> Bool, within limit: Duration, step: Duration = .seconds(60)) -> Bool {
        let end = sim.loop.now + limit
        while !condition() {
            guard sim.loop.now < end else { return false }
            sim.loop.run(until: min(end, sim.loop.now + step))
        }
        return true
    }

    /// Runs to `unixSeconds` of the simulation.
    func run(to unixSeconds: Int64) {
        sim.loop.run(until: sim.loop.now + .seconds(max(0, unixSeconds - sim.unixSeconds)))
    }

    /// The servers' clock, set to the simulation's now.
    func syncServerClock() throws { try server.setClock(sim.unixSeconds) }

    // MARK: Sharing

    func share(_ badge: SimulatedBadge) -> KeyShareStatus { badge.agent.keyShare!.status }

    /// A fresh code from the servers (their clock set to the simulation's first).
    func issueCode(_ spec: String = "{}") throws -> String {
        try syncServerClock()
        return try server.issueCode(spec)
    }

    /// Runs to a little before `badge`'s share is due, sets the servers' clock there, and runs until the share
    /// has ended or `limit` has passed.
    @discardableResult
    func runThroughPublishing(_ badge: SimulatedBadge, within limit: Duration = .seconds(3 * 3600)) throws -> Bool {
        guard let due = share(badge).nextAttemptAt else { throw TestFailure("no share is due: \(share(badge))") }
        run(to: due - 60)
        try syncServerClock()
        return run(until: { badge.agent.keyShare!.status.phase == .idle }, within: limit, step: .seconds(30))
    }

    /// The `DATA/share` line `name value`, while it is there.
    func shareFileValue(_ badge: SimulatedBadge, _ name: String) -> String? {
        let text = (try? String(contentsOfFile: badge.dataDirectory + "/share", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }
    }

    /// Waits (real time, at most 10 s) until every `notify.command` `badge` started has exited and been reaped:
    /// in virtual time the loop runs far ahead of the children.
    func settle(_ badge: SimulatedBadge) {
        let deadline = ContinuousClock.now + .seconds(10)
        while (badge.agent.notifier.command?.running ?? 0) > 0 && ContinuousClock.now < deadline {
            var pause = timespec(tv_sec: 0, tv_nsec: 2_000_000)
            nanosleep(&pause, nil)
            sim.loop.run(for: .seconds(1))
        }
    }

    /// The JSON documents `notify.command` got on `badge`, oldest first.
    func notifications(_ badge: SimulatedBadge) -> [[String: Any]] {
        settle(badge)
        let folder = notifyFolder(badge)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { name in
            (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }.sorted { ($0["at"] as? Int ?? 0, $0["outcome"] as? String ?? "") < ($1["at"] as? Int ?? 0, $1["outcome"] as? String ?? "") }
    }

    /// The key share events among them.
    func shareEvents(_ badge: SimulatedBadge) -> [[String: Any]] {
        notifications(badge).filter { $0["event"] as? String == "keyShare" }
    }

    // MARK: Secrets

    /// The requests of the upload API (POSTs) the servers received, oldest first: not key sync's downloads.
    func apiRequests() throws -> [[String: Any]] {
        try server.requests().filter { $0["method"] as? String == "POST" }
    }

    /// What the servers received: each request's JSON body, by path.
    func requestBodies(_ path: String) throws -> [[String: Any]] {
        try server.requests().filter { $0["path"] as? String == path && $0["chaff"] as? Bool != true }.compactMap { record in
            (record["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    /// Every secret a share of `badge` handled that the test can learn: its keys (hex, base64 and raw), the
    /// codes, the tokens and certificates the servers saw, HMAC secrets, the revision token, the API key.
    func secrets(of badge: SimulatedBadge, codes: [String], tokens: [String] = []) throws -> [[UInt8]] {
        var texts = codes + tokens + [server["api_key"]]
        for body in try requestBodies("/api/certificate") { texts += [body["token"] as? String].compactMap { $0 } }
        for body in try requestBodies("/v1/publish") {
            texts += [body["verificationPayload"] as? String, body["hmacKey"] as? String].compactMap { $0 }
            if let secret = (body["hmacKey"] as? String).flatMap({ Data(base64Encoded: $0) }) {
                texts.append(secret.map { String(format: "%02x", $0) }.joined())
            }
        }
        texts += [shareFileValue(badge, "revision_token"), shareFileValue(badge, "token"),
                  shareFileValue(badge, "certificate")].compactMap { $0 }
        var secrets = texts.filter { $0.count >= 6 }.map { Array($0.utf8) }
        for key in badge.storedKeys {
            secrets += [Array(key.keyData.hex.utf8), Array(Base64.encode(key.keyData.bytes).utf8), key.keyData.bytes]
        }
        return secrets
    }

    /// Where a secret must never appear: every badge's log, `badge`'s btsnoop file, its notify events, and what
    /// its console answers with `--json` (status, keys share status, config list, sync, health, exposures) and in
    /// words, and its Prometheus metrics.
    func exposedPlaces(_ badge: SimulatedBadge) throws -> [(String, [UInt8])] {
        var places: [(String, [UInt8])] = badges.map { ("log of \($0.name)", Array(log($0).joined(separator: "\n").utf8)) }
        places.append(("btsnoop of \(badge.name)", Array((try? Data(contentsOf: URL(fileURLWithPath: btsnoopPath(badge)))) ?? Data())))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: notifyFolder(badge))) ?? [] {
            places.append(("notify event \(name)", Array((try? Data(contentsOf: URL(fileURLWithPath: notifyFolder(badge) + "/" + name))) ?? Data())))
        }
        places.append(("metrics of \(badge.name)",
                       Array(BadgeMetricsExposition(build: .init(version: "test", board: "virtual", transport: "virtual"))
                           .text(AgentControl(agent: badge.agent, stop: {}).metrics()).utf8)))
        for line in ["status --json", "keys share status --json", "config list --json", "status", "keys share status",
                     "config list", "sync --json", "health --json", "exposures --json", "exposures"] {
            let reply = try execute(line, on: badge)
            let text: String = switch reply {
            case .text(let t), .json(let t), .error(let t): t
            case .failure(let t, let json): t + json
            default: ""
            }
            places.append((line, Array(text.utf8)))
        }
        return places
    }

    /// What `badges` put on the air: each RPI (hex, as a console would print it, and raw) and each random
    /// address (as `AA:BB:…` and in lower case), from their controllers' advertising histories.
    func onAirIdentifiers(of badges: [SimulatedBadge]) -> [[UInt8]] {
        var identifiers: [[UInt8]] = []
        for entry in badges.flatMap({ $0.controller.advertisingHistory }) {
            identifiers += [Array("\(entry.address)".utf8), Array("\(entry.address)".lowercased().utf8)]
            if let payload = try? AdvertisingPayload(decoding: entry.data) {
                identifiers += [Array(payload.rpi.hex.utf8), Array(payload.rpi.hex.uppercased().utf8), payload.rpi.bytes]
            }
        }
        return identifiers
    }

    /// The places among `exposedPlaces` that hold one of `secrets`, with a hint of which. `btsnoop: false` leaves
    /// the btsnoop file out, for secrets that are there by nature (what went on the air).
    func leaks(of secrets: [[UInt8]], from badge: SimulatedBadge, btsnoop: Bool = true) throws -> [String] {
        let places = try exposedPlaces(badge).filter { btsnoop || !$0.0.hasPrefix("btsnoop of ") }
        var found: [String] = []
        for (name, bytes) in places {
            for secret in secrets where Self.contains(bytes, secret) {
                found.append("\(name) holds a secret of \(secret.count) bytes")
            }
        }
        return found
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        // A naive search takes seconds over a day's btsnoop file in a debug build: compare from each place
        // the first two bytes agree.
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                let (first, second) = (n[0], n.count > 1 ? n[1] : n[0])
                var index = 0
                let last = h.count - n.count
                while index <= last {
                    if h[index] == first && h[index + (n.count > 1 ? 1 : 0)] == second
                        && memcmp(h.baseAddress! + index, n.baseAddress!, n.count) == 0 { return true }
                    index += 1
                }
                return false
            }
        }
    }
}
