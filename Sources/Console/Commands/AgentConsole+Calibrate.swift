import Agent
import AgentBase
import ENCore
import HCI

/// `radio calibrate`, `radio calibrate save`: measure this badge's RSSI correction against a reference beacon at
/// 1 m, then, if the operator agrees, keep it (`radio.rssi_correction` in the config file).
extension AgentConsole {
    static func registerCalibrateCommands(in table: CommandTable, control: AgentControl) {
        let last = LastCalibration()
        table.register(ConsoleCommand(
            "radio calibrate", summary: "measure the RSSI correction against a reference beacon 1 m away",
            usage: "radio calibrate RSSI_AT_1M [SECONDS] [--address ADDRESS] [--json]",
            help: "Place a reference that advertises Exposure Notification (a calibrated phone or badge) 1 m from the "
                + "badge, nothing else near. RSSI_AT_1M is the RSSI a calibrated receiver reads from it at 1 m (dBm). "
                + "Listens for SECONDS (default 60, 10-600), takes the strongest source (or --address), and reports "
                + "its median RSSI and the correction that turns it into RSSI_AT_1M. Nothing is saved: "
                + "radio calibrate save does that, after asking.",
            arguments: 1...2, options: ["--address"]
        ) { request in
            guard let reference = Int(request.arguments[0]), (-127...20).contains(reference) else {
                return .usage("RSSI_AT_1M: dBm, -127 to 20")
            }
            let seconds = request.arguments.count > 1 ? Int(request.arguments[1]) : 60
            guard let seconds, (10...600).contains(seconds) else { return .usage("SECONDS: 10 to 600") }
            var address: BDAddress?
            if let text = request.option("--address") {
                guard let parsed = BDAddress(text) else { return .usage("--address: expected XX:XX:XX:XX:XX:XX") }
                address = parsed
            }
            var measurement = CalibrationMeasurement(referenceRSSIAt1m: reference, address: address)
            var token = 0
            var cancelTimer: () -> Void = {}
            let answer = ConsoleDeferredReply(onCancel: {
                control.stopWatching(token)
                cancelTimer()
            })
            token = control.watchBeacons { report, _ in measurement.add(rssi: report.rssi, from: report.address) }
            cancelTimer = control.after(.seconds(seconds)) {
                control.stopWatching(token)
                let outcome = measurement.outcome()
                if case .success(let calibration) = outcome { last.calibration = calibration }
                answer.resolve(calibrationReply(outcome, seconds: seconds, control: control, json: request.json))
            }
            return .deferred(answer)
        })
        table.register(ConsoleCommand(
            "radio calibrate save", summary: "save the correction radio calibrate measured (radio.rssi_correction), with consent",
            consent: .always
        ) { request in
            guard let calibration = last.calibration else {
                return .error("nothing measured yet: radio calibrate RSSI_AT_1M first")
            }
            do throws(ConfigurationError) {
                try control.setConfiguration(ConfigurationKey.radioRSSICorrection.name, to: "\(calibration.correction)",
                                             origin: "measured by radio calibrate against \(calibration.address)")
            } catch {
                return .error("\(error)")
            }
            if request.json {
                var o = JSONObject()
                o.integer("rssiCorrection", calibration.correction)
                o.bool("saved", true)
                return .json(o.text)
            }
            return .text("radio.rssi_correction = \(calibration.correction) saved; the next key match uses it. "
                         + "Declare radio.calibration_confidence in the board profile as Board/README says")
        })
    }

    static func calibrationReply(_ outcome: Result<Calibration, CalibrationRefusal>, seconds: Int, control: AgentControl,
                                 json: Bool) -> ConsoleReply {
        let key = ConfigurationKey.radioRSSICorrection
        let inForce = control.configuration
        switch outcome {
        case .failure(let refusal):
            guard json else { return .error("radio calibrate: \(refusal)") }
            var o = JSONObject()
            o.string("error", "\(refusal)")
            return .failure(text: "radio calibrate: \(refusal)", json: o.text)
        case .success(let c):
            let s = c.statistics
            if json {
                var o = JSONObject()
                o.string("address", "\(c.address)")
                o.raw("medianRSSI", RSSIStatistics.text(s.median))
                for (name, value) in [("seconds", seconds), ("reports", s.count), ("lowerQuartileRSSI", Int(s.lowerQuartile)),
                                      ("upperQuartileRSSI", Int(s.upperQuartile)), ("spread", s.spread),
                                      ("rssiCorrection", c.correction), ("rssiCorrectionInForce", inForce.integer(key))] {
                    o.integer(name, value)
                }
                return .json(o.text)
            }
            return .text("""
                reference \(c.address): \(s.count) reports in \(seconds) s, median \(RSSIStatistics.dB(s.median)), \
                spread \(s.spread) dB (quartiles \(s.lowerQuartile) to \(s.upperQuartile), range \(s.minimum) to \(s.maximum))
                correction \(c.correction) dB (in force now: \(inForce[key]) dB, \(inForce.source(of: key).rawValue)); \
                to keep it: radio calibrate save
                """)
        }
    }
}

/// The last correction `radio calibrate` measured on this console, which `radio calibrate save` keeps.
private final class LastCalibration {
    var calibration: Calibration?
}
