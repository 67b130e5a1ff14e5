import Agent
import ENCore
import KeyDownload

/// `sync`, `sync now`: key download state, and a download on demand that answers when it is done.
extension AgentConsole {
    static func registerSyncCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("sync", summary: "key download state, and what the last sync refused") { request in
            request.json ? .json(syncStatusJSON(control.keySync, named: control.namedKeySyncs))
                : .text(syncText(control.keySync, named: control.namedKeySyncs))
        })
        table.register(ConsoleCommand(
            "sync now", summary: "download and match now; answers when done",
            help: "Waits for the run (a run already under way is joined). Ctrl-C, or closing the connection, stops "
                + "waiting; the download goes on.") { request in
            let answer = ConsoleDeferredReply()
            let outcome = control.syncNow { reports in answer.resolve(syncReportsReply(reports, json: request.json)) }
            switch outcome {
            case .started, .alreadyRunning: return .deferred(answer)
            case .notConfigured: return .error("no key server is configured (keyserver.* or keyserver.NAME.* in the config)")
            case .clockNotTrusted: return .error("the clock is not trusted yet: time trust, time set, or wait for NTP")
            }
        })
    }

    /// `sync now`'s answer: one server's as it always was; several servers' one line each (an error if any
    /// failed), or in JSON the first's figures with every server's in `servers`, each with its `name`.
    static func syncReportsReply(_ reports: [(name: String?, report: SyncReport)], json: Bool) -> ConsoleReply {
        guard let first = reports.first else { return .error("no key server synced") }
        guard reports.count > 1 || first.name != nil else { return syncReportReply(first.report, json: json) }
        if json {
            var o = JSONObject()
            addReport(first.report, to: &o)
            o.raw("servers", JSON.array(reports.map { name, report in
                var server = JSONObject()
                server.string("name", name)
                addReport(report, to: &server)
                return server.text
            }))
            return .json(o.text)
        }
        var lines: [String] = []
        var failed = false
        for (name, report) in reports {
            let label = name ?? "default"
            switch syncReportReply(report, json: false) {
            case .text(let line): lines.append("\(label): \(line)")
            case .error(let line): lines.append("\(label): \(line)"); failed = true
            default: continue
            }
        }
        let text = lines.joined(separator: "\n")
        return failed ? .error(text) : .text(text)
    }

    static func syncReportReply(_ report: SyncReport, json: Bool) -> ConsoleReply {
        let seconds = (report.finishedAt ?? report.startedAt) - report.startedAt
        guard json else {
            switch report.outcome {
            case .failed(let reason): return .error("sync failed after \(seconds) s (\(report.summary)): \(reason)")
            case .cancelled: return .error("sync cancelled (the configuration changed or the agent is stopping)")
            default: return .text("sync done in \(seconds) s: \(report.summary)")
            }
        }
        var o = JSONObject()
        addReport(report, to: &o)
        return .json(o.text)
    }

    /// A run's outcome and figures, as `sync now --json` and `sync --json`'s `lastRun` give them.
    static func addReport(_ report: SyncReport, to o: inout JSONObject) {
        var outcome = "succeeded", error: String?
        switch report.outcome {
        case .succeeded, .running: break
        case .cancelled: outcome = "cancelled"
        case .failed(let reason): outcome = "failed"; error = reason
        }
        o.string("outcome", outcome)
        o.string("error", error)
        o.integer("startedAt", report.startedAt)
        o.integer("finishedAt", report.finishedAt)
        for (name, value) in [("listed", report.listed), ("new", report.new), ("processed", report.processed),
                              ("rejected", report.rejected), ("skipped", report.skipped), ("deferred", report.deferred),
                              ("retries", report.retries),
                              ("bytes", report.bytes), ("keys", report.keys), ("matchedKeys", report.matchedKeys),
                              ("revokedKeys", report.revokedKeys), ("heldKeys", report.heldKeys),
                              ("releasedKeys", report.releasedKeys), ("droppedHeldKeys", report.droppedHeldKeys),
                              ("notValidYetKeys", report.notValidYetKeys), ("newExposures", report.newExposures)] {
            o.integer(name, value)
        }
        o.raw("refusals", JSON.array(report.refusals.map(JSONText.quoted)))
    }

    /// `phase` is a stable word (notConfigured, waitingForClock, waitingForTurn, idle, listing, matchingHeldKeys,
    /// downloading, verifying, matching, retrying), `state` the same in words; `file`/`of` number the export a phase is about; `lastRun` is the
    /// last run's outcome and figures, with the refusals that explain its skipped and rejected files.
    /// Named servers (`keyserver.<name>.*`) follow in `servers`, each in the same shape with its `name`.
    static func syncStatusJSON(_ status: KeySyncStatus?, named: [KeySyncStatus] = []) -> String {
        let s = status ?? KeySyncStatus()
        var o = JSONObject()
        if let name = s.name { o.string("name", name) }
        o.string("phase", s.phase.name)
        o.string("state", s.phase.description)
        o.integer("file", s.phase.file?.number)
        o.integer("of", s.phase.file?.of)
        o.string("server", s.server)
        o.integer("lastSuccess", s.lastSuccess)
        o.string("lastError", s.lastError)
        o.integer("nextSync", s.nextSync)
        if let run = s.lastRun, case .json(let text) = syncReportReply(run, json: true) {
            o.raw("lastRun", text)
        } else {
            o.raw("lastRun", "null")
        }
        if !named.isEmpty { o.raw("servers", JSON.array(named.map { syncStatusJSON($0) })) }
        return o.text
    }

    /// One line, for `status`: the state in words, then when it last worked, what went wrong, what comes next.
    static func syncLine(_ status: KeySyncStatus?) -> String {
        let s = status ?? KeySyncStatus()
        var parts = [s.phase.description]
        if let t = s.lastSuccess { parts.append("last success \(UTCDateTime(unixSeconds: t))") }
        if let e = s.lastError { parts.append("last error: \(e)") }
        if let t = s.nextSync { parts.append("next \(UTCDateTime(unixSeconds: t))") }
        return parts.joined(separator: ", ")
    }

    /// `sync`: the line, the last run's figures, and each thing it refused; then the same for each named server,
    /// under its name.
    static func syncText(_ status: KeySyncStatus?, named: [KeySyncStatus] = []) -> String {
        ([syncText(status)] + named.map { "key server \($0.name ?? ""):\n" + syncText($0) }).joined(separator: "\n")
    }

    private static func syncText(_ status: KeySyncStatus?) -> String {
        var lines = [syncLine(status)]
        if let run = status?.lastRun {
            lines.append("last sync: \(run.summary)")
            for refusal in run.refusals { lines.append("  \(refusal)") }
            let more = run.skipped + run.rejected - run.refusals.count
            if more > 0 { lines.append("  (\(more) more in the log)") }
        }
        return lines.joined(separator: "\n")
    }
}
