import CBoardLibc

/// The Embedded Swift runtime's contract where the board build has found it broken: strings of every length
/// from 0 to 24 bytes, small (15 bytes or fewer on 64-bit targets, kept inside the value) and large, survive
/// being stored, copied and handed on; on 64-bit targets, `swift_bridgeObjectRetain` returns a string's
/// bridge value with every bit as it was given (Tools/board/bridge_object_retain.c says why that needed a
/// definition of the board build's own). Without it, a 15-byte data path reached the agent's key download
/// garbled on aarch64.
enum RuntimeCheck {
    static func run() -> Tally {
        var tally = Tally()
        let holder = Holder()
        for length in 0...24 {
            let bytes = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let text = String(decoding: bytes, as: UTF8.self)
            holder.texts.append(text)
            let handedOn = passedOn(holder.texts[length])
            tally.check(Array(handedOn.utf8) == bytes, "a \(length)-byte string came back as \(handedOn)")
            #if _pointerBitWidth(_64)
            checkBridgeRetain(of: text, &tally)
            #endif
        }
        return tally
    }

    #if _pointerBitWidth(_64)
    /// A 64-bit String's second word is its bridge value; retaining it must give back every bit.
    private static func checkBridgeRetain(of text: String, _ tally: inout Tally) {
        var copy = text
        let bridge = withUnsafeBytes(of: &copy) { $0.load(fromByteOffset: 8, as: UInt.self) }
        let returned = UInt(bitPattern: board_bridge_object_retain(UnsafeMutableRawPointer(bitPattern: bridge)))
        board_bridge_object_release(UnsafeMutableRawPointer(bitPattern: bridge))
        tally.check(returned == bridge, "swift_bridgeObjectRetain(0x\(hex(bridge))) returned 0x\(hex(returned)) "
                    + "for a \(text.utf8.count)-byte string")
    }
    #endif

    private final class Holder {
        var texts: [String] = []
    }

    /// Not inlined, so the string crosses a call as the agent's paths do.
    @inline(never)
    private static func passedOn(_ text: String) -> String {
        let box = Holder()
        box.texts = [text, text]
        return box.texts[1]
    }

    private static func hex(_ value: UInt) -> String {
        String(value, radix: 16)
    }
}
