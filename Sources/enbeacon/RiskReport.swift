import ENCore

extension RiskCommand {
    /// The answer, as text or one JSON document. Names follow the app's test file (its `exp…` members without
    /// the prefix), so a health authority can hold one against the other.
    struct Report {
        let today: UTCDay
        let windows: [ExposureWindow]
        let result: CWARiskResult

        func age(_ day: UTCDay) -> Int64 { day.days(until: today) }

        var text: String {
            var lines = ["total risk: \(result.totalRiskLevel) (today \(today))"]
            for level in CWARiskLevel.allCases {
                let days = result.numberOfDays(with: level)
                let recent = result.mostRecentDate(with: level).map { "most recent \($0) (age \(age($0)))" } ?? "none"
                lines.append("\(level) risk: \(days) day\(days == 1 ? "" : "s"), \(recent), minimum distinct encounters "
                             + "\(result.totalMinimumDistinctEncounters(with: level))")
            }
            lines.append("days: \(result.days.count)")
            for day in result.days {
                lines.append("  \(day.date) (age \(age(day.date))): \(day.riskLevel), normalized time "
                             + "\(JSON.number(day.normalizedTime)), minimum distinct encounters low "
                             + "\(day.minimumDistinctEncountersWithLowRisk) high \(day.minimumDistinctEncountersWithHighRisk)")
            }
            lines.append("windows: \(windows.count)")
            for (index, (window, outcome)) in zip(windows, result.windows).enumerated() {
                lines.append("  \(index + 1) \(window.date): \(Self.text(outcome))")
            }
            return lines.joined(separator: "\n") + "\n"
        }

        static func text(_ outcome: CWAWindowOutcome) -> String {
            switch outcome {
            case .counted(let risk):
                "\(risk.riskLevel), transmission risk level \(risk.transmissionRiskLevel), normalized time "
                    + JSON.number(risk.normalizedTime)
            case .droppedByMinutesAtAttenuation: "dropped by minutesAtAttenuationFilters"
            case .droppedByTransmissionRiskLevel(let level): "dropped by trlFilters (transmission risk level \(level))"
            case .noRiskLevel(let level, let time):
                "no risk level (transmission risk level \(level), normalized time \(JSON.number(time)))"
            case .unscoredReportType(let type): "not scored: report type \(type)"
            }
        }

        var json: String {
            var o = JSONObject()
            o.string("today", today.description)
            o.string("totalRiskLevel", result.totalRiskLevel.description)
            for level in CWARiskLevel.allCases {
                let name = level == .low ? "LowRisk" : "HighRisk"
                let recent = result.mostRecentDate(with: level)
                o.integer("numberOfDaysWith" + name, result.numberOfDays(with: level))
                o.string("mostRecentDateWith" + name, recent?.description)
                o.integer("ageOfMostRecentDateWith" + name, recent.map { age($0) })
                o.integer("totalMinimumDistinctEncountersWith" + name, result.totalMinimumDistinctEncounters(with: level))
            }
            o.raw("days", JSON.array(result.days.map { day in
                var d = JSONObject()
                d.string("date", day.date.description)
                d.integer("ageInDays", age(day.date))
                d.string("riskLevel", day.riskLevel.description)
                d.number("normalizedTime", day.normalizedTime)
                d.integer("minimumDistinctEncountersWithLowRisk", day.minimumDistinctEncountersWithLowRisk)
                d.integer("minimumDistinctEncountersWithHighRisk", day.minimumDistinctEncountersWithHighRisk)
                return d.text
            }))
            o.raw("windows", JSON.array(zip(windows, result.windows).map { window, outcome in
                var w = JSONObject()
                w.string("date", window.date.description)
                w.integer("ageInDays", age(window.date))
                switch outcome {
                case .counted(let risk):
                    w.integer("transmissionRiskLevel", risk.transmissionRiskLevel)
                    w.number("normalizedTime", risk.normalizedTime)
                    w.string("riskLevel", risk.riskLevel.description)
                case .noRiskLevel(let level, let time):
                    w.integer("transmissionRiskLevel", level)
                    w.number("normalizedTime", time)
                    w.string("riskLevel", nil)
                case .droppedByMinutesAtAttenuation:
                    w.string("droppedBy", "minutesAtAttenuationFilters")
                case .droppedByTransmissionRiskLevel(let level):
                    w.integer("transmissionRiskLevel", level)
                    w.string("droppedBy", "trlFilters")
                case .unscoredReportType(let type):
                    w.string("droppedBy", "reportType \(type)")
                }
                return w.text
            }))
            return o.text
        }
    }
}
