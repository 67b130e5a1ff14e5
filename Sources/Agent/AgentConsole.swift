import ENCore
import EventLoop
import HCI
import Store

/// The agent's console commands (`../shared/CLI.md`), registered in a `CommandTable` that both the
/// stdin/serial console and the unix socket (`enbeacon ctl`) serve. Commands that reveal keys ask for
/// consent (see `ConsentRule`); `wipe` is still to come.
public enum AgentConsole {
    public static func commandTable(for agent: Agent, stop: @escaping () -> Void) -> CommandTable {
        let table = CommandTable()
        table.register(ConsoleCommand("status", summary: "what a member of staff needs to know, in one screen",
                                      flags: ["--json"]) { request in
            status(agent, json: request.json)
        })
        table.register(ConsoleCommand("time", summary: "the clock, and why it is or is not trusted", flags: ["--json"]) { request in
            let now = UTCDateTime(unixSeconds: agent.clock.unixSeconds)
            if request.json {
                return .json("{\"time\":\(JSONText.quoted("\(now)")),\"unix\":\(agent.clock.unixSeconds),"
                             + "\"trusted\":\(agent.clock.isTrusted),\"trust\":\(JSONText.quoted("\(agent.clock.trust)"))}")
            }
            return .text("\(now) — \(agent.clock.trust)")
        })
        table.register(ConsoleCommand("time trust", summary: "trust the clock as it is (boards without NTP or RTC)") { _ in
            agent.clock.trustByOperator()
            return .text("clock trusted: \(UTCDateTime(unixSeconds: agent.clock.unixSeconds))")
        })
        table.register(ConsoleCommand("keys", summary: "own temporary exposure keys, redacted unless --reveal",
                                      flags: ["--json", "--reveal"], consent: .withFlag("--reveal")) { request in
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
                                      consent: .always) { _ in
            do { try agent.wipe() } catch { return .error("wipe failed: \(error)") }
            return .text("wiped: keys, sightings and exposures deleted; a fresh key is on air")
        })
        table.register(ConsoleCommand("en on", summary: "Exposure Notification on: advertise and scan") { _ in
            agent.setExposureNotification(enabled: true)
            return .text("Exposure Notification on")
        })
        table.register(ConsoleCommand("en off", summary: "Exposure Notification off: no advertising, no scanning; data kept") { _ in
            agent.setExposureNotification(enabled: false)
            return .text("Exposure Notification off")
        })
        table.register(ConsoleCommand("sightings", summary: "stored sightings, newest first",
                                      usage: "sightings [--since DURATION] [--limit N] [--json]", flags: ["--json"],
                                      options: ["--limit", "--since"]) { request in
            let limit = request.option("--limit").flatMap(Int.init) ?? 20
            guard limit > 0 && limit <= 10_000 else { return .usage("--limit: expected 1-10000") }
            var since = Int64.min
            if let text = request.option("--since") {
                guard let seconds = durationSeconds(text) else { return .usage("--since: expected a duration like 30m, 2h or 3d") }
                since = agent.clock.unixSeconds - seconds
            }
            let found: [Sighting]
            do { found = try agent.store.newestFirst(since: since, limit: limit) } catch { return .error("\(error)") }
            if request.json {
                let items = found.map { "{\"rpi\":\"\($0.rpi.hex)\",\"aem\":\"\($0.aem.hex)\",\"time\":\($0.firstSeen),\"rssiMax\":\($0.rssiMax),\"rssiMean\":\($0.rssiMean),\"reports\":\($0.reports)}" }
                return .json("{\"sightings\":[\(items.joined(separator: ","))]}")
            }
            guard !found.isEmpty else { return .text("no sightings stored") }
            return .text(found.map { "\(UTCDateTime(unixSeconds: $0.firstSeen))  \($0.rpi.hex.prefix(8))…  \($0.rssiMax) dBm max, \($0.reports) reports" }
                .joined(separator: "\n"))
        })
        table.register(ConsoleCommand("sync", summary: "key download state", flags: ["--json"]) { request in
            let s = agent.keySync.status
            if request.json {
                return .json("{\"phase\":\(JSONText.quoted("\(s.phase)")),\"server\":\(s.server.map(JSONText.quoted) ?? "null"),"
                             + "\"lastSuccess\":\(s.lastSuccess.map(String.init) ?? "null"),"
                             + "\"lastError\":\(s.lastError.map(JSONText.quoted) ?? "null"),"
                             + "\"nextSync\":\(s.nextSync.map(String.init) ?? "null")}")
            }
            return .text(syncLine(agent))
        })
        table.register(ConsoleCommand("sync now", summary: "download and match now") { _ in
            switch agent.keySync.syncNow() {
            case .started: return .text("sync started")
            case .alreadyRunning: return .text("a sync is already running")
            case .notConfigured: return .error("no key server is configured (keyserver.* in the config)")
            case .clockNotTrusted: return .error("the clock is not trusted yet: time trust, or wait for NTP")
            }
        })
        table.register(ConsoleCommand("exposures", summary: "exposures found; --daily: v2 daily summaries",
                                      usage: "exposures [--daily] [--json]", flags: ["--json", "--daily"]) { request in
            let found = agent.exposures.exposures
            if request.has("--daily") {
                let days = ExposureScoring.dailySummaries(of: found, v2: agent.keySync.settings.riskV2)
                if request.json {
                    let items = days.map { "{\"date\":\(JSONText.quoted("\($0.date)")),\"scoreSum\":\($0.overall.scoreSum),\"maximumScore\":\($0.overall.maximumScore),\"weightedDurationSum\":\($0.overall.weightedDurationSum)}" }
                    return .json("{\"dailySummaries\":[\(items.joined(separator: ","))]}")
                }
                guard !days.isEmpty else { return .text("no exposures") }
                return .text(days.map { "\($0.date)  score sum \(Int($0.overall.scoreSum)), maximum \(Int($0.overall.maximumScore)), "
                    + "weighted duration \(Int($0.overall.weightedDurationSum)) s" }.joined(separator: "\n"))
            }
            if request.json {
                let items = found.map { "{\"date\":\(JSONText.quoted("\($0.date)")),\"durationMinutes\":\($0.durationMinutes),\"riskScore\":\($0.riskScore),\"typicalAttenuation\":\($0.typicalAttenuation)}" }
                return .json("{\"exposures\":[\(items.joined(separator: ","))]}")
            }
            guard !found.isEmpty else { return .text("no exposures") }
            return .text(found.map { "\($0.date)  \($0.durationMinutes) min, attenuation \($0.typicalAttenuation) dB, risk score \($0.riskScore)" }
                .joined(separator: "\n"))
        })
        table.register(ConsoleCommand("config list", summary: "every configuration key and its value") { _ in
            .text(ConfigurationKey.all.map { "\($0.name) = \(agent.configuration[$0])" }.joined(separator: "\n"))
        })
        table.register(ConsoleCommand("config get", summary: "one configuration value", arguments: 1...1,
                                      completion: .words(ConfigurationKey.all.map(\.name))) { request in
            guard let key = ConfigurationKey.named(request.arguments[0]) else {
                return .error("unknown key '\(request.arguments[0])' (config list shows them)")
            }
            return .text(agent.configuration[key])
        })
        table.register(ConsoleCommand("config set", summary: "change a configuration value (validated, saved)",
                                      arguments: 2...2, completion: .words(ConfigurationKey.all.map(\.name))) { request in
            do {
                try agent.setConfiguration(request.arguments[0], to: request.arguments[1])
                return .text("\(request.arguments[0]) = \(request.arguments[1])")
            } catch {
                return .error("\(error)")
            }
        })
        table.register(ConsoleCommand("storage", summary: "bytes used, records, oldest sighting, flush state",
                                      flags: ["--json"]) { request in
            let u: StoreUsage
            do { u = try agent.store.usage() } catch { return .error("\(error)") }
            if request.json {
                return .json("{\"bytes\":\(u.bytes),\"segments\":\(u.segments),\"records\":\(u.records),"
                             + "\"storedSightings\":\(u.storedSightings),\"pendingSightings\":\(u.pendingSightings),"
                             + "\"oldestSighting\":\(u.oldestSighting.map(String.init) ?? "null")}")
            }
            return .text("\(u.storedSightings) sightings in \(u.bytes) bytes (\(u.segments) segments), "
                         + "\(u.pendingSightings) waiting for the next flush"
                         + (u.oldestSighting.map { ", oldest \(UTCDateTime(unixSeconds: $0))" } ?? ""))
        })
        table.register(ConsoleCommand("hci info", summary: "controller version, address, features") { _ in
            let i = agent.driver.info
            let c = agent.driver.counters
            return .text("""
                controller \(agent.driver.phase), address \(i.publicAddress.map { "\($0)" } ?? "unknown"), \
                advertising TX power \(i.advertisingTxPower.map { "\($0) dBm" } ?? "unknown")
                commands \(c.commandsSent), timeouts \(c.commandTimeouts), rejected \(c.commandsRejected), \
                hardware errors \(c.hardwareErrors), initialisations \(c.initializations), link failures \(c.transportFailures)
                reports \(c.advertisingReports), unknown events \(c.unknownEvents), malformed events \(c.malformedEvents)
                """)
        })
        table.register(ConsoleCommand("hci reset", summary: "reset the controller; broadcasting resumes by itself") { _ in
            agent.driver.resetController()
            return .text("controller reset")
        })
        table.register(ConsoleCommand("live", summary: "stream received GAEN beacons: time, address, RPI, RSSI, proximity",
                                      usage: "live [on|off]", arguments: 0...1, flags: ["--json"]) { request in
            if request.arguments.first == "off" { return .endStream("live off") }
            guard request.arguments.isEmpty || request.arguments.first == "on" else { return .usage("expected on or off") }
            // JSON lines on the socket (scripts), text for a person.
            let json = request.json || request.channel == .socket
            var token = 0
            let stream = ConsoleStream(onStop: { agent.removeReportObserver(token) })
            token = agent.addReportObserver { report, time in
                stream.send(liveLine(report, time: time, json: json))
            }
            return .stream(stream)
        })
        table.register(ConsoleCommand("quit", summary: "stop the agent (console on stdin only)") { request in
            guard request.channel != .socket else { return .error("quit works on the agent's own console only") }
            stop()
            return .text("stopping")
        })
        return table
    }

