import Agent
import ENCore

/// `health`: whether the badge is doing its job, for update agents and monitoring that decide from one
/// command's exit status (`enbeacon ctl health`: 0 healthy, 1 with one line per failing check).
extension AgentConsole {
    static func registerHealthCommand(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand(
            "health", summary: "whether the badge is doing its job; an error naming each failing check otherwise",
            help: "Checks: " + HealthCheck.checks.joined(separator: ", ") + ". Fails when the badge is not on air as "
                + "the controller confirmed it, has opened no scan window in 10 minutes, has an untrusted clock, cannot "
                + "write its store or keys, or (with a key server) has not synced within health.max_sync_age_hours."
        ) { request in
            healthReply(control.health(), json: request.json)
        })
    }

    static func healthReply(_ failing: [HealthCheck.Failure], json: Bool) -> ConsoleReply {
        var o = JSONObject()
        o.bool("healthy", failing.isEmpty)
        o.raw("failing", JSON.array(failing.map { failure in
            var f = JSONObject()
            f.string("check", failure.check)
            f.string("reason", failure.reason)
            return f.text
        }))
        guard !failing.isEmpty else {
            if json { return .json(o.text) }
            return .text("healthy: " + HealthCheck.checks.joined(separator: ", ") + " pass")
        }
        let lines = ["unhealthy: \(failing.count) of \(HealthCheck.checks.count) checks fail"]
            + failing.map { "\($0.check): \($0.reason)" }
        return .failure(text: lines.joined(separator: "\n"), json: o.text)
    }
}
