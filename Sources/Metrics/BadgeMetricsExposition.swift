import Agent
import KeyDownload

/// The badge's metrics as Prometheus families, named as its conventions ask: one `enbeacon_` prefix, base
/// units in the name, `_total` only on counters. What a build is (version, board, transport) goes in
/// `enbeacon_build_info`'s labels. No family can carry a key, an RPI, an address or a code: `BadgeMetrics`
/// holds none.
package struct BadgeMetricsExposition: Sendable {
    package struct BuildInfo: Sendable {
        package var version: String
        package var board: String
        package var transport: String

        package init(version: String, board: String, transport: String) {
            self.version = version
            self.board = board
            self.transport = transport
        }
    }

    package let build: BuildInfo

    package init(build: BuildInfo) { self.build = build }

    package func text(_ m: BadgeMetrics) -> String {
        var p = PrometheusText()
        func flag(_ value: Bool) -> Double { value ? 1 : 0 }
        func number<T: BinaryInteger>(_ value: T?) -> Double? { value.map { Double($0) } }
        p.family("enbeacon_build_info", .gauge, "The running enbeacon: its version, board profile and transport.",
                 [([("version", build.version), ("board", build.board), ("transport", build.transport)], 1)])
        // The label staff know the badge by, apart from the build's: a dashboard joins it onto any family by
        // the target's labels. Always present, so a page can tell "no label set" from "not scraped".
        p.family("enbeacon_badge_info", .gauge, "What staff call this badge (badge.label, e.g. a room number); empty when not set.",
                 [([("label", m.label)], 1)])
        p.family("enbeacon_start_time_seconds", .gauge, "Unix time the agent started.", number(m.startedUnixSeconds))
        p.family("enbeacon_exposure_notification_enabled", .gauge, "1 unless staff switched Exposure Notification off (en off).",
                 flag(m.exposureNotificationEnabled))
        p.family("enbeacon_broadcasting", .gauge, "1 while an RPI is on air as the controller confirmed it.", flag(m.broadcasting))
        p.family("enbeacon_scanning", .gauge, "1 when a scan window opened within the last 10 minutes.", flag(m.scanning))
        p.family("enbeacon_rpi_rotations_total", .counter, "RPI and address rotations since the agent started.",
                 number(m.rotations))
        p.family("enbeacon_scans_total", .counter, "Scan windows opened since the agent started.", number(m.scans))
        p.family("enbeacon_gaen_reports_total", .counter, "GAEN advertising reports heard since the agent started.",
                 number(m.gaenReports))
        p.family("enbeacon_sightings_stored_total", .counter, "Sightings stored since the agent started.",
                 number(m.sightingsStored))
        p.family("enbeacon_sightings_dropped_total", .counter,
                 "Beacons not stored because a flood limit was reached (sightings.max_per_scan, sightings.max_per_hour).",
                 [([("limit", "scan")], Double(m.sightingsDroppedOverScanLimit)),
                  ([("limit", "hour")], Double(m.sightingsDroppedOverHourLimit))])
        p.family("enbeacon_storage_used_bytes", .gauge, "Bytes of the sighting store on disk.", number(m.storageUsedBytes))
        p.family("enbeacon_storage_available_bytes", .gauge, "Bytes still free for the agent on the data directory's file system.",
                 number(m.storageAvailableBytes))
        p.family("enbeacon_storage_writable", .gauge, "1 unless the last write of sightings or of the day's key failed.",
                 flag(m.storageWritable))
        p.family("enbeacon_oldest_sighting_age_seconds", .gauge, "Age of the oldest stored sighting (at most 14 days are kept).",
                 number(m.oldestSightingAgeSeconds))
        p.family("enbeacon_clock_trusted", .gauge, "1 when the wall clock is trusted (NTP, RTC or the operator).",
                 flag(m.clockTrusted))
        p.family("enbeacon_clock_jumps_total", .counter, "Jumps of the wall clock against the monotonic clock.",
                 number(m.clockJumps))
        p.family("enbeacon_clock_last_jump_timestamp_seconds", .gauge, "Unix time just after the last clock jump.",
                 number(m.lastClockJumpUnixSeconds))
        p.family("enbeacon_controller_ready", .gauge, "1 while the Bluetooth controller is initialised and answering.",
                 flag(m.controllerReady))
        p.family("enbeacon_controller_initializations_total", .counter,
                 "Controller initialisations: the first, and one per recovery after a reset, a hardware error or a lost link.",
                 number(m.controllerInitializations))
        p.family("enbeacon_controller_errors_total", .counter, "Controller faults by kind.",
                 [([("kind", "hardware_error")], Double(m.controllerHardwareErrors)),
                  ([("kind", "transport_failure")], Double(m.controllerTransportFailures)),
                  ([("kind", "command_timeout")], Double(m.controllerCommandTimeouts))])
        p.family("enbeacon_controller_silence_seconds", .gauge, "Seconds since the controller last sent an event.",
                 number(m.controllerSilentSeconds))
        keySync(m.keySync, maximumSyncAge: m.maximumSyncAgeSeconds, into: &p)
        if let state = m.keyShareState {
            p.family("enbeacon_keyshare_state", .gauge, "The key share's state: 1 for the current one.", [([("state", state)], 1)])
        }
        p.family("enbeacon_indicator_state", .gauge, "What the LED shows: 1 for the current state.",
                 [([("state", m.indicatorState)], 1)])
        p.family("enbeacon_exposures", .gauge, "Exposures recorded (the last 14 days); never which.", number(m.exposures))
        p.family("enbeacon_last_exposure_timestamp_seconds", .gauge, "Unix time the most recent exposure was detected.",
                 number(m.lastExposureDetectedUnixSeconds))
        p.family("enbeacon_exposures_unacknowledged", .gauge,
                 "Notified exposures whose signal nobody has acknowledged yet (the badge's button, indicator ack).",
                 number(m.exposuresToAcknowledge))
        p.family("enbeacon_unacknowledged_exposure_timestamp_seconds", .gauge,
                 "Unix time the earliest exposure still waiting for acknowledgement was detected; absent when none.",
                 number(m.firstUnacknowledgedExposureUnixSeconds))
        p.family("enbeacon_event_loop_longest_turn_seconds", .gauge,
                 "The longest one turn of the event loop took since the agent started: how long the console and the radio waited at worst.",
                 m.longestLoopTurn.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 })
        return p.text
    }

    private func keySync(_ status: KeySyncStatus?, maximumSyncAge: Int64, into p: inout PrometheusText) {
        let configured = status.map { $0.phase != .notConfigured } ?? false
        p.family("enbeacon_keysync_configured", .gauge, "1 when a key server is configured.", configured ? 1 : 0)
        guard let status, configured else { return }
        p.family("enbeacon_keysync_max_age_seconds", .gauge,
                 "How long the badge may go without a successful key sync before ctl health fails (health.max_sync_age_hours).",
                 Double(maximumSyncAge))
        let attempt = status.currentRun?.startedAt ?? status.lastRun?.startedAt
        p.family("enbeacon_keysync_last_attempt_timestamp_seconds", .gauge, "Unix time the last key sync started.",
                 attempt.map { Double($0) })
        p.family("enbeacon_keysync_last_success_timestamp_seconds", .gauge, "Unix time the last key sync went through to its end.",
                 status.lastSuccess.map { Double($0) })
        let t = status.totals
        p.family("enbeacon_keysync_runs_total", .counter, "Key syncs finished since the agent started.", Double(t.runs))
        p.family("enbeacon_keysync_failures_total", .counter, "Key syncs that failed, by where: the listing or an export.",
                 [([("stage", "listing")], Double(t.listingFailures)), ([("stage", "export")], Double(t.exportFailures))])
        p.family("enbeacon_keysync_files_total", .counter, "Export files processed.", Double(t.files))
        p.family("enbeacon_keysync_keys_total", .counter, "Diagnosis keys read from verified exports.", Double(t.keys))
    }
}
