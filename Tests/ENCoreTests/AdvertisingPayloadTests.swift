import Testing
@testable import ENCore

@Suite struct AdvertisingPayloadTests {
    let payload = AdvertisingPayload(rpi: Bytes16(hex: "8be6cd371c5c891604bfbe49df845096")!,
                                     aem: AssociatedEncryptedMetadata(hex: "72033874")!)

    @Test func encodesThe31ByteLayout() {
        #expect(Hex.encode(payload.encoded()) ==
            "02011a" + "03036ffd" + "17166ffd" + "8be6cd371c5c891604bfbe49df845096" + "72033874")
        #expect(payload.encoded().count == 31)
        #expect(payload.encoded(includingFlags: false).count == 28)
    }

    @Test func roundTripsWithAndWithoutFlagsAndInAnyOrder() throws {
        let full = payload.encoded()
        #expect(try AdvertisingPayload(decoding: full) == payload)
        #expect(try AdvertisingPayload(decoding: payload.encoded(includingFlags: false)) == payload)
        // Service data first, flags last: order is not significant to a receiver.
        let reordered = Array(full[7...]) + Array(full[3..<7]) + Array(full[0..<3])
        #expect(try AdvertisingPayload(decoding: reordered) == payload)
        // A slice that does not start at index 0 decodes the same.
        let framed = [0xEE] + full + [0xEE]
        #expect(try AdvertisingPayload(decoding: framed[1..<32]) == payload)
        // Incomplete-list variant of the UUID structure.
        var incomplete = full
        incomplete[4] = 0x02
        #expect(try AdvertisingPayload(decoding: incomplete) == payload)
    }

    /// Each malformed shape, the reason it is malformed, and the error it must produce.
    @Test func rejectsMalformedPayloads() {
        let good = payload.encoded()
        let noFlags = payload.encoded(includingFlags: false)
        let body = Array(good[11...])  // RPI ‖ AEM
        let cases: [(String, [UInt8], PayloadError)] = [
            ("empty", [], .empty),
            ("32 bytes", good + [0x00], .tooLong(32)),
            ("trailing zero byte (zero-length AD)", noFlags + [0x00], .zeroLengthStructure(offset: 28)),
            ("zero-length AD first", [0x00] + noFlags, .zeroLengthStructure(offset: 0)),
            ("trailing length byte only", noFlags + [0x02], .truncatedStructure(offset: 28, declared: 2, available: 0)),
            ("service data truncated by one byte", Array(good.dropLast()), .truncatedStructure(offset: 7, declared: 23, available: 22)),
            ("service data of 19 bytes", Array(good[0..<7]) + [0x16, 0x16, 0x6F, 0xFD] + body.dropLast(), .badServiceDataLength(19)),
            ("service data of 21 bytes", Array(good[3..<7]) + [0x18, 0x16, 0x6F, 0xFD] + body + [0], .badServiceDataLength(21)),
            ("service data with only a UUID fragment", [0x03, 0x03, 0x6F, 0xFD, 0x02, 0x16, 0x6F], .badServiceDataLength(1)),
            ("wrong UUID in service data", Array(good[0..<7]) + [0x17, 0x16, 0x6E, 0xFD] + body, .wrongServiceUUID(0xFD6E)),
            ("wrong UUID in the list", Array(good[0..<3]) + [0x03, 0x03, 0xAA, 0xFE] + Array(good[7...]), .wrongServiceUUID(0xFEAA)),
            ("two UUIDs in the list", [0x05, 0x03, 0x6F, 0xFD, 0xAA, 0xFE] + Array(good[7...]), .badUUIDListLength(4)),
            ("service data without the UUID list", Array(good[0..<3]) + Array(good[7...]), .missingServiceUUIDList),
            ("UUID list without service data", Array(good[0..<7]), .missingServiceData),
            ("flags only", [0x02, 0x01, 0x06], .missingServiceData),
            ("flags of two bytes", [0x03, 0x01, 0x1A, 0x00] + Array(good[3..<7]), .badFlagsLength(2)),
            ("duplicate flags", [0x02, 0x01, 0x06, 0x02, 0x01, 0x06] + Array(good[3..<7]), .duplicateStructure(type: 0x01)),
            ("duplicate UUID list", Array(good[3..<7]) + Array(good[3..<7]), .duplicateStructure(type: 0x03)),
            ("service data holding the UUID only", Array(good[3..<7]) + [0x03, 0x16, 0x6F, 0xFD], .badServiceDataLength(0)),
            ("manufacturer data (an iBeacon)", [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + [UInt8](repeating: 1, count: 22), .unexpectedStructure(type: 0xFF)),
            ("a device name as well", noFlags.prefix(0) + [0x02, 0x09, 0x41] + noFlags, .unexpectedStructure(type: 0x09)),
        ]
        #expect(cases.count >= 12)
        for (name, bytes, expected) in cases {
            #expect(throws: expected, "\(name)") { try AdvertisingPayload(decoding: bytes) }
        }
    }

    @Test func everyTruncationAndEveryFlippedLengthIsRejectedOrDecodedWithoutCrashing() {
        let good = payload.encoded()
        for n in 0..<good.count {
            #expect(throws: PayloadError.self) { try AdvertisingPayload(decoding: good.prefix(n)) }
        }
        for offset in [0, 3, 7] {
            for length in 0...255 {
                var bytes = good
                bytes[offset] = UInt8(length)
                _ = try? AdvertisingPayload(decoding: bytes)
            }
        }
    }
}
