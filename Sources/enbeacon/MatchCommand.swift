import Agent
import AgentBase
import ENCore
import SystemIO

/// `enbeacon match`: offline exposure detection, what the agent does after a key download, on files —
/// export files (verified), stored sightings as JSON lines, and a risk configuration. The keys go through
/// the agent's own pipeline (`ExposureDetection`), so both report the same matches and exposures.
enum MatchCommand {
    static let help = """
        usage: enbeacon match --export FILE [--export FILE | FILE]... --sightings FILE.jsonl
                              --key PEM [--key PEM]... [--key-id ID --key-version V]
                              [--config RISK.json] [--board NAME|PATH] [--agent-config FILE]
                              [--now UNIX] [--json]
               enbeacon match --export FILE... --sightings FILE.jsonl --insecure-skip-verify [...]

        Matches the keys of export files (zips or bare export.bin; several with --export FILE...,
        arguments after the options count as further files) against sightings, and scores what
        matches with risk v1 and v2.
          --export FILE        an export file; read 64 KiB at a time and its keys streamed through
                               the matcher, never held, so a 2-million-key file needs no more memory
                               than a small one. Files of a multi-file batch must all be given.
          --key PEM            public key (ECDSA P-256) the exports must be signed with; several
                               mean "any of these". As for export verify, a key is trusted under
                               whatever key id the file names, or only under --key-id/--key-version.
                               Every file must verify, or nothing is matched (exit 1).
          --insecure-skip-verify
                               match without checking signatures or batch completeness (tests,
                               bare export.bin files, copies from a trusted place). Without --key
                               this flag is required: unverified keys are never matched by default.
          --sightings FILE     JSON lines, one sighting each:
                               {"rpi":HEX,"aem":HEX,"rssi":INT,"time":UNIX}
                               optional: rssiMax, reports, secondsSincePreviousScan (0 = unknown,
                               scored as 2 minutes); other members ignored; a bad line is an error
                               naming its number. "rssi":null (or 127) is a sighting without RSSI:
                               kept, at attenuation 255 (the farthest), as the agent keeps it.
          --config RISK.json   risk v1 configuration in Apple's sample shape (minimumRiskScore,
                               attenuationDurationThresholds, …LevelValues); if the same document
                               also has attenuationThresholds, it is read as the v2 configuration
                               too. Default: the agent's (SPEC §5's v1, the documented v2 weights).
          --board NAME|PATH    the badge's board profile, as run's --board: its
                               radio.rssi_correction is added to every RSSI before an
                               attenuation is computed, as the agent adds it
          --agent-config FILE  the agent's config file, as run's --config: its
                               radio.rssi_correction (this unit's own, from radio calibrate)
                               takes the board's place. Default correction: 0 dB
          --now UNIX           the time to match at (embargo, 14-day window, days since exposure);
                               default: now.
          --json               one JSON document: exports, sightings, statistics, matchedKeys (each
                               with its exposure id and the sender's calibration confidence),
                               exposuresV1, exposures (the records the agent stores: one per key,
                               v1 and v2 scored), dailySummariesV2.
        Text: the exports and sightings read, the RSSI correction, matcher statistics, then
          matched keys:   KEY16HEX rsin N (ISO) period P trl T report TYPE onset D sightings N
          exposures v1:   DATE duration M min, attenuation A dB, attenuation durations a/b/c min,
                          trl T, risk score S, REPORTTYPE
          daily summaries v2: DATE score sum S, maximum score M, weighted duration W s
        """

    struct Request {
        var exports: [String]
        var keyPaths: [String]
        var onlyID: VerificationKeyID?
        var insecure: Bool
        var sightings: String
        var config: String?
        /// The badge's `radio.rssi_correction`, dB: the agent's config file's, else its board profile's, else 0.
        var rssiCorrection = 0
        var now: Int64?
        var json: Bool
    }

