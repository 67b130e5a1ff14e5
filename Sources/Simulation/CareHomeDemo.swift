import Agent
import AgentBase
import ENCore
import EventLoop
import HCI
import Indicators
import Store
import SystemIO

/// `enbeacon demo`: residents wearing badges and staff carrying phones meet over days in a care home,
/// simulated in virtual time. Every badge is a full agent on the virtual radio; the timeline shows what a
/// person would want to see — who met whom, how each badge kept rotating, what was stored.
package struct CareHomeDemo {
    package struct Options: Sendable {
        package var days = 3
        package var badges = 4
        package var seed: UInt64 = 1
        package init() {}
    }

    /// Where people are during the day (UTC hours; the home keeps UTC for the demo).
    enum Place: Equatable {
        case bedrooms, dayRoom, diningRoom, garden

        var announcement: String {
            switch self {
            case .bedrooms: "everyone is in their own room"
            case .dayRoom: "residents gather in the day room"
            case .diningRoom: "lunch in the dining room"
            case .garden: "residents walk in the garden in pairs"
            }
        }
    }

    static let dayPlan: [(hour: Int, place: Place)] = [
        (0, .bedrooms), (9, .dayRoom), (12, .diningRoom), (13, .bedrooms), (15, .garden), (18, .bedrooms),
    ]
    static let residentNames = ["Alice", "Bernard", "Clara", "Dennis", "Edith", "Frank", "Greta", "Harold",
                                "Irene", "Jack", "Karin", "Leon"]
    /// 2021-06-01T00:00:00Z, a Tuesday.
    static let start: Int64 = 1_622_505_600

    package struct Summary: Sendable {
        package var rotations = 0
        package var scans = 0
        package var sightings = 0
        var meetings = 0
        package var violations = 0
        var longestOnAir = Duration.zero
        var exposedBadges = 0
        /// Every badge that met the positive resident detected it, and no other did.
        package var exposuresCorrect = false
    }

    package static func run(_ options: Options, dataRoot: String, print: @escaping (String) -> Void) throws(SimulationError) -> Summary {
        let sim = try SimulationError.whileDoing("the simulation") { () throws(CryptoError) in
            try Simulation(startUnixSeconds: start, seed: options.seed, dataRoot: dataRoot)
        }
        // Indoor propagation (path-loss exponent 3): bedrooms, 400 m apart along the corridors, are out of
        // each other's range; in the shared rooms everyone is within a few metres.
        sim.radio.pathLoss.exponent = 3.0
        sim.radio.pathLoss.sensitivity = -95
        let names = (0..<options.badges).map { i in
            i < residentNames.count ? residentNames[i] : "Resident \(i + 1)"
        }
        let (authority, serverFolder, settings) = try setUpKeyServer(dataRoot: dataRoot)
        let badges = try names.enumerated().map { i, name throws(SimulationError) in
            try sim.addBadge(name, at: bedroom(i), settings: settings, indicator: true)
        }
        // The last resident is bedridden and never leaves their room: the control who must not be exposed.
        let bedridden = options.badges >= 3 ? options.badges - 1 : nil
        let nurse = sim.addPhone(at: RadioPosition(x: -50, y: -50), txPower: -4)
        let visitor = sim.addPhone(at: RadioPosition(x: 5000, y: 5000), txPower: 0)

        // Who has heard the first resident's badge at least once: they must be told, nobody else.
        let metFirst = BadgeNames()
        // Computed here rather than inside the observer: Swift 6.3's region analysis crashes on the latter.
        let firstResidentBadge = names[0] + "'s badge"
        var sightings = 0
        var firstMeetings = Set<String>()
        var summary = Summary()
        func who(_ address: BDAddress) -> String? {
            if let b = badges.first(where: { $0.controller.state.randomAddress == address }) { return b.name + "'s badge" }
            if nurse.beacon.address == address { return "the nurse's phone" }
            if visitor.beacon.address == address { return "a visitor's phone" }
            return nil
        }
        // A badge's first hearing of someone in each gathering is collected during the scan and printed as
        // one line when the scan ends: who this badge heard, and how strongly.
        var pending: [String: (time: Int64, heard: [String])] = [:]
        for badge in badges {
            _ = badge.agent.watchBeacons { report, _ in
                guard let other = who(report.address) else { return }
                if other == firstResidentBadge { metFirst.names.insert(badge.name) }
                if firstMeetings.insert("\(badge.name)|\(other)").inserted {
                    summary.meetings += 1
                    let entry = "\(other) (\(report.rssi.map { "\($0) dBm" } ?? "no RSSI"))"
                    let time = pending[badge.name]?.time ?? sim.unixSeconds(at: report.receivedAt)
                    pending[badge.name] = (time, (pending[badge.name]?.heard ?? []) + [entry])
                }
            }
            badge.control.watchSightingsRecorded { found in
                sightings += found.count
                if let p = pending.removeValue(forKey: badge.name) {
                    print("  \(clockText(p.time))  \(badge.name)'s badge hears " + p.heard.joined(separator: ", "))
                }
            }
        }

        print("enbeacon demo: \(options.badges) residents with badges, a nurse and a visitor with phones, \(options.days) day(s), seed \(options.seed)")
        if let bedridden { print("\(names[bedridden]) is bedridden and stays in their room.") }
        print("Every badge has a (virtual) LED, buzzer and button: once on air, the LED gives "
              + "\(IndicatorState.onAir.looks).")
        var dayStart = (rotations: 0, scans: 0, sightings: 0)
        for day in 0..<options.days {
            print("")
            print("Day \(day + 1) — \(UTCDateTime(unixSeconds: start + Int64(day) * 86_400).date)")
            for step in dayPlan {
                let at = start + Int64(day) * 86_400 + Int64(step.hour) * 3600
                sim.loop.run(until: sim.loop.now + .seconds(at - sim.unixSeconds))
                firstMeetings.removeAll()  // a new gathering: report first meetings afresh
                for (j, badge) in badges.enumerated() {
                    badge.controller.position = j == bedridden ? bedroom(j) : position(of: j, at: step.place, count: badges.count)
                }
                nurse.beacon.position = step.place == .bedrooms ? bedroom(day % badges.count) + RadioPosition(x: 1, y: 0)
                    : position(of: 0, at: step.place, count: badges.count) + RadioPosition(x: 0, y: 1.5)
                // The visitor comes on day 2, to the first resident's room after lunch.
                visitor.beacon.position = day == 1 && step.hour == 13 ? bedroom(0) + RadioPosition(x: 0, y: 2)
                    : RadioPosition(x: 5000, y: 5000)
                print("  \(clockText(at))  \(step.place.announcement)"
                      + (day == 1 && step.hour == 13 ? "; a visitor comes to see \(names[0])" : ""))
            }
            sim.loop.run(until: sim.loop.now + .seconds(start + Int64(day + 1) * 86_400 - sim.unixSeconds))
            let rotations = badges.map { $0.control.metrics().rotations }.reduce(0, +)
            let scans = badges.map { $0.control.metrics().scans }.reduce(0, +)
            print("  day \(day + 1) done: \(rotations - dayStart.rotations) RPI rotations, \(scans - dayStart.scans) scans, "
                  + "\(sightings - dayStart.sightings) sightings recorded across the badges")
            dayStart = (rotations, scans, sightings)
        }

        let outcome = try announcePositiveTest(sim: sim, badges: badges, names: names, days: options.days,
                                               authority: authority, serverFolder: serverFolder,
                                               metFirst: metFirst.names, print: print)
        summary.exposedBadges = outcome.exposed
        summary.exposuresCorrect = outcome.correct

        summary.rotations = badges.map { $0.control.metrics().rotations }.reduce(0, +)
        summary.scans = badges.map { $0.control.metrics().scans }.reduce(0, +)
        summary.sightings = sightings
        summary.violations = badges.map { $0.controller.violations.count }.reduce(0, +)
        for badge in badges {
            let h = badge.controller.advertisingHistory
            for i in h.indices {
                let until = i + 1 < h.count ? h[i + 1].time : sim.loop.now
                summary.longestOnAir = max(summary.longestOnAir, until - h[i].time)
            }
        }
        print("")
        print("Verdict: \(summary.rotations) rotations (longest time one RPI stayed on air: "
              + "\(minutesText(summary.longestOnAir))), \(summary.scans) scans, \(summary.sightings) sightings, "
              + "\(summary.violations) controller rule violations; \(summary.exposedBadges) badge(s) told of the exposure, "
              + (summary.exposuresCorrect ? "exactly those that met \(names[0])." : "NOT matching who met \(names[0])."))
        return summary
    }

    /// The morning after the last day: the first resident tests positive, the health authority publishes her
    /// keys in a signed export, every other badge syncs. Returns how many were told and whether exactly those
    /// who met her were.
    static func announcePositiveTest(sim: Simulation, badges: [SimulatedBadge], names: [String], days: Int,
                                     authority: SigningKey, serverFolder: String, metFirst: Set<String>,
                                     print: @escaping (String) -> Void) throws(SimulationError) -> (exposed: Int, correct: Bool) {
        // The morning after: the first resident tests positive and, with consent, her badge's keys are published.
        let testDay = start + Int64(days) * 86_400
        sim.loop.run(until: sim.loop.now + .seconds(testDay + 9 * 3600 - sim.unixSeconds))
        print("")
        print("Day \(days + 1) — \(UTCDateTime(unixSeconds: testDay).date)")
        let positive = badges[0]
        let keys = positive.control.ownKeys.map {
            DiagnosisKey(tek: $0, transmissionRiskLevel: 4, reportType: .confirmedTest)
        }
        let fileName = "\(start)-\(sim.unixSeconds)-00001.zip"
        let export = try SimulationError.whileDoing("the positive resident's export") { () throws(ExportWriteError) in
            try ExportWriter.archive(
                descriptor: ExportDescriptor(startTimestamp: UInt64(start), endTimestamp: UInt64(sim.unixSeconds), region: "XX"),
                signers: [ExportSigner(key: authority, keyID: VerificationKeyID(id: "999", version: "v1"))], keys: keys)
        }
        try SimulationError.whileDoing("the key server's folder") { () throws(SystemError) in
            try AtomicFile.write(export, to: serverFolder + "/" + fileName)
            try AtomicFile.write(Array((fileName + "\n").utf8), to: serverFolder + "/index.txt")
        }
        print("  09:00:00  \(names[0]) tests positive; with her consent her badge's \(keys.count) daily keys are uploaded")
        print("  09:00:00  the health authority publishes them in a signed export on its key server")
        for badge in badges.dropFirst() { _ = badge.control.syncNow { _ in } }
        sim.loop.run(until: sim.loop.now + .seconds(600))
        var correct = true
        for badge in badges.dropFirst() {
            let found = badge.control.exposures
            let expected = metFirst.contains(badge.name)
            correct = correct && (found.isEmpty != expected)
            if let worst = found.max(by: { $0.riskScore < $1.riskScore }) {
                let minutes = found.map { $0.durationMinutes }.reduce(0, +)
                print("  \(badge.name)'s badge: exposure detected — \(found.count) day(s), \(minutes) min in all, "
                      + "highest risk score \(worst.riskScore), typical attenuation \(worst.typicalAttenuation) dB")
                print("    its LED: " + indicatorText(badge))
            } else {
                print("  \(badge.name)'s badge: no exposure")
            }
        }
        // A carer sees the blinking, reads the exposure on the console, and presses the button once.
        if let exposed = badges.dropFirst().first(where: { !$0.control.exposures.isEmpty }),
           let button = exposed.indicator?.button {
            button.press()
            sim.loop.run(until: sim.loop.now + .milliseconds(300))
            button.letGo()
            sim.loop.run(until: sim.loop.now + .seconds(10))
            print("  \(clockText(sim.unixSeconds))  a carer presses \(exposed.name)'s button: \(indicatorText(exposed)); "
                  + "the exposure stays recorded (\(exposed.control.exposures.count) record(s), exposures on the console)")
        }
        return (badges.dropFirst().filter { !$0.control.exposures.isEmpty }.count, correct)

    }

    /// The demo's health authority: a signing key, its public key on disk, an empty key-server folder, and
    /// the agent settings that make a badge sync from that folder.
    static func setUpKeyServer(dataRoot: String) throws(SimulationError) -> (SigningKey, String, Agent.Settings) {
        // The health authority of the demo: its signing key, and the folder its key server publishes to.
        let authority = try SimulationError.whileDoing("the health authority's key") { () throws(SigningKeyError) in
            try SigningKey.generateP256()
        }
        let publicKeyPath = dataRoot + "/health-authority.pem"
        let serverFolder = dataRoot + "/keyserver"
        try SimulationError.whileDoing("the key server's folder") { () throws(SystemError) in
            try AtomicFile.makeDirectory(serverFolder)
            try AtomicFile.write(Array(authority.publicKeyPEM.utf8), to: publicKeyPath)
            try AtomicFile.write([], to: serverFolder + "/index.txt")
        }
        var settings = Agent.Settings()
        for (key, value) in [("keyserver.style", "folder"), ("keyserver.base_url", "file://\(serverFolder)/"),
                             ("keyserver.public_key", publicKeyPath), ("keyserver.key_id", "999"),
                             ("keyserver.key_version", "v1")] {
            try SimulationError.whileDoing("the badges' settings") { () throws(ConfigurationError) in
                try settings.configuration.set(key, to: value)
            }
        }
        return (authority, serverFolder, settings)
    }

    /// What a badge's LED and buzzer are showing, in words.
    static func indicatorText(_ badge: SimulatedBadge) -> String {
        "\(badge.control.indicator.state)"
    }

    static func bedroom(_ i: Int) -> RadioPosition { RadioPosition(x: Double(i) * 400, y: 400) }

    static func position(of i: Int, at place: Place, count: Int) -> RadioPosition {
        switch place {
        case .bedrooms: return bedroom(i)
        case .dayRoom: return RadioPosition(x: Double(i % 3) * 1.5, y: Double(i / 3) * 1.5)
        case .diningRoom: return RadioPosition(x: 40 + Double(i % 2) * 1.0, y: Double(i / 2) * 2.5)
        case .garden: return RadioPosition(x: -100 - Double(i / 2) * 400, y: Double(i % 2) * 1.2)
        }
    }

    static func clockText(_ unixSeconds: Int64) -> String {
        let t = UTCDateTime(unixSeconds: unixSeconds)
        return String(t.description.dropFirst(11).prefix(8))
    }

    static func minutesText(_ d: Duration) -> String {
        let s = d.nanosecondsValue / 1_000_000_000
        return "\(s / 60) min \(s % 60) s"
    }
}

/// Names collected by the demo's radio observers (a reference, so the observers and the verdict share it).
final class BadgeNames {
    var names = Set<String>()
}

extension RadioPosition {
    static func + (a: RadioPosition, b: RadioPosition) -> RadioPosition { RadioPosition(x: a.x + b.x, y: a.y + b.y) }
}
