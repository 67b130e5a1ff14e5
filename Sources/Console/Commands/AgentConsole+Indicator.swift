import Agent
import ENCore
import Indicators

/// `indicator`, `indicator test`, `indicator ack`, `find`: the LED, buzzer and button.
extension AgentConsole {
    static func registerIndicatorCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("indicator", summary: "what the LED and buzzer show, and where they are") { request in
            let report = control.indicator
            return request.json ? .json(indicatorJSON(report)) : .text(indicatorText(report))
        })
        table.register(ConsoleCommand(
            "indicator test", summary: "play every LED and buzzer pattern once",
            help: "Plays, one after another: " + IndicatorTest.parts.map { $0.name }.joined(separator: ", ")
                + ". A short press of the button, or find stop, ends it early.") { request in
            guard control.testIndicator() else { return noIndicator(control) }
            let parts = IndicatorTest.parts
            if request.json {
                var o = JSONObject()
                o.bool("playing", true)
                o.number("seconds", seconds(parts.last.map { $0.offset + $0.length } ?? .zero))
                o.raw("parts", JSON.array(parts.map { part in
                    var p = JSONObject()
                    p.string("name", part.name)
                    p.number("at", seconds(part.offset))
                    p.number("seconds", seconds(part.length))
                    return p.text
                }))
                return .json(o.text)
            }
            return .text("playing every pattern once (\(secondsText(parts.last.map { $0.offset + $0.length } ?? .zero))):\n"
                         + parts.map { "  at \(secondsText($0.offset))  \($0.name)" }.joined(separator: "\n"))
        })
        table.register(ConsoleCommand(
            "indicator ack", summary: "acknowledge the exposure signal (as a short press does); exposures stay recorded"
        ) { request in
            let count = control.acknowledgeExposureSignal()
            if request.json {
                var o = JSONObject()
                o.integer("acknowledged", count)
                o.raw("indicator", indicatorJSON(control.indicator))
                return .json(o.text)
            }
            return .text(count == 0 ? "no exposure signal to acknowledge"
                         : "acknowledged \(count) exposure(s): the signal stops; they stay recorded (exposures)")
        })
        table.register(ConsoleCommand(
            "find", summary: "blink and beep for a minute so staff can find the badge", usage: "find [stop] [--json]",
            help: "A short press of the button, or find stop, ends it.", arguments: 0...1) { request in
            let stop = request.arguments.first == "stop"
            guard request.arguments.isEmpty || stop else { return .usage("expected stop or nothing") }
            if stop {
                let stopped = control.stopFinding()
                guard request.json else { return .text(stopped ? "stopped" : "nothing was playing") }
                var o = JSONObject()
                o.bool("stopped", stopped)
                return .json(o.text)
            }
            guard control.find() else { return noIndicator(control) }
            guard request.json else { return .text("blinking and beeping for 60 s (find stop, or a short press, ends it)") }
            var o = JSONObject()
            o.bool("finding", true)
            o.integer("seconds", 60)
            return .json(o.text)
        })
    }

    static func noIndicator(_ control: AgentControl) -> ConsoleReply {
        let problems = control.indicator.problems
        return .error("this badge has no LED or buzzer" + (problems.isEmpty
            ? " (indicator.led, indicator.buzzer in the board file)" : ": " + problems.joined(separator: "; ")))
    }

    /// One line, for `status`.
    static func indicatorLine(_ r: IndicatorReport) -> String {
        guard r.isPresent else {
            return r.problems.isEmpty ? "none (indicator.* in the board file)" : "unavailable: " + r.problems.joined(separator: "; ")
        }
        var outputs: [String] = []
        func named(_ name: String, _ o: IndicatorReport.Output) -> String {
            (o.location == "virtual" ? "virtual " : "") + "\(name) \(o.isOn ? "on" : "off")"
        }
        if let led = r.led { outputs.append(named("LED", led)) }
        if let buzzer = r.buzzer { outputs.append(named("buzzer", buzzer)) }
        let playing = r.signal.map { "; playing \($0.name)" } ?? ""
        let problems = r.problems.isEmpty ? "" : "; not usable: " + r.problems.joined(separator: "; ")
        return "\(r.state)\(playing) (\(outputs.joined(separator: ", ")))\(problems)"
    }

    static func indicatorText(_ r: IndicatorReport) -> String {
        var lines = ["state    \(r.state)"]
        if let signal = r.signal { lines.append("playing  \(signal)") }
        if r.exposuresToAcknowledge > 0 {
            lines.append("exposure \(r.exposuresToAcknowledge) to acknowledge: a short press (or indicator ack) stops the signal")
        }
        lines.append("LED      " + (r.led.map { "\($0.location), \($0.isOn ? "on" : "off")" } ?? "none"))
        lines.append("buzzer   " + (r.buzzer.map { "\($0.location), \($0.isOn ? "on" : "off")" } ?? "none"))
        lines.append("button   " + (r.button ?? "none"))
        for problem in r.problems { lines.append("problem  \(problem)") }
        return lines.joined(separator: "\n")
    }

    /// `state` and `signal` are stable words; `pattern` says in words what the state looks like.
    static func indicatorJSON(_ r: IndicatorReport) -> String {
        func output(_ o: IndicatorReport.Output?) -> String {
            guard let o else { return "null" }
            var j = JSONObject()
            j.string("location", o.location)
            j.bool("on", o.isOn)
            return j.text
        }
        var o = JSONObject()
        o.bool("present", r.isPresent)
        o.string("state", r.state.rawValue)
        o.string("meaning", r.state.meaning)
        o.string("pattern", r.state.looks)
        o.string("signal", r.signal?.name)
        o.raw("led", output(r.led))
        o.raw("buzzer", output(r.buzzer))
        o.string("button", r.button)
        o.integer("exposuresToAcknowledge", r.exposuresToAcknowledge)
        o.raw("problems", JSON.array(r.problems.map(JSONText.quoted)))
        return o.text
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

    static func secondsText(_ d: Duration) -> String {
        let tenths = d.components.seconds * 10 + d.components.attoseconds / 100_000_000_000_000_000
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
