/// Prometheus' text exposition format, version 0.0.4: one `# HELP` and one `# TYPE` line per family, then
/// its samples, no timestamps. Only what this project emits: gauges and counters with label pairs.
struct PrometheusText: Sendable {
    enum Kind: String, Sendable {
        case gauge, counter
    }

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    package private(set) var text = ""

    init() {}

    /// One family of samples (`labels`, value); a family with no samples is left out.
    mutating func family(_ name: String, _ kind: Kind, _ help: String, _ samples: [([(String, String)], Double)]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(Self.escapedHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(Self.escapedLabel($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " " + Self.number(value) + "\n"
        }
    }

    /// One unlabelled sample, or none when `value` is nil (a figure not known yet is absent, not zero).
    mutating func family(_ name: String, _ kind: Kind, _ help: String, _ value: Double?) {
        family(name, kind, help, value.map { [([], $0)] } ?? [])
    }

    /// Whole numbers without a decimal point (counters read as they are); others as Swift prints a Double,
    /// which Prometheus parses.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Inf" : "+Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A label value escapes backslash, double quote and line feed.
    static func escapedLabel(_ text: String) -> String { escaped(text, quote: true) }

    /// HELP text escapes backslash and line feed (a double quote stays as it is).
    static func escapedHelp(_ text: String) -> String { escaped(text, quote: false) }

    private static func escaped(_ text: String, quote: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quote: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