    /// `90s`, `30m`, `2h`, `3d` (or plain seconds) in seconds; nil for anything else.
    public static func durationSeconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last, let factor = units[unit], let n = Int64(text.dropLast()), n >= 0, n <= 365 * 86_400 {
            return n * factor
        }
        return Int64(text).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// How near a sender is, in the words people use, from the attenuation its signal suffered.
    /// A received beacon's TX power is inside its encrypted metadata, readable only once its key is
    /// published, so the live view assumes a typical phone's 0 dBm; thresholds follow the v1 buckets.
    public static func proximity(rssi: Int8?) -> String {
        guard let rssi else { return "unknown" }
        let attenuation = 0 - Int(rssi)
        switch attenuation {
        case ...51: return "immediate"
        case ...63: return "near"
        case ...73: return "medium"
        default: return "far"
        }
    }

    static func liveLine(_ report: GAENReport, time: Int64, json: Bool) -> String {
        let rssi = report.rssi.map(String.init) ?? "null"
        if json {
            return "{\"time\":\(time),\"address\":\"\(report.address)\",\"rpi\":\"\(report.payload.rpi.hex)\","
                + "\"rssi\":\(rssi),\"proximity\":\"\(proximity(rssi: report.rssi))\"}"
        }
        let clock = String(UTCDateTime(unixSeconds: time).description.dropFirst(11).prefix(8))
        return "\(clock)  \(report.address)  \(report.payload.rpi.hex.prefix(8))…  \(report.rssi.map { "\($0) dBm" } ?? "no RSSI")  "
            + proximity(rssi: report.rssi)
    }

