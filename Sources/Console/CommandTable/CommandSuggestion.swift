/// The known command closest to a mistyped one, by edit distance, for the "did you mean" in an error.
enum CommandSuggestion {
    /// Only this much of what was typed is compared: noise on a serial line can make a "command" kilobytes
    /// long, and the distance costs the product of the two lengths.
    static let comparedLength = 32

    struct Suggestion: Hashable {
        var name: String
        /// Within a couple of typos of what was typed, so "did you mean" is a fair question.
        var isClose: Bool
    }

    static func closest(to typed: String, among names: [String]) -> Suggestion? {
        let typedScalars = Array(typed.unicodeScalars.prefix(comparedLength))
        var best: (name: String, distance: Int)?
        for name in names.sorted() {
            let distance = editDistance(typedScalars, Array(name.unicodeScalars))
            if best.map({ distance < $0.distance }) ?? true { best = (name, distance) }
        }
        guard let best else { return nil }
        let allowed = max(2, min(typedScalars.count, best.name.unicodeScalars.count) / 3)
        return Suggestion(name: best.name, isClose: best.distance <= allowed)
    }

    /// Levenshtein distance: insertions, deletions and substitutions each cost one.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
