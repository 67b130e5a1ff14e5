/// What Tab can do at the cursor: the partial word typed so far and the words it could become.
package struct CompletionCandidates: Hashable, Sendable {
    /// The text of the word being completed, exactly as it appears before the cursor.
    var partial: String
    /// Complete words, sorted, each starting with `partial`.
    var candidates: [String]

    init(partial: String, candidates: [String]) {
        self.partial = partial
        self.candidates = candidates
    }

    package static let none = CompletionCandidates(partial: "", candidates: [])

    /// The longest prefix every candidate shares (at least `partial` when they all extend it).
    var commonPrefix: String {
        guard var prefix = candidates.first.map(Array.init) else { return partial }
        for candidate in candidates.dropFirst() {
            let characters = Array(candidate)
            var length = 0
            while length < prefix.count, length < characters.count, prefix[length] == characters[length] { length += 1 }
            prefix.removeSubrange(length...)
        }
        return String(prefix)
    }
}
