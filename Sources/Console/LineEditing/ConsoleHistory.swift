import ENCore

/// The lines entered at a terminal, oldest first, bounded to `limit` lines.
package struct ConsoleHistory: Hashable, Sendable {
    private(set) var entries: [String]
    package let limit: Int
    /// Changes whenever an entry is recorded, so the owner can tell when to persist.
    private(set) var revision = 0

    init(_ entries: [String] = [], limit: Int = 200) {
        self.limit = max(limit, 1)
        self.entries = Array(entries.filter { !$0.trimmingSpaces.isEmpty }.suffix(self.limit))
    }

    /// Adds a line, unless it is blank or repeats the latest entry.
    package mutating func record(_ line: String) {
        guard !line.trimmingSpaces.isEmpty, line != entries.last else { return }
        entries.append(line)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        revision += 1
    }
}
