import Agent
import ENCore
import HCI

/// `en on|off`, `hci info|reset`, `live`: the radio and what it hears.
extension AgentConsole {
    static func registerRadioCommands(in table: CommandTable, control: AgentControl) {
        table.register(ConsoleCommand("en on", summary: "Exposure Notification on: advertise and scan") { request in
            control.setExposureNotification(enabled: true)
            return exposureNotificationReply(control, json: request.json)
        })
        table.register(ConsoleCommand("en off", summary: "Exposure Notification off: no advertising, no scanning; data kept") { request in
            control.setExposureNotification(enabled: false)
            return exposureNotificationReply(control, json: request.json)
        })
        table.register(ConsoleCommand("hci info", summary: "controller version, address, features") { request in
            hciInfo(control, json: request.json)
        })
        table.register(ConsoleCommand("hci reset", summary: "reset the controller; broadcasting resumes by itself") { request in
            control.resetController()
            guard request.json else { return .text("controller reset") }
            var o = JSONObject()
            o.bool("reset", true)
            o.string("controller", "\(control.controller().phase)")
            return .json(o.text)
        })
        table.register(ConsoleCommand(
            "live", summary: "stream received GAEN beacons: time, address, RPI, RSSI, proximity",
            usage: "live [on|off] [--json]",
            help: "One line per beacon when it is first heard, then again when its RSSI moves by 8 dB or after 10 s.",
            arguments: 0...1
        ) { request in
            if request.arguments.first == "off" { return .endStream("live off") }
            guard request.arguments.isEmpty || request.arguments.first == "on" else { return .usage("expected on or off") }
            let json = request.json
            var token = 0
            var filter = LiveBeaconFilter()
            let stream = ConsoleStream(onStop: { control.stopWatching(token) })
            // Beacons show at once, not at the next scan window minutes away.
            token = control.watchBeacons { report, time in
                guard filter.shows(report) else { return }
                // Read at each line: a correction `radio calibrate save` keeps applies to what follows.
                let correction = control.configuration.integer(.radioRSSICorrection)
                stream.send(liveLine(report, time: time, rssiCorrection: correction, json: json))
            }
            return .stream(stream)
        })
    }

    static func exposureNotificationReply(_ control: AgentControl, json: Bool) -> ConsoleReply {
        let on = control.exposureNotificationEnabled
        if json {
            var o = JSONObject()
            o.bool("exposureNotification", on)
            o.bool("advertising", control.isAdvertising)
            return .json(o.text)
        }
        guard on else { return .text("Exposure Notification off: not advertising or scanning; data kept") }
        return .text("Exposure Notification on" + (control.isAdvertising ? "" : "; broadcasting starts once the clock and controller are ready"))
    }

    static func hciInfo(_ control: AgentControl, json: Bool) -> ConsoleReply {
        let report = control.controller()
        let i = report.info
        let c = report.counters
        let features = featureNames(i.features)
        if json {
            var o = JSONObject()
            o.string("controller", "\(report.phase)")
            o.string("address", i.publicAddress.map { "\($0)" })
            o.raw("version", i.version.map { v in
                var version = JSONObject()
                version.integer("hciVersion", v.hciVersion)
                version.integer("hciRevision", v.hciRevision)
                version.integer("lmpVersion", v.lmpVersion)
                version.integer("manufacturer", v.manufacturer)
                version.integer("lmpSubversion", v.lmpSubversion)
                return version.text
            } ?? "null")
            o.raw("features", features.map { JSON.array($0.map(JSONText.quoted)) } ?? "null")
            o.integer("advertisingTxPower", i.advertisingTxPower)
            var counters = JSONObject()
            for (name, value) in [("commandsSent", c.commandsSent), ("commandTimeouts", c.commandTimeouts),
                                  ("commandsRejected", c.commandsRejected), ("hardwareErrors", c.hardwareErrors),
                                  ("initializations", c.initializations), ("transportFailures", c.transportFailures),
                                  ("advertisingReports", c.advertisingReports), ("unknownEvents", c.unknownEvents),
                                  ("malformedEvents", c.malformedEvents)] {
                counters.integer(name, value)
            }
            o.raw("counters", counters.text)
            return .json(o.text)
        }
        let version = i.version.map {
            "Bluetooth \(coreVersionName($0.hciVersion)) (HCI \($0.hciVersion), revision \($0.hciRevision)), "
                + "manufacturer \($0.manufacturer), LMP subversion \($0.lmpSubversion)"
        } ?? "unknown"
        return .text("""
            controller \(report.phase), address \(i.publicAddress.map { "\($0)" } ?? "unknown")
            version    \(version)
            features   \(features.map { $0.isEmpty ? "none of note" : $0.joined(separator: ", ") } ?? "unknown")
            TX power   \(i.advertisingTxPower.map { "\($0) dBm (advertising)" } ?? "unknown")
            commands \(c.commandsSent), timeouts \(c.commandTimeouts), rejected \(c.commandsRejected), \
            hardware errors \(c.hardwareErrors), initialisations \(c.initializations), link failures \(c.transportFailures)
            reports \(c.advertisingReports), unknown events \(c.unknownEvents), malformed events \(c.malformedEvents)
            """)
    }

    /// The LE features a badge maker asks about, by name.
    static func featureNames(_ features: LEFeatures?) -> [String]? {
        guard let features else { return nil }
        let named: [(LEFeatures, String)] = [(.encryption, "encryption"), (.llPrivacy, "LL privacy"),
                                             (.twoMegabitPHY, "2M PHY"), (.codedPHY, "coded PHY"),
                                             (.extendedAdvertising, "extended advertising")]
        return named.filter { features.contains($0.0) }.map { $0.1 }
    }

    /// The Core specification version an HCI version number stands for (Assigned Numbers §2.1).
    static func coreVersionName(_ hci: UInt8) -> String {
        let names = ["1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0"]
        return Int(hci) < names.count ? names[Int(hci)] : "newer than 6.0"
    }

    /// How near a sender is, in the words people use, from the attenuation its signal suffered.
    /// A received beacon's TX power is inside its encrypted metadata, readable only once its key is
    /// published, so the live view assumes a typical phone's 0 dBm; thresholds follow the v1 buckets. The
    /// badge's `radio.rssi_correction` is added to the RSSI first, as matching adds it.
    static func proximity(rssi: Int8?, rssiCorrection: Int = 0) -> String {
        guard let rssi else { return "unknown" }
        let attenuation = 0 - (Int(rssi) + rssiCorrection)
        switch attenuation {
        case ...51: return "immediate"
        case ...63: return "near"
        case ...73: return "medium"
        default: return "far"
        }
    }

    /// The RSSI shown is the radio's, as stored; the proximity word is of the corrected one.
    static func liveLine(_ report: GAENReport, time: Int64, rssiCorrection: Int, json: Bool) -> String {
        if json {
            var o = JSONObject()
            o.integer("time", time)
            o.string("address", "\(report.address)")
            o.string("rpi", report.payload.rpi.hex)
            o.integer("rssi", report.rssi)
            o.string("proximity", proximity(rssi: report.rssi, rssiCorrection: rssiCorrection))
            return o.text
        }
        let clock = String(UTCDateTime(unixSeconds: time).description.dropFirst(11).prefix(8))
        return "\(clock)  \(report.address)  \(report.payload.rpi.hex.prefix(8))…  \(report.rssi.map { "\($0) dBm" } ?? "no RSSI")  "
            + proximity(rssi: report.rssi, rssiCorrection: rssiCorrection)
    }
}
