import ENCore
import Foundation
@testable import Simulation
import TestSupport
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

extension TemporaryDirectory {
    /// The segment files of the sighting store under this directory, oldest first.
    var segmentPaths: [String] {
        let folder = path + "/sightings"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".log") }.sorted().map { folder + "/" + $0 }
    }
}
