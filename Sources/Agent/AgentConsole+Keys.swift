import ENCore

/// `keys`, `keys export`, `wipe`: the commands that reveal or destroy keys, all behind consent.
extension AgentConsole {
    static func registerKeyCommands(in table: CommandTable, agent: Agent) {
        table.register(ConsoleCommand("keys", summary: "own temporary exposure keys, redacted unless --reveal",
                                      flags: ["--reveal"], consent: .withFlag("--reveal")) { request in
            let keys = agent.advertiser.keys
            let reveal = request.has("--reveal")
            func date(_ k: TemporaryExposureKey) -> String { UTCDateTime(unixSeconds: k.rollingStart.unixSeconds).date }
            if request.json {
                let items = keys.map {
                    "{\"rollingStart\":\($0.rollingStart.value),\"date\":\(JSONText.quoted(date($0))),\"rollingPeriod\":\($0.rollingPeriod)"
                        + (reveal ? ",\"key\":\"\($0.keyData.hex)\"}" : "}")
                }
                return .json("{\"keys\":[\(items.joined(separator: ","))]}")
            }
            guard !keys.isEmpty else { return .text("no keys yet") }
            return .text(keys.map { "\(date($0))  \(reveal ? $0.keyData.hex : "******** (redacted)")" }.joined(separator: "\n"))
        })
        table.register(ConsoleCommand("keys export", summary: "the last 14 days of keys as the key server's publish JSON, with consent",
                                      consent: .always) { _ in
            var random = SystemRandomNumberGenerator()
            let hmacKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            return .json(KeyPublication.json(agent.advertiser.keys, hmacKey: hmacKey))
        })
        table.register(ConsoleCommand("wipe", summary: "delete every TEK, sighting and exposure, with consent",
                                      consent: .always) { request in
            do { try agent.wipe() } catch { return .error("wipe failed: \(error)") }
            if request.json { return .json("{\"wiped\":true,\"keys\":\(agent.advertiser.keys.count)}") }
            return .text("wiped: keys, sightings and exposures deleted"
                         + (agent.advertiser.isRunning ? "; a fresh key is on air" : ""))
        })
    }
}
