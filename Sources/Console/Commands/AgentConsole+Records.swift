import Agent
import AgentBase
import ENCore
import SystemIO

/// `sightings`, `storage`, `exposures`: what the badge has recorded.
extension AgentConsole {
    static func registerRecordCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("sightings", summary: "stored sightings, newest first",
                                      usage: "sightings [--since DURATION] [--limit N] [--json]",
                                      options: ["--limit", "--since"]) { request in
            let limit = request.option("--limit").flatMap(Int.init) ?? 20
            guard limit > 0 && limit <= 10_000 else { return .usage("--limit: expected 1-10000") }
            var since = Int64.min
            if let text = request.option("--since") {
                guard let seconds = durationSeconds(text) else { return .usage("--since: expected a duration like 30m, 2h or 3d") }
                since = control.clock.unixSeconds - seconds
            }
            let found: [Sighting]
            do throws(SystemError) { found = try control.sightings(since: since, limit: limit) } catch { return .error("\(error)") }
            if request.json {
                var o = JSONObject()
                o.raw("sightings", JSON.array(found.map { sighting in
                    var item = JSONObject()
                    item.string("rpi", sighting.rpi.hex)
                    item.string("aem", sighting.aem.hex)
                    item.integer("time", sighting.firstSeen)
                    // null for a sighting without RSSI.
                    item.integer("rssiMax", sighting.signal?.max)
                    item.integer("rssiMean", sighting.signal?.mean)
                    item.integer("reports", sighting.reports)
                    return item.text
                }))
                return .json(o.text)
            }
            guard !found.isEmpty else { return .text("no sightings stored") }
            return .text(found.map { "\(UTCDateTime(unixSeconds: $0.firstSeen))  \($0.rpi.hex.prefix(8))…  \($0.signal.map { "\($0.max) dBm max" } ?? "no RSSI"), \($0.reports) reports" }
                .joined(separator: "\n"))
        })
        table.register(ConsoleCommand("storage", summary: "bytes used, records, oldest sighting, flush state") { request in
            let u: StorageUsage
            do throws(SystemError) { u = try control.storage() } catch { return .error("\(error)") }
            let health = control.storageHealth
            if request.json {
                var o = JSONObject()
                o.integer("bytes", u.bytes)
                o.integer("segments", u.segments)
                o.integer("records", u.records)
                o.integer("storedSightings", u.storedSightings)
                o.integer("pendingSightings", u.pendingSightings)
                o.integer("oldestSighting", u.oldestSighting)
                o.string("lastWriteError", health.lastError.map { "\($0)" })
                o.integer("droppedOverScanLimit", health.dropped.overScanLimit)
                o.integer("droppedOverHourLimit", health.dropped.overHourLimit)
                return .json(o.text)
            }
            var lines = ["\(u.storedSightings) sightings in \(u.bytes) bytes (\(u.segments) segments), "
                         + "\(u.pendingSightings) waiting for the next write"
                         + (u.oldestSighting.map { ", oldest \(UTCDateTime(unixSeconds: $0))" } ?? "")]
            if let error = health.lastError { lines.append("last write failed: \(error)") }
            let dropped = health.dropped
            if dropped.overScanLimit + dropped.overHourLimit > 0 {
                lines.append("not stored (flood limits): \(dropped.overScanLimit) over the per-scan limit, "
                             + "\(dropped.overHourLimit) over the per-hour limit")
            }
            return .text(lines.joined(separator: "\n"))
        })
        table.register(ConsoleCommand("exposures", summary: "exposures found; --daily: v2 daily summaries; "
                                          + "--windows: v2 exposure windows as Google's API gives them",
                                      usage: "exposures [--daily|--windows] [--json]", flags: ["--daily", "--windows"]) { request in
            let found = control.exposures
            let verdict = control.riskVerdict
            if request.has("--windows") {
                // Records written before windows kept their scan instances have none to show.
                let windows = found.flatMap { $0.windows.compactMap { $0.exposureWindow } }
                if request.json { return .json("{\"exposureWindows\":" + JSON.array(windows.map { $0.apiJSON }) + "}") }
                guard !windows.isEmpty else { return .text("no exposure windows") }
                return .text(windows.map { window in
                    "\(window.date)  \(window.reportType), \(window.infectiousness) infectiousness, "
                        + "calibration \(window.calibrationConfidence): " + window.scanInstances.map {
                            "\($0.typicalAttenuation)/\($0.minAttenuation) dB \($0.secondsSinceLastScan) s"
                        }.joined(separator: ", ")
                }.joined(separator: "\n"))
            }
            if request.has("--daily") {
                let days = control.dailySummaries()
                if request.json {
                    var o = JSONObject()
                    o.raw("dailySummaries", JSON.array(days.map { day in
                        var item = JSONObject()
                        item.string("date", "\(day.date)")
                        item.number("scoreSum", day.overall.scoreSum)
                        item.number("maximumScore", day.overall.maximumScore)
                        item.number("weightedDurationSum", day.overall.weightedDurationSum)
                        return item.text
                    }))
                    return .json(o.text)
                }
                guard !days.isEmpty else { return .text("no exposures") }
                return .text(days.map { "\($0.date)  score sum \(Int($0.overall.scoreSum)), maximum \(Int($0.overall.maximumScore)), "
                    + "weighted duration \(Int($0.overall.weightedDurationSum)) s" }.joined(separator: "\n"))
            }
            if request.json {
                var o = JSONObject()
                o.raw("exposures", JSON.array(found.map { exposure in
                    var item = JSONObject()
                    item.string("date", "\(exposure.date)")
                    item.integer("durationMinutes", exposure.durationMinutes)
                    item.integer("riskScore", exposure.riskScore)
                    item.integer("typicalAttenuation", exposure.typicalAttenuation)
                    item.string("reportType", exposure.reportType.description)
                    // As the export gave it: beyond −14…14 it is an encoded range or state, scored as unknown.
                    item.integer("daysSinceOnsetOfSymptoms", exposure.daysSinceOnsetOfSymptoms)
                    item.string("calibrationConfidence", exposure.calibrationConfidence.description)
                    item.bool("notifiable", verdict.notifiable.contains(exposure.id))
                    return item.text
                }))
                o.raw("verdict", verdictJSON(verdict))
                return .json(o.text)
            }
            guard !found.isEmpty else { return .text("no exposures") }
            return .text(found.map {
                "\($0.date)  \($0.durationMinutes) min, attenuation \($0.typicalAttenuation) dB, risk score \($0.riskScore), "
                    + "\($0.reportType), onset \($0.daysSinceOnsetOfSymptoms.map(String.init) ?? "-")"
            }.joined(separator: "\n") + "\n" + verdict.summary)
        })
    }

    /// Which risk model decided (`model`) and what: with `cwa`, the app's figures under its own names
    /// (`totalRiskLevel`, `numberOfDaysWithLowRisk`, …, the dates ISO); with `google`, the `threshold`.
    /// `notifiable` counts the exposures it finds worth notifying.
    static func verdictJSON(_ verdict: ExposureVerdict) -> String {
        var o = JSONObject()
        o.string("model", verdict.model.name)
        o.integer("notifiable", verdict.notifiable.count)
        switch verdict.model {
        case .google(let threshold): o.integer("threshold", threshold)
        case .cwa: break
        }
        if let cwa = verdict.cwa {
            o.string("totalRiskLevel", cwa.totalRiskLevel.description)
            for level in [CWARiskLevel.low, .high] {
                let name = level == .low ? "Low" : "High"
                o.integer("numberOfDaysWith\(name)Risk", cwa.numberOfDays(with: level))
                o.string("mostRecentDateWith\(name)Risk", cwa.mostRecentDate(with: level).map { "\($0)" })
                o.integer("totalMinimumDistinctEncountersWith\(name)Risk", cwa.totalMinimumDistinctEncounters(with: level))
            }
        }
        return o.text
    }

    /// `90s`, `30m`, `2h`, `3d` (or plain seconds) in seconds; nil for anything else.
    static func durationSeconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last, let factor = units[unit], let n = Int64(text.dropLast()), n >= 0, n <= 365 * 86_400 {
            return n * factor
        }
        return Int64(text).flatMap { $0 >= 0 ? $0 : nil }
    }
}
