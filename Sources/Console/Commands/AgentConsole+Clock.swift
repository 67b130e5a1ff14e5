import Agent
import ENCore

/// `time`, `time set`, `time trust`.
extension AgentConsole {
    static func registerClockCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("time", summary: "the clock, and why it is or is not trusted") { request in
            timeReply(control, json: request.json)
        })
        table.register(ConsoleCommand(
            "time set", summary: "set the clock (boards without NTP or RTC); trusts it",
            usage: "time set ISO-8601", help: "e.g. time set 2026-11-22T14:05:00Z (or +01:00 for a local time). The system "
                + "clock is set (CAP_SYS_TIME); a jump rotates the RPI and address at once.",
            arguments: 1...1) { request in
            let unix: Int64
            do throws(ISO8601Time.ParseError) { unix = try ISO8601Time.unixSeconds(request.arguments[0]) } catch { return .usage("\(error)") }
            // Exposure Notification began in 2020; a time before that, or decades ahead, is a typo.
            let year2020: Int64 = 1_577_836_800, year2100: Int64 = 4_102_444_800
            guard (year2020..<year2100).contains(unix) else { return .error("refusing \(request.arguments[0]): expected 2020-2099") }
            do throws(ClockSetError) { try control.setClock(unixSeconds: unix) } catch { return .error("\(error)") }
            return timeReply(control, json: request.json)
        })
        table.register(ConsoleCommand("time trust", summary: "trust the clock as it is (boards without NTP or RTC)") { request in
            control.trustClock()
            return timeReply(control, json: request.json)
        })
    }

    static func timeReply(_ control: AgentControl, json: Bool) -> ConsoleReply {
        let now = UTCDateTime(unixSeconds: control.clock.unixSeconds)
        if json {
            var o = JSONObject()
            o.string("time", "\(now)")
            o.integer("unix", control.clock.unixSeconds)
            o.bool("trusted", control.clock.isTrusted)
            o.string("trust", "\(control.clock.trust)")
            return .json(o.text)
        }
        return .text("\(now) — \(control.clock.trust)")
    }
}