    static func parse(_ arguments: inout Arguments) throws(UsageError) -> Request {
        let c = arguments.command
        var exports = try arguments.options("--export")
        let keyPaths = try arguments.options("--key")
        let onlyID = try ExportCommand.keyID(&arguments, command: c)
        let insecure = arguments.flag("--insecure-skip-verify")
        let sightings = try arguments.required("--sightings", "a JSON-lines file of sightings")
        let config = try arguments.option("--config")
        let rssiCorrection = try Self.rssiCorrection(board: try arguments.option("--board"),
                                                     agentConfig: try arguments.option("--agent-config"), command: c)
        var now: Int64?
        if let text = try arguments.option("--now") {
            guard let value = Int64(text), value >= 0, value <= SightingsFile.maxTime else {
                throw UsageError(c, "--now: expected Unix seconds, 0-\(SightingsFile.maxTime), got '\(text)'")
            }
            now = value
        }
        let json = arguments.flag("--json")
        while let more = arguments.positional() { exports.append(more) }
        try arguments.finish()
        guard !exports.isEmpty else { throw UsageError(c, "missing --export FILE (an export zip or export.bin)") }
        if keyPaths.isEmpty && !insecure {
            throw UsageError(c, "missing --key PEM to verify the exports with "
                             + "(or --insecure-skip-verify to match unverified files)")
        }
        if !keyPaths.isEmpty && insecure { throw UsageError(c, "--key and --insecure-skip-verify exclude each other") }
        if onlyID != nil && keyPaths.isEmpty { throw UsageError(c, "--key-id needs --key") }
        return Request(exports: exports, keyPaths: keyPaths, onlyID: onlyID, insecure: insecure, sightings: sightings,
                       config: config, rssiCorrection: rssiCorrection, now: now, json: json)
    }

    /// The correction the agent would apply with this board profile and config file: the same layers (the
    /// file's value over the board's), so that match and the badge find the same attenuations.
    static func rssiCorrection(board: String?, agentConfig: String?, command c: String) throws(UsageError) -> Int {
        var configuration = Configuration()
        if let agentConfig {
            do throws(ConfigurationError) { configuration = try ConfigurationFile(path: agentConfig).load() } catch {
                throw UsageError(c, "--agent-config \(error)")
            }
        }
        if let board {
            let profile = try RunCommand.loadBoard(board, command: c)
            do throws(ConfigurationError) { try configuration.setBoardValues(of: profile) } catch {
                throw UsageError(c, "--board \(error)")
            }
        }
        return configuration.integer(.radioRSSICorrection)
    }

    /// What was read from one export file.
    struct ExportSummary {
        var path: String
        var header: ExportHeader
        var verifiedBy: [VerificationKeyID]
        var skipped = SkippedKeys()
    }

    static func run(_ request: Request, out: FileOutput, err: FileOutput) throws(CommandFailure) {
        let trusted = request.insecure ? nil : try TrustedKeys.load(paths: request.keyPaths, onlyID: request.onlyID)
        let sightings = try SightingsFile.read(request.sightings)
        let (v1, v2) = try configurations(request.config)
        let now = request.now ?? currentUnixSeconds()
        let schedule: KeySchedule
        do { schedule = try KeySchedule() } catch { throw CommandFailure("\(error)") }
        var rules = MatchingRules()
        rules.rssiCorrection = request.rssiCorrection
        let detection = ExposureDetection(matcher: KeyMatcher(sightings: sightings, now: now, rules: rules, schedule: schedule))

        var summaries: [ExportSummary] = []
        if let trusted {
            // Each file is verified (one bounded pass), then matched (a second) once its batch is complete.
            var batches = BatchCollector<(file: VerifiedExportFile, summary: Int)>()
            for path in request.exports {
                let file = try ExportCommand.open(path)
                let verified: VerifiedExportFile
                do { (verified, _) = try trusted.verify(file) } catch { throw CommandFailure("\(path): \(error)") }
                summaries.append(ExportSummary(path: path, header: verified.header, verifiedBy: verified.verifiedBy))
                switch batches.add((verified, summaries.count - 1), at: verified.batch) {
                case .waiting:
                    continue
                case .duplicate:
                    throw CommandFailure("\(path): file \(verified.batch.number) of batch \(verified.batch.batch) given twice")
                case .complete(let files):
                    for (file, index) in files {
                        do {
                            summaries[index].skipped = try detection.consider(file, name: summaries[index].path)
                        } catch {
                            throw CommandFailure("\(summaries[index].path): \(error)")
                        }
                    }
                }
            }
            if let (batch, received) = batches.incomplete.first {
                throw CommandFailure("batch \(batch) is incomplete: \(received) of \(batch.batchSize) files given; "
                                     + "its keys count only when every file of it is there")
            }
        } else {
            err.write("enbeacon match: warning: --insecure-skip-verify: export signatures are not checked\n")
            for path in request.exports {
                let file = try ExportCommand.open(path)
                do {
                    let (header, skipped) = try detection.considerUnverified(file, name: path)
                    summaries.append(ExportSummary(path: path, header: header, verifiedBy: [], skipped: skipped))
                } catch {
                    throw CommandFailure("\(path): \(error)")
                }
            }
        }

        let matched = detection.matched
        let keys = matched.map { $0.matchedKey }
        let today = UTCDay(unixSeconds: now)
        let exposures = keys.flatMap { RiskScoringV1.exposures(to: $0, configuration: v1, evaluationDay: today) }
            .enumerated().sorted { ($0.element.date, $0.offset) < ($1.element.date, $1.offset) }.map { $0.element }
        let daily = RiskScoringV2.dailySummaries(of: keys, configuration: v2)
        let records = detection.exposures(v1: v1, v2: v2, today: today, detectedAt: now)
        let report = Report(request: request, now: now, exports: summaries, sightingCount: sightings.count,
                            statistics: detection.matcher?.statistics ?? KeyMatcher.Statistics(),
                            revocations: detection.revocations, matched: matched, exposures: exposures, daily: daily,
                            records: records)
        out.write(request.json ? report.json + "\n" : report.text)
    }

