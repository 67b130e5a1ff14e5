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
        var rows = Rows()
        var best: (name: String, distance: Int)?
        for name in names.sorted() {
            let distance = editDistance(typedScalars, name.unicodeScalars, rows: &rows)
            if best.map({ distance < $0.distance }) ?? true { best = (name, distance) }
        }
        guard let best else { return nil }
        let allowed = max(2, min(typedScalars.count, best.name.unicodeScalars.count) / 3)
        return Suggestion(name: best.name, isClose: best.distance <= allowed)
    }

    /// Levenshtein distance: insertions, deletions and substitutions each cost one.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var rows = Rows()
        return editDistance(a, b, rows: &rows)
    }

    /// The two rows of the distance table, kept between names so a suggestion allocates them once.
    struct Rows {
        var previous: [Int] = []
        var current: [Int] = []
    }

    /// The distance between `a` and `b`, a row per scalar of `b` (a name, walked in place) over `a`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: some Collection<Unicode.Scalar>, rows: inout Rows) -> Int {
        if a.isEmpty { return b.count }
        rows.previous.removeAll(keepingCapacity: true)
        rows.previous.append(contentsOf: 0...a.count)
        rows.current = rows.previous
        var i = 0
        for scalar in b {
            i += 1
            rows.current[0] = i
            for j in 1...a.count {
                let substitution = rows.previous[j - 1] + (a[j - 1] == scalar ? 0 : 1)
                rows.current[j] = min(substitution, rows.previous[j] + 1, rows.current[j - 1] + 1)
            }
            swap(&rows.previous, &rows.current)
        }
        return rows.previous[a.count]
    }
}
