/// A small reader for `--name VALUE`, `--name=VALUE`, flags and positionals.
///
/// Each command takes what it knows and then calls `finish()`, which turns anything left over into
/// a usage error naming it — so a typo is reported, never silently ignored.
struct Arguments {
    private var remaining: [String]
    let command: String

    init(_ arguments: some Sequence<String>, command: String) {
        remaining = Array(arguments)
        self.command = command
    }

    /// The value of `--name`, or nil when absent. A second occurrence or a missing value is an error.
    mutating func option(_ name: String) throws(UsageError) -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError(command, "\(name) given \(values.count) times, expected once") }
        return values.first
    }

    /// Every value of a repeatable `--name`.
    mutating func options(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = 0
        while i < remaining.count {
            let arg = remaining[i]
            if arg == name {
                guard i + 1 < remaining.count, !remaining[i + 1].hasPrefix("--") else {
                    throw UsageError(command, "\(name) needs a value")
                }
                values.append(remaining[i + 1])
                remaining.removeSubrange(i...(i + 1))
            } else if arg.hasPrefix(name + "=") {
                values.append(String(arg.dropFirst(name.count + 1)))
                remaining.remove(at: i)
            } else {
                i += 1
            }
        }
        return values
    }

    mutating func required(_ name: String, _ expected: String) throws(UsageError) -> String {
        guard let value = try option(name) else { throw UsageError(command, "missing \(name) (\(expected))") }
        return value
    }

    mutating func flag(_ name: String) -> Bool {
        guard let i = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: i)
        return true
    }

    /// The next argument that is not an option.
    mutating func positional() -> String? {
        guard let i = remaining.firstIndex(where: { !$0.hasPrefix("--") }) else { return nil }
        return remaining.remove(at: i)
    }

    func finish() throws(UsageError) {
        if let extra = remaining.first {
            throw UsageError(command, extra.hasPrefix("--") ? "unknown option \(extra)" : "unexpected argument '\(extra)'")
        }
    }
}

/// A command line that cannot be run as written: exit status 2 and one line on stderr.
struct UsageError: Error {
    let message: String

    init(_ command: String, _ detail: String) {
        message = "enbeacon \(command): \(detail) (see enbeacon \(command) --help)"
    }
}