    /// v1 from `--config` (v2 too when the document carries v2 members), else the agent's defaults.
    static func configurations(_ path: String?) throws(CommandFailure) -> (ExposureConfigurationV1, ExposureConfigurationV2) {
        guard let path else { return (RiskDefaults.v1, RiskDefaults.v2) }
        let text: String
        do { text = try ReadOnlyFile(path: path).readText(limit: 1 << 20) } catch { throw CommandFailure("--config \(error.brief)") }
        do throws(RiskConfigurationError) {
            let v1 = try ExposureConfigurationV1(json: text)
            // Asking the parsed document rather than searching the text: String.contains(String) would link
            // _StringProcessing and its regex parser, ~0.9 MB of a binary budgeted at 10 MB. The text parsed
            // as v1 above, so it is JSON.
            var carriesV2 = false
            if case .object(let members)? = try? JSONValue.parse(text) { carriesV2 = members["attenuationThresholds"] != nil }
            let v2 = carriesV2 ? try ExposureConfigurationV2(json: text) : RiskDefaults.v2
            return (v1, v2)
        } catch {
            throw CommandFailure("--config \(path): \(error)")
        }
    }

    static func currentUnixSeconds() -> Int64 {
        KernelClock.realtimeNanoseconds() / 1_000_000_000
    }
}

extension MatchCommand {
    /// The result, as text or one JSON document.
    struct Report {
        let request: Request
        let now: Int64
        let exports: [ExportSummary]
        let sightingCount: Int
        let statistics: KeyMatcher.Statistics
        let revocations: Int
        let matched: [ExposureDetection.Match]
        let exposures: [ExposureV1]
        let daily: [DailySummary]
        /// The exposures as the agent records them (one per matched key).
        let records: [Exposure]

        var text: String {
            var lines: [String] = []
            let verified = request.insecure ? "UNVERIFIED (--insecure-skip-verify)" : "verified"
            lines.append("exports: \(exports.count) \(verified)")
            for e in exports {
                let by = e.verifiedBy.isEmpty ? "" : ", signed by \(e.verifiedBy.map { $0.description }.joined(separator: ", "))"
                lines.append("  \(e.path): region \(e.header.region), "
                             + "\(UTCDateTime(unixSeconds: Int64(clamping: e.header.startTimestamp))) to "
                             + "\(UTCDateTime(unixSeconds: Int64(clamping: e.header.endTimestamp))), batch \(e.header.batchNum) "
                             + "of \(e.header.batchSize), \(e.header.keyRecordCount) keys, "
                             + "\(e.header.revisedKeyRecordCount) revised, skipped \(e.skipped)\(by)")
            }
            lines.append("sightings: \(sightingCount) from \(request.sightings)")
            lines.append("now: \(now) (\(UTCDateTime(unixSeconds: now)))")
            lines.append("rssi correction: \(request.rssiCorrection) dB (radio.rssi_correction)")
            let s = statistics
            lines.append("matching: \(s.keys) keys, \(s.embargoed) embargoed, \(s.tooOld) too old, "
                         + "\(s.notReportable) not reportable, \(s.candidateHits) candidate hits, "
                         + "\(s.outsideTolerance) outside the time tolerance, \(s.replayed) replayed, "
                         + "\(s.insaneTxPower) with implausible TX power, \(revocations) revoked")
            lines.append("matched keys: \(matched.count)")
            for m in matched {
                lines.append("  \(KeyPresentation.text(m.key, keyHexDigits: 16)) sightings \(m.hits.count)")
            }
            lines.append("exposures v1: \(exposures.count)")
            for e in exposures {
                lines.append("  \(e.date) duration \(e.durationMinutes) min, attenuation \(e.typicalAttenuation) dB, "
                             + "attenuation durations \(e.attenuationDurations.map(String.init).joined(separator: "/")) min, "
                             + "trl \(e.transmissionRiskLevel), risk score \(e.riskScore), \(e.reportType)")
            }
            lines.append("daily summaries v2: \(daily.count)")
            for d in daily {
                lines.append("  \(d.date) score sum \(JSON.number(d.overall.scoreSum)), maximum score "
                             + "\(JSON.number(d.overall.maximumScore)), weighted duration "
                             + "\(JSON.number(d.overall.weightedDurationSum)) s")
            }
            return lines.joined(separator: "\n") + "\n"
        }

