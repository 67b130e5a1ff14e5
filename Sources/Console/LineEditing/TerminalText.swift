/// Text as bytes for a terminal in raw mode, where the output side no longer turns `\n` into `\r\n`.
enum TerminalText {
    static func bytes(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == 0x0A && previous != 0x0D { bytes.append(0x0D) }
            bytes.append(byte)
            previous = byte
        }
        return bytes
    }
}
