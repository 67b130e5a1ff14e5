import SystemIO

/// Why a GPIO line could not be had, in words that say what to do.
enum GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `chips`: what this machine has, `gpiochip0 [pinctrl-bcm2711, 58 lines]`.
    case noSuchChip(String, chips: [String])
    case notAChip(String)
    case permissionDenied(String)
    /// Chip, its line count, the line asked for.
    case noSuchLine(chip: String, lines: Int, offset: UInt32)
    case noLineNamed(String, searched: [String])
    /// Chip, line, its name and who holds it (the consumer the kernel records; may be empty).
    case busy(chip: String, offset: UInt32, name: String, consumer: String)
    case system(SystemError)

    package var description: String {
        switch self {
        case .noSuchChip(let chip, let chips):
            "no GPIO chip \(chip) " + (chips.isEmpty ? "(this machine has none)" : "(this machine has \(chips.joined(separator: ", ")))")
        case .notAChip(let path): "\(path) is not a GPIO chip"
        case .permissionDenied(let path):
            "\(path): permission denied: enbeacon's user needs read-write access to it (root, or the gpio group "
                + "that owns /dev/gpiochip* on Raspberry Pi OS)"
        case .noSuchLine(let chip, let lines, let offset):
            "\(chip) has \(lines) line(s), 0-\(max(lines - 1, 0)): there is no line \(offset)"
        case .noLineNamed(let name, let searched):
            "no GPIO line named '\(name)' " + (searched.isEmpty ? "(this machine has no GPIO chips)" : "on \(searched.joined(separator: ", "))")
        case .busy(let chip, let offset, let name, let consumer):
            "\(chip) line \(offset)\(name.isEmpty ? "" : " (\(name))") is in use by "
                + (consumer.isEmpty ? "another program or a kernel driver" : "'\(consumer)'")
        case .system(let error): "\(error)"
        }
    }

    /// The error for a failed open or ioctl on `path`.
    static func from(_ error: SystemError, path: String) -> GPIOError {
        if error.code == Errno.accessDenied || error.code == Errno.notPermitted { return .permissionDenied(path) }
        // A device that does not know the chip-info ioctl (a tty, /dev/null) is not a GPIO chip.
        if error.call == GPIOCharacterDevice.chipInfoCall
            && (error.code == Errno.notATerminalOrDevice || error.code == Errno.invalidArgument) { return .notAChip(path) }
        return .system(error)
    }
}
