/// Turns terminal input bytes into keys: UTF-8 characters, control keys and the escape sequences of
/// arrow and editing keys.
///
/// Everything it keeps is bounded: at most three bytes of a UTF-8 character and `sequenceLimit` bytes of
/// an escape sequence. Invalid UTF-8 and unknown sequences are dropped, a sequence that runs too long is
/// skipped to its end, and a sequence left half-written (a lone ESC, or a cable pulled mid-sequence)
/// is abandoned by `timeout()`, so no input can wedge the decoder.
struct TerminalKeyDecoder {
    private enum State: Hashable {
        case ground
        /// After ESC.
        case escape
        /// After ESC [ : parameter and intermediate bytes so far.
        case controlSequence([UInt8])
        /// A control sequence longer than the limit: skipped up to its final byte.
        case skippingControlSequence
        /// After ESC O.
        case singleShift
    }

    let sequenceLimit: Int
    private var state = State.ground
    private var utf8: [UInt8] = []
    private var utf8Expected = 0
    private var lastWasCarriageReturn = false

    init(sequenceLimit: Int = 32) {
        self.sequenceLimit = sequenceLimit
        utf8.reserveCapacity(4)
    }

    /// True while bytes of an unfinished sequence or character are held; the owner should call
    /// `timeout()` if no further byte arrives soon.
    var hasPendingInput: Bool { state != .ground || !utf8.isEmpty }

    /// Drops whatever is half-decoded (a lone ESC press does nothing).
    mutating func timeout() {
        state = .ground
        utf8.removeAll(keepingCapacity: true)
    }

    /// The key completed by `byte`, if any.
    mutating func decode(_ byte: UInt8) -> TerminalKey? {
        let afterCarriageReturn = lastWasCarriageReturn
        lastWasCarriageReturn = false
        switch state {
        case .ground:
            return ground(byte, afterCarriageReturn: afterCarriageReturn)
        case .escape:
            state = .ground
            switch byte {
            case UInt8(ascii: "["): state = .controlSequence([])
            case UInt8(ascii: "O"): state = .singleShift
            case UInt8(ascii: "b"): return .wordLeft
            case UInt8(ascii: "f"): return .wordRight
            case 0x7F, 0x08: return .deleteWordBackward
            case 0x1B: state = .escape
            // ESC then an ordinary key: the ESC was a stray press; keep the key.
            default: return ground(byte, afterCarriageReturn: false)
            }
            return nil
        case .controlSequence(var bytes):
            switch byte {
            case 0x20...0x3F:
                bytes.append(byte)
                state = bytes.count > sequenceLimit ? .skippingControlSequence : .controlSequence(bytes)
                return nil
            case 0x40...0x7E:
                state = .ground
                return Self.controlSequenceKey(parameters: bytes, final: byte)
            default:
                // Not part of a sequence: abandon it and take the byte as itself.
                state = .ground
                return ground(byte, afterCarriageReturn: false)
            }
        case .skippingControlSequence:
            switch byte {
            case 0x20...0x3F: return nil
            case 0x40...0x7E:
                state = .ground
                return nil
            default:
                state = .ground
                return ground(byte, afterCarriageReturn: false)
            }
        case .singleShift:
            state = .ground
            switch byte {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            case UInt8(ascii: "H"): return .home
            case UInt8(ascii: "F"): return .end
            case 0x40...0x7E: return nil
            default: return ground(byte, afterCarriageReturn: false)
            }
        }
    }

    private mutating func ground(_ byte: UInt8, afterCarriageReturn: Bool) -> TerminalKey? {
        if utf8Expected > 0 {
            if byte & 0xC0 == 0x80 {
                utf8.append(byte)
                guard utf8.count == utf8Expected else { return nil }
                defer { utf8.removeAll(keepingCapacity: true); utf8Expected = 0 }
                guard let scalar = Self.scalar(utf8) else { return nil }
                return printable(scalar)
            }
            // A character cut short: drop its bytes and read this one afresh.
            utf8.removeAll(keepingCapacity: true)
            utf8Expected = 0
        }
        switch byte {
        case 0x0D:
            lastWasCarriageReturn = true
            return .enter
        case 0x0A:
            return afterCarriageReturn ? nil : .enter
        case 0x1B:
            state = .escape
            return nil
        case 0x00...0x1F, 0x7F:
            return .control(byte)
        case 0x20...0x7E:
            return .text(Unicode.Scalar(byte))
        case 0xC2...0xDF: utf8Expected = 2
        case 0xE0...0xEF: utf8Expected = 3
        case 0xF0...0xF4: utf8Expected = 4
        default:
            // A stray continuation byte or one that never starts UTF-8: noise.
            return nil
        }
        utf8.append(byte)
        return nil
    }

    private func printable(_ scalar: Unicode.Scalar) -> TerminalKey? {
        // C1 controls could act as terminal commands if echoed.
        (0x80...0x9F).contains(scalar.value) ? nil : .text(scalar)
    }

    /// The scalar encoded by a complete multi-byte sequence, or nil for an overlong form or a surrogate.
    private static func scalar(_ bytes: [UInt8]) -> Unicode.Scalar? {
        var value = UInt32(bytes[0]) & (0xFF >> (bytes.count + 1))
        for byte in bytes.dropFirst() { value = value << 6 | UInt32(byte & 0x3F) }
        let minimum: UInt32 = [0, 0, 0x80, 0x800, 0x10000][bytes.count]
        guard value >= minimum else { return nil }
        return Unicode.Scalar(value)
    }

    private static func controlSequenceKey(parameters: [UInt8], final: UInt8) -> TerminalKey? {
        let fields = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        // "1;5C" is Ctrl-Right on xterm-like terminals; 3 is Alt.
        let modified = fields.count == 2 && (fields[1] == "5" || fields[1] == "3")
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return modified ? .wordRight : .right
        case UInt8(ascii: "D"): return modified ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch fields.first {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
