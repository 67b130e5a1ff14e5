import ENCore

/// Where an agent's services draw random numbers from. Production uses the kernel CSPRNG for everything
/// (TEKs, addresses, timing). Simulations use a seed so a run can be replayed; each service then gets
/// its own stream, derived from the seed and the service's name, so adding a draw in one service does
/// not shift every other.
package enum Randomness: Sendable {
    case system
    case seeded(UInt64)

    package func generator(for service: String) -> ServiceRandom {
        switch self {
        case .system:
            return .system
        case .seeded(let seed):
            var h: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the name, mixed into the seed
            for b in service.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
            return ServiceRandom(seed: seed ^ h)
        }
    }
}

/// One service's random numbers: the kernel CSPRNG, or a seeded stream in simulations. A concrete type, not
/// `any RandomNumberGenerator`: the board build (Embedded Swift) cannot call generic methods on that.
package struct ServiceRandom: RandomNumberGenerator, Sendable {
    private var seeded: SplitMix64?

    package static let system = ServiceRandom(seeded: nil)

    package init(seed: UInt64) { seeded = SplitMix64(seed: seed) }

    private init(seeded: SplitMix64?) { self.seeded = seeded }

    package mutating func next() -> UInt64 {
        guard seeded != nil else {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }
        return seeded!.next()
    }
}
