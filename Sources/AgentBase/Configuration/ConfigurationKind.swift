import SystemIO

/// What values one configuration key accepts, checked before anything is stored or written back.
///
/// Values stay text (the file's form); a kind only decides which texts are acceptable and how to describe
/// them in an error, so `config list` can show exactly what the file would say.
package enum ConfigurationKind: Hashable, Sendable {
    /// One of a fixed set of words.
    case choice([String])
    /// A decimal integer within the range.
    case integer(ClosedRange<Int>)
    /// An `http://`, `https://` or `file://` URL without spaces or control characters; empty means not configured.
    case url
    /// A file path; empty means not configured. Whether the file is readable is checked by its user,
    /// at the moment it is needed.
    case path
    /// A shell command line, run with `/bin/sh -c`; empty means none.
    case command
    /// Two or three capital letters (ISO 3166 country, or a region such as EUR).
    case countryCode
    /// Letters, digits and `-_.`, as key server identifiers are; empty means not configured.
    case identifier
    /// A credential (an API key): printable ASCII without spaces, or empty. Never shown or logged once set.
    case secret
    /// A dotted IPv4 address and a port (`127.0.0.1:9101`) to listen on; empty means not listening.
    case ipv4Endpoint
    /// A short name for people to read (`Room 12`): any text of at most `labelMaximumLength` characters
    /// without control characters, or empty. Bounded because it travels in every scrape and fills a table cell.
    case label

    /// The accepted values, in the words an error message and `config list` use.
    package var range: String {
        switch self {
        case .choice(let words): words.joined(separator: " | ")
        case .integer(let range): "\(range.lowerBound)-\(range.upperBound)"
        case .url: "an http://, https:// or file:// URL, or empty"
        case .path: "a file path, or empty"
        case .command: "a shell command, or empty"
        case .countryCode: "2 or 3 capital letters"
        case .identifier: "letters, digits, '-', '_' and '.', or empty"
        case .secret: "printable ASCII without spaces, or empty"
        case .ipv4Endpoint: "an IPv4 address and port such as 127.0.0.1:9101, or empty"
        case .label: "text of at most \(Self.labelMaximumLength) characters without control characters, or empty"
        }
    }

    /// Whether `value` (already trimmed) is acceptable.
    func accepts(_ value: String) -> Bool {
        switch self {
        case .choice(let words):
            return words.contains(value)
        case .integer(let range):
            guard let number = Int(value) else { return false }
            return range.contains(number)
        case .url:
            guard !value.isEmpty else { return true }
            let lower = value.lowercased()
            let schemes = ["http://", "https://", "file://"]
            // No spaces or control characters: a CR left by an editor would survive the file's syntax but not
            // a rewrite of the line, and no URL holds one.
            let plain = value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
            return plain && schemes.contains { lower.hasPrefix($0) && lower.count > $0.count }
        case .path, .command:
            // One line: a line break would split the entry when the file is written back (a `#` is quoted).
            return !value.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\0" }
        case .countryCode:
            return (2...3).contains(value.count) && value.utf8.allSatisfy { (0x41...0x5A).contains($0) }
        case .identifier:
            return value.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
        case .secret:
            return value.utf8.count <= 1024 && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        case .ipv4Endpoint:
            return value.isEmpty || IPv4Endpoint(value) != nil
        case .label:
            // C0, DEL and C1 controls: a line break would split the config line, an escape would move a
            // terminal's cursor when `status` prints it.
            return value.count <= Self.labelMaximumLength
                && !value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        }
    }

    /// The longest `label`, in characters.
    package static let labelMaximumLength = 64
}
