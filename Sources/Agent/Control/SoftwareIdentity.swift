import AgentBase

/// Which software the badge runs: the agent's own version and, on the badge image, the image's version and
/// build, the root slot it booted from, and whether the bootloader fell back to that slot because an update
/// did not prove itself in time. Staff read it in `status`; an engineer reads it in the log after a visit.
package struct SoftwareIdentity: Equatable, Sendable, CustomStringConvertible {
    /// Where the badge image's boot service writes what the bootloader chose (`key = value` lines, in RAM:
    /// it describes this boot only). Absent outside the image, and then only the agent's version is known.
    package static let bootFactsPath = "/run/enbeacon-image/boot.conf"

    package var version: String
    /// The image's version and build id, the slot (`A`, `B`) and the slot an update was rolled back from.
    package var image: String?
    package var build: String?
    package var slot: String?
    package var rolledBackFrom: String?

    package init(version: String) { self.version = version }

    /// The agent's version with the image's boot facts (`slot`, `image`, `build`, `rollback_from`). A line
    /// that does not parse, or a key this agent does not know, is skipped: the facts are informative, and an
    /// image newer than the agent must not stop it.
    package init(version: String, bootFacts text: String) {
        self.init(version: version)
        for line in text.split(whereSeparator: { $0.isNewline }) {
            guard let entry = (try? KeyValueLine(parsing: String(line))) ?? nil, !entry.value.isEmpty else { continue }
            switch entry.key {
            case "image": image = entry.value
            case "build": build = entry.value
            case "slot": slot = entry.value
            case "rollback_from": rolledBackFrom = entry.value
            default: continue
            }
        }
    }

    /// "enbeacon 0.1.0, image 0.1.0 (build 2026…), slot A; rolled back from slot B".
    package var description: String {
        var text = "enbeacon \(version)"
        if let image { text += ", image \(image)" + (build.map { " (build \($0))" } ?? "") }
        if let slot { text += ", slot \(slot)" }
        if let rolledBackFrom { text += "; rolled back from slot \(rolledBackFrom): its update did not prove itself" }
        return text
    }
}
