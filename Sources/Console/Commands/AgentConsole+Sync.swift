import Agent
import ENCore

/// `sync`, `sync now`: key download state, and a download on demand that answers when it is done.
extension AgentConsole {
    static func registerSyncCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("sync", summary: "key download state") { request in
            request.json ? .json(syncStatusJSON(control.keySync)) : .text(syncLine(control.keySync))
        })
        table.register(ConsoleCommand(
            "sync now", summary: "download and match now; answers when done",
            help: "Waits for the run (a run already under way is joined). Ctrl-C, or closing the connection, stops "
                + "waiting; the download goes on.") { request in
            let answer = ConsoleDeferredReply()
            let outcome = control.syncNow { report in answer.resolve(syncReportReply(report, json: request.json)) }
            switch outcome {
            case .started, .alreadyRunning: return .deferred(answer)
            case .notConfigured: return .error("no key server is configured (keyserver.* in the config)")
            case .clockNotTrusted: return .error("the clock is not trusted yet: time trust, time set, or wait for NTP")
            }
        })
    }

    static func syncReportReply(_ report: SyncReport, json: Bool) -> ConsoleReply {
        let seconds = (report.finishedAt ?? report.startedAt) - report.startedAt
        var outcome = "succeeded", error: String?
        switch report.outcome {
        case .succeeded, .running: break
        case .cancelled: outcome = "cancelled"
        case .failed(let reason): outcome = "failed"; error = reason
        }
        guard json else {
            switch report.outcome {
            case .failed(let reason): return .error("sync failed after \(seconds) s (\(report.summary)): \(reason)")
            case .cancelled: return .error("sync cancelled (the configuration changed or the agent is stopping)")
            default: return .text("sync done in \(seconds) s: \(report.summary)")
            }
        }
        var o = JSONObject()
        o.string("outcome", outcome)
        o.string("error", error)
        o.integer("startedAt", report.startedAt)
        o.integer("finishedAt", report.finishedAt)
        for (name, value) in [("listed", report.listed), ("new", report.new), ("processed", report.processed),
                              ("rejected", report.rejected), ("skipped", report.skipped), ("retries", report.retries),
                              ("bytes", report.bytes), ("keys", report.keys), ("matchedKeys", report.matchedKeys),
                              ("revokedKeys", report.revokedKeys), ("newExposures", report.newExposures)] {
            o.integer(name, value)
        }
        return .json(o.text)
    }

    static func syncStatusJSON(_ status: KeySyncStatus?) -> String {
        let s = status ?? KeySyncStatus()
        var o = JSONObject()
        o.string("phase", "\(s.phase)")
        o.string("server", s.server)
        o.integer("lastSuccess", s.lastSuccess)
        o.string("lastError", s.lastError)
        o.integer("nextSync", s.nextSync)
        return o.text
    }

    static func syncLine(_ status: KeySyncStatus?) -> String {
        let s = status ?? KeySyncStatus()
        var parts = ["\(s.phase)"]
        if let t = s.lastSuccess { parts.append("last success \(UTCDateTime(unixSeconds: t))") }
        if let e = s.lastError { parts.append("last error: \(e)") }
        if let t = s.nextSync { parts.append("next \(UTCDateTime(unixSeconds: t))") }
        return parts.joined(separator: ", ")
    }
}