    static func syncLine(_ agent: Agent) -> String {
        let s = agent.keySync.status
        var parts = ["\(s.phase)"]
        if let t = s.lastSuccess { parts.append("last success \(UTCDateTime(unixSeconds: t))") }
        if let e = s.lastError { parts.append("last error: \(e)") }
        if let t = s.nextSync { parts.append("next \(UTCDateTime(unixSeconds: t))") }
        return parts.joined(separator: ", ")
    }

    static func status(_ agent: Agent, json: Bool) -> ConsoleReply {
        let usage = try? agent.store.usage()
        let next = agent.advertiser.nextRotation.map { ($0 - agent.loop.now).nanosecondsValue / 1_000_000_000 }
        let exposures = agent.exposures.exposures
        if json {
            return .json("{\"clock\":{\"trusted\":\(agent.clock.isTrusted),\"trust\":\(JSONText.quoted("\(agent.clock.trust)"))},"
                         + "\"advertising\":\(agent.advertiser.isRunning),\"controller\":\(JSONText.quoted("\(agent.driver.phase)")),"
                         + "\"rotations\":\(agent.advertiser.rotations),\"nextRotationSeconds\":\(next.map(String.init) ?? "null"),"
                         + "\"scans\":\(agent.scanner.scans),\"storedSightings\":\(usage?.storedSightings ?? 0),"
                         + "\"storeBytes\":\(usage?.bytes ?? 0),\"sync\":\(JSONText.quoted(syncLine(agent))),"
                         + "\"exposures\":\(exposures.count)}")
        }
        return .text("""
            clock        \(agent.clock.trust)
            broadcasting \(agent.advertiser.isRunning ? "yes" : "no"), \(agent.advertiser.rotations) rotations\
            \(next.map { ", next in \($0 / 60) min \($0 % 60) s" } ?? "")
            controller   \(agent.driver.phase)
            scanning     \(agent.scanner.scans) scans
            storage      \(usage.map { "\($0.storedSightings) sightings, \($0.bytes) bytes" } ?? "unreadable")
            key sync     \(syncLine(agent))
            exposures    \(exposures.isEmpty ? "none" : "\(exposures.count) — see exposures")
            """)
    }
}
