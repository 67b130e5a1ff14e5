@testable import Agent
import ENCore
@testable import Simulation
import SystemIO

/// A key server in a folder, signed by a fresh authority, that a badge's key sync reads; and a key the badge heard.
/// For tests that need the agent to find an exposure the way it does in the field: a sync, a match, a record.
struct FolderKeyServer {
    let authority: SigningKey
    let folder: String
    /// Settings pointing a badge's key sync at this server.
    let settings: Agent.Settings

    init(in directory: String) throws {
        authority = try SigningKey.generateP256()
        folder = directory + "/keyserver"
        try AtomicFile.makeDirectory(folder)
        try AtomicFile.write(Array(authority.publicKeyPEM.utf8), to: directory + "/authority.pem")
        var settings = Agent.Settings()
        for (key, value) in [("keyserver.style", "folder"), ("keyserver.base_url", "file://\(folder)/"),
                             ("keyserver.public_key", directory + "/authority.pem"), ("keyserver.key_id", "999")] {
            try settings.configuration.set(key, to: value)
        }
        self.settings = settings
    }

    /// Publishes `keys` as the one file of the day starting at `day`.
    func publish(_ keys: [DiagnosisKey], day: ENIntervalNumber) throws {
        let start = UInt64(day.unixSeconds)
        try AtomicFile.write(try ExportWriter<InMemoryExportOutput>.archive(
            descriptor: ExportDescriptor(startTimestamp: start, endTimestamp: start + 86_400, region: "XX"),
            signers: [ExportSigner(key: authority, keyID: VerificationKeyID(id: "999", version: "v1"))],
            keys: keys), to: folder + "/one.zip")
        try AtomicFile.write(Array("one.zip\n".utf8), to: folder + "/index.txt")
    }

    /// Stores sightings of `tek` at `times` (TX power 0, strongest −45 dBm, mean −50 dBm, 4 reports, 300 s after
    /// the previous scan), as if the badge had heard its owner then.
    static func hear(_ tek: TemporaryExposureKey, at times: some Sequence<Int64>, on badge: SimulatedBadge) throws {
        let schedule = try KeySchedule()
        let rpik = schedule.rpik(tek.keyData), aemk = schedule.aemk(tek.keyData)
        for time in times {
            let rpi = schedule.rpi(rpik: rpik, interval: ENIntervalNumber(unixSeconds: time)!)
            badge.agent.store.append(Sighting(rpi: rpi, aem: schedule.aem(aemk: aemk, rpi: rpi, Metadata(txPower: 0).plaintext),
                                              firstSeen: time, rssiMax: -45, rssiMean: -50, reports: 4,
                                              secondsSincePreviousScan: 300))
        }
    }
}
