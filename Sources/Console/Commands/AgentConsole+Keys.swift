import Agent
import ENCore
import SystemIO

/// `keys`, `keys export`, `wipe`: the commands that reveal or destroy keys, all behind consent.
extension AgentConsole {
    static func registerKeyCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("keys", summary: "own temporary exposure keys, redacted unless --reveal",
                                      flags: ["--reveal"], consent: .withFlag("--reveal")) { request in
            let keys = control.ownKeys
            let reveal = request.has("--reveal")
            func date(_ k: TemporaryExposureKey) -> String { UTCDateTime(unixSeconds: k.rollingStart.unixSeconds).date }
            if request.json {
                var o = JSONObject()
                o.raw("keys", JSON.array(keys.map { key in
                    var item = JSONObject()
                    item.integer("rollingStart", key.rollingStart.value)
                    item.string("date", date(key))
                    item.integer("rollingPeriod", key.rollingPeriod)
                    if reveal { item.string("key", key.keyData.hex) }
                    return item.text
                }))
                return .json(o.text)
            }
            guard !keys.isEmpty else { return .text("no keys yet") }
            return .text(keys.map { "\(date($0))  \(reveal ? $0.keyData.hex : "******** (redacted)")" }.joined(separator: "\n"))
        })
        table.register(ConsoleCommand("keys export", summary: "the last 14 days of keys as the key server's publish JSON, with consent",
                                      consent: .always) { _ in
            var random = SystemRandomNumberGenerator()
            let hmacKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            return .json(KeyPublication.json(control.ownKeys, hmacKey: hmacKey))
        })
        table.register(ConsoleCommand("wipe", summary: "delete every TEK, sighting and exposure, with consent",
                                      consent: .always) { request in
            do throws(SystemError) { try control.wipe() } catch { return .error("wipe failed: \(error)") }
            if request.json {
                var o = JSONObject()
                o.bool("wiped", true)
                o.integer("keys", control.ownKeys.count)
                return .json(o.text)
            }
            return .text("wiped: keys, sightings and exposures deleted"
                         + (control.isAdvertising ? "; a fresh key is on air" : ""))
        })
    }
}
