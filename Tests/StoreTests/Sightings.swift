import ENCore
@testable import Store

/// Synthetic sightings first seen one second apart from `start`.
func sightings(_ numbers: Range<Int>, start: Int64 = 1_700_000_000, spacing: Int64 = 1) -> [Sighting] {
    numbers.map { SyntheticSightings.sighting(number: $0, firstSeen: start + Int64($0) * spacing) }
}

extension SightingStore {
    /// Every readable sighting, oldest first.
    func all(since: Int64 = .min) throws -> [Sighting] {
        var result: [Sighting] = []
        try forEach(since: since) { result.append($0); return .proceed }
        return result
    }
}