        var json: String {
            var o = JSONObject()
            o.integer("now", now)
            o.string("nowTime", "\(UTCDateTime(unixSeconds: now))")
            o.bool("verified", !request.insecure)
            o.raw("exports", JSON.array(exports.map { e in
                var x = JSONObject()
                x.string("file", e.path)
                x.raw("header", KeyPresentation.headerJSON(e.header).text)
                x.raw("verifiedBy", JSON.array(e.verifiedBy.map { JSONText.quoted($0.description) }))
                x.raw("skipped", KeyPresentation.json(e.skipped).text)
                return x.text
            }))
            var sightings = JSONObject()
            sightings.string("file", request.sightings)
            sightings.integer("count", sightingCount)
            o.raw("sightings", sightings.text)
            o.integer("rssiCorrection", request.rssiCorrection)
            var s = JSONObject()
            s.integer("keys", statistics.keys)
            s.integer("embargoed", statistics.embargoed)
            s.integer("tooOld", statistics.tooOld)
            s.integer("notReportable", statistics.notReportable)
            s.integer("candidateHits", statistics.candidateHits)
            s.integer("outsideTolerance", statistics.outsideTolerance)
            s.integer("replayed", statistics.replayed)
            s.integer("insaneTxPower", statistics.insaneTxPower)
            s.integer("matchedKeys", statistics.matchedKeys)
            s.integer("revoked", revocations)
            o.raw("statistics", s.text)
            o.raw("matchedKeys", JSON.array(matched.map { m in
                var k = KeyPresentation.json(m.key)
                k.string("id", m.id.hex)
                k.string("file", m.file)
                k.integer("sightings", m.hits.count)
                k.string("calibrationConfidence", m.matchedKey.calibrationConfidence.description)
                return k.text
            }))
            o.raw("exposuresV1", JSON.array(exposures.map { e in
                var x = JSONObject()
                x.string("date", e.date.description)
                x.integer("durationMinutes", e.durationMinutes)
                x.raw("attenuationDurations", JSON.array(e.attenuationDurations.map(String.init)))
                x.integer("typicalAttenuation", e.typicalAttenuation)
                x.integer("transmissionRiskLevel", e.transmissionRiskLevel)
                x.integer("riskScore", e.riskScore)
                x.string("reportType", e.reportType.description)
                return x.text
            }))
            o.raw("exposures", JSON.array(records.map { $0.json }))
            o.raw("dailySummariesV2", JSON.array(daily.map { d in
                var x = JSONObject()
                x.string("date", d.date.description)
                for (name, value) in Self.summary(d.overall) { x.raw(name, value) }
                var byType = JSONObject()
                for type in ReportType.allCases {
                    guard let data = d.byReportType[type] else { continue }
                    var t = JSONObject()
                    for (name, value) in Self.summary(data) { t.raw(name, value) }
                    byType.raw(type.description, t.text)
                }
                x.raw("byReportType", byType.text)
                return x.text
            }))
            return o.text
        }

        static func summary(_ data: ExposureSummaryData) -> [(String, String)] {
            [("scoreSum", JSON.number(data.scoreSum)), ("maximumScore", JSON.number(data.maximumScore)),
             ("weightedDurationSum", JSON.number(data.weightedDurationSum))]
        }
    }
}
