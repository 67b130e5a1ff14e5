import Agent
import ENCore
import EventLoop
import HCI
import SystemIO

/// The agent's console commands (`docs/cli.md`), registered in a `CommandTable` that both the
/// stdin/serial console and the unix socket (`enbeacon ctl`) serve. Each group lives in its own file
/// (`AgentConsole+Clock`, `+Keys`, `+Share`, `+Radio`, `+Records`, `+Sync`, `+Config`).
///
/// Every command answers `--json` with one JSON document (`live`: JSON lines); a command whose answer is
/// only a confirmation still says in JSON what the state now is, so a script need not parse prose.
package enum AgentConsole {
    package static func commandTable(for control: AgentControl) -> CommandTable {
        let table = CommandTable()
        table.register(ConsoleCommand("status", summary: "what a member of staff needs to know, in one screen") { request in
            status(control, json: request.json)
        })
        registerClockCommands(in: table, control: control)
        registerKeyCommands(in: table, control: control)
        registerShareCommands(in: table, control: control)
        registerRadioCommands(in: table, control: control)
        registerCalibrateCommands(in: table, control: control)
        registerRecordCommands(in: table, control: control)
        registerSyncCommands(in: table, control: control)
        registerConfigCommands(in: table, control: control)
        registerIndicatorCommands(in: table, control: control)
        registerHealthCommand(in: table, control: control)
        table.register(ConsoleCommand("quit", summary: "stop the agent (on its own console, not through ctl)") { request in
            guard request.channel != .socket else { return .error("quit works on the agent's own console only") }
            control.stop()
            var o = JSONObject()
            o.bool("stopping", true)
            return request.json ? .json(o.text) : .text("stopping")
        })
        return table
    }

    static func status(_ control: AgentControl, json: Bool) -> ConsoleReply {
        let s = control.status()
        if json {
            var clock = JSONObject()
            clock.string("time", "\(UTCDateTime(unixSeconds: s.clock.unixSeconds))")
            clock.bool("trusted", s.clock.isTrusted)
            clock.string("trust", "\(s.clock.trust)")
            var o = JSONObject()
            o.string("label", s.label.isEmpty ? nil : s.label)
            o.raw("clock", clock.text)
            o.bool("exposureNotification", s.exposureNotification)
            o.bool("advertising", s.broadcast.isOnAir)
            o.string("broadcasting", s.broadcast.isOnAir ? nil : "\(s.broadcast)")
            o.string("controller", "\(s.controller)")
            o.string("controllerProblem", s.controllerProblem?.text)
            o.integer("controllerProblemSecondsAgo", s.controllerProblem?.secondsAgo)
            o.integer("rotations", s.rotations)
            o.integer("rpiAgeSeconds", s.rpiAgeSeconds)
            o.integer("nextRotationSeconds", s.nextRotationSeconds)
            o.integer("scans", s.scans)
            o.integer("lastScanSecondsAgo", s.lastScanSecondsAgo)
            o.integer("storedSightings", s.storage?.storedSightings ?? 0)
            o.integer("pendingSightings", s.storage?.pendingSightings ?? 0)
            o.integer("storeBytes", s.storage?.bytes ?? 0)
            o.string("storageError", s.storageError.map { "\($0)" })
            o.string("deletionHold", s.deletionHold)
            o.raw("sync", syncStatusJSON(s.keySync, named: s.namedKeySyncs))
            o.raw("share", s.keyShare.map { shareStatusJSON($0) } ?? "null")
            o.integer("exposures", s.exposures)
            o.raw("riskVerdict", verdictJSON(s.riskVerdict))
            o.raw("indicator", indicatorJSON(s.indicator))
            var software = JSONObject()
            software.string("version", s.software.version)
            software.string("image", s.software.image)
            software.string("build", s.software.build)
            software.string("slot", s.software.slot)
            software.string("rolledBackFrom", s.software.rolledBackFrom)
            o.raw("software", software.text)
            return .json(o.text)
        }
        func minutes(_ s: Int64) -> String { s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s" }
        var broadcasting = "\(s.broadcast)"
        if s.broadcast.isOnAir {
            broadcasting += ", RPI on air for \(s.rpiAgeSeconds.map(minutes) ?? "-")"
                + (s.nextRotationSeconds.map { ", next in \(minutes($0))" } ?? "") + " (\(s.rotations) rotations)"
        }
        var storage = s.storage.map { "\($0.storedSightings) sightings, \($0.bytes) bytes, \($0.pendingSightings) waiting for the next write" }
            ?? "unreadable"
        if let error = s.storageError { storage += "; writing fails: \(error.reason)" }
        return .text("""
            badge        \(s.label.isEmpty ? "no label (config set badge.label \"Room 12\")" : s.label)
            clock        \(UTCDateTime(unixSeconds: s.clock.unixSeconds)), \(s.clock.trust)
            exposure n.  \(s.exposureNotification ? "on" : "off")
            broadcasting \(broadcasting)
            controller   \(s.controller)\(s.controllerProblem.map { "; last problem \(minutes($0.secondsAgo)) ago: \($0.text)" } ?? "")
            scanning     \(s.scans) scans\(s.lastScanSecondsAgo.map { ", last \(minutes($0)) ago" } ?? "")
            storage      \(storage)
            key sync     \(syncLine(s.keySync))\(s.namedKeySyncs.map { "\n  \($0.name ?? "") \(syncLine($0))" }.joined())
            key share    \(shareLine(s.keyShare))
            exposures    \(s.exposures == 0 ? "none" : "\(s.exposures) — see exposures; \(s.riskVerdict.summary)")
            indicator    \(indicatorLine(s.indicator))
            software     \(s.software)
            """ + (s.deletionHold.map { "\nretention   old data kept: \($0)" } ?? ""))
    }
}
