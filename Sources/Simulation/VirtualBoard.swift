import Agent
import ENCore
import EventLoop
import HCI
import SystemIO

/// The built-in board: the agent's in-process controller on a virtual radio, shared with a few
/// simulated phones at 1–8 m. It runs on the real loop for `enbeacon run` and on virtual time in tests.
public final class VirtualBoard {
    public let radio: VirtualRadio
    public let controller: VirtualController
    public private(set) var phones: [SimulatedPhone] = []
    private let phoneCount: Int
    private let randomness: Randomness
    private let log: Logger

    public init(loop: any EventLoop, phones: Int, randomness: Randomness = .system, log: Logger) {
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

    public func makeAgentTransport() -> any HCITransport { controller.makeHostTransport() }

    public func start() {
        guard phones.isEmpty, phoneCount > 0, let schedule = try? KeySchedule() else { return }
        var placement = randomness.generator(for: "phone-placement")
        for i in 0..<phoneCount {
            let distance = Double.random(in: 1...8, using: &placement)
            let angle = Double(i) * 2.0944  // spread around the badge, 120° apart
            let position = RadioPosition(x: distance * CMath.cos(angle), y: distance * CMath.sin(angle))
            var phoneSeed = randomness.generator(for: "phone-\(i)")
            phones.append(SimulatedPhone(radio: radio, at: position, txPower: Int8.random(in: -8...4, using: &placement),
                                         schedule: schedule, generator: SplitMix64(seed: phoneSeed.next())))
        }
        log.info("virtual board: \(phoneCount) simulated phone(s) nearby")
    }
}
