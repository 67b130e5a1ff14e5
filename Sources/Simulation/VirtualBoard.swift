import Agent
import AgentBase
import ENCore
import EventLoop
import HCI
import SystemIO

/// The built-in board: the agent's in-process controller on a virtual radio, shared with a few
/// simulated phones at 1–8 m. It runs on the real loop for `enbeacon run` and on virtual time in tests.
package final class VirtualBoard {
    package let radio: VirtualRadio
    package let controller: VirtualController
    package private(set) var phones: [SimulatedPhone] = []
    private let phoneCount: Int
    private let randomness: Randomness
    private let log: Logger

    package init(loop: any EventLoop, phones: Int, randomness: Randomness = .system, log: Logger) {
        var seedSource = randomness.generator(for: "virtual-radio")
        radio = VirtualRadio(loop: loop, seed: seedSource.next())
        var addressSource = randomness.generator(for: "virtual-controller")
        controller = radio.addController(
            VirtualControllerConfiguration(publicAddress: BDAddress(rawValue: addressSource.next() & 0xFFFF_FFFF_FFFF)),
            at: .origin)
        phoneCount = phones
        self.randomness = randomness
        self.log = log
    }

    /// Where the phones stand, seen from the badge: three bearings 120° apart (cos and sin of 0°, 120° and 240°),
    /// written out because the board agent links no maths library for them.
    static let directions: [(x: Double, y: Double)] = [(1, 0), (-0.5, 0.866_025_403_784_438_6), (-0.5, -0.866_025_403_784_438_6)]

    package func makeAgentTransport() -> any HCITransport { controller.makeHostTransport() }

    package func start() {
        guard phones.isEmpty, phoneCount > 0, let schedule = try? KeySchedule() else { return }
        var placement = randomness.generator(for: "phone-placement")
        for i in 0..<phoneCount {
            let distance = Double.random(in: 1...8, using: &placement)
            let (x, y) = Self.directions[i % Self.directions.count]
            let position = RadioPosition(x: distance * x, y: distance * y)
            phones.append(SimulatedPhone(radio: radio, at: position, txPower: Int8.random(in: -8...4, using: &placement),
                                         schedule: schedule, generator: randomness.generator(for: "phone-\(i)")))
        }
        log.info("virtual board: \(phoneCount) simulated phone(s) nearby")
    }
}
