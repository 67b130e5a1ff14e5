import ENCore

/// Where a GPIO line is and how to request it, as a board file gives it:
///
///     [CHIP:]LINE[,active-low][,pull-up|pull-down|bias-disabled]
///
/// CHIP is `gpiochipN`, a device path (`/dev/gpiochip0`) or a chip's label (`pinctrl-bcm2711`); LINE is a
/// line number on that chip or a line's name (`GPIO17`). A name without a chip is looked for on every chip.
/// `active-low`: the LED lights, the buzzer sounds, the button counts as pressed when the line is low.
/// A bias option switches the line's pull resistor (a button to ground wants `pull-up`); without one the
/// line's bias is left as it is.
package struct GPIOLineSpec: Equatable, Sendable, CustomStringConvertible {
    package enum Line: Equatable, Sendable {
        case offset(UInt32)
        case name(String)
    }

    enum Bias: String, Sendable, CaseIterable {
        case pullUp = "pull-up"
        case pullDown = "pull-down"
        case disabled = "bias-disabled"
    }

    /// nil: look for the line's name on every chip.
    var chip: String?
    package var line: Line
    var activeLow = false
    var bias: Bias?

    init(chip: String?, line: Line, activeLow: Bool = false, bias: Bias? = nil) {
        self.chip = chip
        self.line = line
        self.activeLow = activeLow
        self.bias = bias
    }

    /// Why a line spec does not parse, in words for the person editing the board file.
    package struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        let location = parts[0]
        guard !location.isEmpty else {
            throw ParseError(description: "expected [CHIP:]LINE[,active-low][,pull-up|pull-down|bias-disabled] "
                             + "such as gpiochip0:17 or GPIO17, got '\(text)'")
        }
        if let colon = location.firstIndex(of: ":") {
            let chip = String(location[..<colon]), lineText = String(location[location.index(after: colon)...])
            guard !chip.isEmpty, !lineText.isEmpty else {
                throw ParseError(description: "expected CHIP:LINE such as gpiochip0:17, got '\(location)'")
            }
            self.chip = chip
            if lineText.allSatisfy({ $0.isASCIIDigit }) {
                guard let offset = UInt32(lineText) else { throw ParseError(description: "line number \(lineText) is too large") }
                line = .offset(offset)
            } else {
                line = .name(lineText)
            }
        } else {
            guard !location.allSatisfy({ $0.isASCIIDigit }) else {
                throw ParseError(description: "a line number needs its chip, such as gpiochip0:\(location); "
                                 + "a line name (GPIO\(location)) is looked for on every chip")
            }
            chip = nil
            line = .name(location)
        }
        for option in parts.dropFirst() {
            if option == "active-low" {
                activeLow = true
            } else if let b = Bias(rawValue: option) {
                guard bias == nil || bias == b else { throw ParseError(description: "give one bias: \(bias!.rawValue) or \(option)") }
                bias = b
            } else {
                throw ParseError(description: "unknown option '\(option)' (known: active-low, "
                                 + Bias.allCases.map { $0.rawValue }.joined(separator: ", ") + ")")
            }
        }
    }

    /// The location as written: `gpiochip0:17`, `GPIO17`.
    package var location: String {
        let lineText = switch line {
        case .offset(let n): "\(n)"
        case .name(let name): name
        }
        return chip.map { "\($0):\(lineText)" } ?? lineText
    }

    package var description: String {
        ([location] + (activeLow ? ["active-low"] : []) + (bias.map { [$0.rawValue] } ?? [])).joined(separator: ",")
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
