import ENCore
import EventLoop
import HCI
import Store

/// The agent's console commands (`../shared/CLI.md`), registered in a `CommandTable` that both the
/// stdin/serial console and the unix socket (`enbeacon ctl`) serve. Each group lives in its own file
/// (`AgentConsole+Clock`, `+Keys`, `+Radio`, `+Records`, `+Sync`, `+Config`).
///
/// Every command answers `--json` with one JSON document (`live`: JSON lines); a command whose answer is
/// only a confirmation still says in JSON what the state now is, so a script need not parse prose.
public enum AgentConsole {
    public static func commandTable(for agent: Agent, stop: @escaping () -> Void) -> CommandTable {
        let table = CommandTable()
        table.register(ConsoleCommand("status", summary: "what a member of staff needs to know, in one screen") { request in
            status(agent, json: request.json)
        })
        registerClockCommands(in: table, agent: agent)
        registerKeyCommands(in: table, agent: agent)
        registerRadioCommands(in: table, agent: agent)
        registerRecordCommands(in: table, agent: agent)
        registerSyncCommands(in: table, agent: agent)
        registerConfigCommands(in: table, agent: agent)
        table.register(ConsoleCommand("quit", summary: "stop the agent (on its own console, not through ctl)") { request in
            guard request.channel != .socket else { return .error("quit works on the agent's own console only") }
            stop()
            var o = JSONObject()
            o.bool("stopping", true)
            return request.json ? .json(o.text) : .text("stopping")
        })
        return table
    }

    static func status(_ agent: Agent, json: Bool) -> ConsoleReply {
        let usage = try? agent.store.usage()
        let now = agent.loop.now
        func seconds(_ d: Duration) -> Int64 { d.components.seconds }
        let next = agent.advertiser.nextRotation.map { seconds($0 - now) }
        let rpiAge = agent.advertiser.lastRotation.map { seconds(now - $0) }
        let lastScan = agent.scanner.lastScanStart.map { seconds(now - $0) }
        let exposures = agent.exposures.exposures
        let en = agent.exposureNotificationEnabled
        if json {
            var clock = JSONObject()
            clock.string("time", "\(UTCDateTime(unixSeconds: agent.clock.unixSeconds))")
            clock.bool("trusted", agent.clock.isTrusted)
            clock.string("trust", "\(agent.clock.trust)")
            var o = JSONObject()
            o.raw("clock", clock.text)
            o.bool("exposureNotification", en)
            o.bool("advertising", agent.advertiser.isRunning)
            o.string("controller", "\(agent.driver.phase)")
            o.string("controllerProblem", agent.driver.lastProblem?.text)
            o.integer("controllerProblemSecondsAgo", agent.driver.lastProblem.map { seconds(now - $0.at) })
            o.integer("rotations", agent.advertiser.rotations)
            o.integer("rpiAgeSeconds", rpiAge)
            o.integer("nextRotationSeconds", next)
            o.integer("scans", agent.scanner.scans)
            o.integer("lastScanSecondsAgo", lastScan)
            o.integer("storedSightings", usage?.storedSightings ?? 0)
            o.integer("storeBytes", usage?.bytes ?? 0)
            o.raw("sync", syncStatusJSON(agent))
            o.integer("exposures", exposures.count)
            return .json(o.text)
        }
        func minutes(_ s: Int64) -> String { s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s" }
        let broadcasting: String
        if !en {
            broadcasting = "off (en on turns it back on)"
        } else if agent.advertiser.isRunning {
            broadcasting = "yes, RPI on air for \(rpiAge.map(minutes) ?? "-")" + (next.map { ", next in \(minutes($0))" } ?? "")
                + " (\(agent.advertiser.rotations) rotations)"
        } else {
            broadcasting = "no: " + (agent.clock.isTrusted ? "waiting for the controller" : "waiting for a trusted clock")
        }
        return .text("""
            clock        \(UTCDateTime(unixSeconds: agent.clock.unixSeconds)), \(agent.clock.trust)
            exposure n.  \(en ? "on" : "off")
            broadcasting \(broadcasting)
            controller   \(agent.driver.phase)\(agent.driver.lastProblem.map { "; last problem \(minutes(seconds(now - $0.at))) ago: \($0.text)" } ?? "")
            scanning     \(agent.scanner.scans) scans\(lastScan.map { ", last \(minutes($0)) ago" } ?? "")
            storage      \(usage.map { "\($0.storedSightings) sightings, \($0.bytes) bytes" } ?? "unreadable")
            key sync     \(syncLine(agent))
            exposures    \(exposures.isEmpty ? "none" : "\(exposures.count) — see exposures")
            """)
    }
}
