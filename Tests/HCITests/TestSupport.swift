import ENCore
import HCI

/// Bytes from the spaced hex the Core specification and btmon print: `"01 05 20 06"`.
/// Traps on a typo, which is what a test wants.
func bytes(_ text: String) -> [UInt8] {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map { token in
        guard token.count == 2, let byte = UInt8(token, radix: 16) else { fatalError("bad hex token \(token)") }
        return byte
    }
}

/// Spaced upper-case hex, for readable failure messages.
func spacedHex(_ data: [UInt8]) -> String {
    data.map { byte in
        let hex = String(byte, radix: 16, uppercase: true)
        return hex.count == 1 ? "0" + hex : hex
    }.joined(separator: " ")
}

/// The seeded generator of the property tests: ENCore's SplitMix64, so they are reproducible.
typealias SeededGenerator = SplitMix64

/// The 31-byte GAEN advertising data (Flags, 0xFD6F UUID list, service data) used across vectors:
/// RPI 00 11 … FF, AEM A1 B2 C3 D4.
let gaenData = bytes("02 01 1A 03 03 6F FD 17 16 6F FD 00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF A1 B2 C3 D4")
/// The same without Flags, as Android sends it (28 bytes).
let gaenDataWithoutFlags = Array(gaenData.dropFirst(3))
