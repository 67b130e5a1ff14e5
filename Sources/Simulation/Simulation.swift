import Agent
import AgentBase
import ENCore
import Indicators
import Network
import Store
import SystemIO
import EventLoop
import HCI

/// Several badges and phones on one virtual radio in virtual time: days of agent life in seconds.
/// The base of the whole-agent tests and of `enbeacon demo`. Each badge is a complete `Agent` with its
/// own strict virtual controller and its own data directory.
package final class Simulation {
    package let loop: VirtualLoop
    package let radio: VirtualRadio
    package private(set) var badges: [SimulatedBadge] = []
    package private(set) var phones: [SimulatedPhone] = []
    private let dataRoot: String
    private let seed: UInt64
    private let schedule: KeySchedule

    package init(startUnixSeconds: Int64, seed: UInt64, dataRoot: String) throws(CryptoError) {
        loop = VirtualLoop(startUnixNanoseconds: startUnixSeconds * 1_000_000_000)
        radio = VirtualRadio(loop: loop, seed: seed)
        self.dataRoot = dataRoot
        self.seed = seed
        schedule = try KeySchedule()
    }

    /// A badge at `position`; `btsnoop` names a file that records its HCI traffic, as `run --btsnoop` does.
    /// `indicator`: the badge gets the virtual board's LED, buzzer and button (`badge.indicator`).
    @discardableResult
    func addBadge(_ name: String, at position: RadioPosition, settings: Agent.Settings = Agent.Settings(),
                         clockProbe: any ClockSyncProbe = FixedClockSyncProbe(synchronised: true),
                         indicator: Bool = false, log: Logger = .silent, btsnoop: String? = nil) throws(SimulationError) -> SimulatedBadge {
        let index = UInt64(badges.count + 1)
        let controller = radio.addController(
            VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: 0x00_1B_DC_00_00_00 + index)), at: position)
        let directory = dataRoot + "/" + name
        let disk = SimulatedDisk()
        let snoop = try btsnoop.map { path throws(SimulationError) -> BtsnoopFile in
            try SimulationError.whileDoing("badge \(name)'s btsnoop file") { () throws(BtsnoopFileError) in try BtsnoopFile(path: path) }
        }
        let loop = self.loop
        let agent = try SimulationError.whileDoing("badge \(name)") { () throws(AgentError) in
            try Agent(loop: loop, settings: settings, log: log, randomness: .seeded(seed &+ index &* 7919),
                      dataDirectory: directory, fileSystem: disk, clockProbe: clockProbe,
                      makeTransport: {
                          let transport = controller.makeHostTransport()
                          guard let snoop else { return transport }
                          return SnoopingTransport(transport, file: snoop, loop: loop, log: log)
                      })
        }
        agent.attach(network: try SimulationError.whileDoing("badge \(name)'s network client") {
            () throws(HTTPClient.Failure) in try HTTPClient(loop: loop)
        })
        let virtualIndicator = indicator ? VirtualIndicator(loop: loop) : nil
        if let virtualIndicator { agent.attach(indicators: virtualIndicator.lines) }
        let badge = SimulatedBadge(name: name, agent: agent, controller: controller, disk: disk,
                                   dataDirectory: directory, indicator: virtualIndicator)
        badges.append(badge)
        agent.start()
        return badge
    }

    @discardableResult
    func addPhone(at position: RadioPosition, txPower: Int8 = -4) -> SimulatedPhone {
        var g = Randomness.seeded(seed &+ 0x5EED &+ UInt64(phones.count)).generator(for: "phone")
        let phone = SimulatedPhone(radio: radio, at: position, txPower: txPower, schedule: schedule,
                                   generator: ServiceRandom(seed: g.next()))
        phones.append(phone)
        return phone
    }

    /// Badges and phones live as long as the simulation: when it goes, every badge's agent stops (its store and
    /// lock are given back) and the air lets its members go; each holds the others until then.
    deinit {
        for badge in badges { badge.agent.stop() }
        radio.removeAll()
    }

    package func run(for duration: Duration) { loop.run(for: duration) }

    package var unixSeconds: Int64 { loop.unixNanoseconds / 1_000_000_000 }

    /// 2021-06-01T22:00:00Z: two hours before a UTC midnight, so a short run crosses a change of day.
    static let twoHoursBeforeMidnight: Int64 = 1_622_584_800

    /// The Unix time of a loop instant, by the current wall-clock offset.
    package func unixSeconds(at instant: MonotonicInstant) -> Int64 {
        let offset = loop.unixNanoseconds - loop.now.nanoseconds
        return (instant.nanoseconds + offset) / 1_000_000_000
    }
}

/// One badge of a simulation.
package final class SimulatedBadge {
    package let name: String
    package let agent: Agent
    /// The way in to its services, as its console has: status, keys, exposures, `sync now`. Its `quit` stops
    /// nothing; the simulation decides when badges stop.
    package let control: AgentControl
    package let controller: VirtualController
    /// Its SD card: `disk.isFull = true` and every write fails as on a full card.
    package let disk: SimulatedDisk
    package let dataDirectory: String
    /// Its LED, buzzer and button, when it has them.
    let indicator: VirtualIndicator?

    init(name: String, agent: Agent, controller: VirtualController, disk: SimulatedDisk,
         dataDirectory: String, indicator: VirtualIndicator?) {
        self.indicator = indicator
        self.name = name
        self.agent = agent
        control = AgentControl(agent: agent, stop: {})
        self.disk = disk
        self.controller = controller
        self.dataDirectory = dataDirectory
    }

    /// The keys in the badge's key file on disk, as a restart would read them.
    var storedKeys: [TemporaryExposureKey] {
        KeyFile.parse(TextFile.read(dataDirectory + "/keys") ?? "")
    }
}
