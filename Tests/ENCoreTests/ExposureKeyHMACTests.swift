import Testing
@testable import ENCore

/// `ekeyhmac` (PUBLISH.md §4): the test vector of the reference key server (pkg/verification/utils_test.go),
/// written out literally, and the exact set of keys the MAC covers.
@Suite struct ExposureKeyHMACTests {
    /// The vector's secret: the bytes 0x01 … 0x10.
    static let secret: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                  0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10]
    /// `z2Cx9hdz2SlxZ8GEgqTYpA==` and `dPCphLzfG4uzXneNimkPRQ==` as bytes (checked against the text below).
    static let keyA = Bytes16(hex: "cf60b1f61773d9297167c18482a4d8a4")!
    static let keyB = Bytes16(hex: "74f0a984bcdf1b8bb35e778d8a690f45")!

    static func vectorKeys(riskA: Int, riskB: Int) -> [PublishedKey] {
        [PublishedKey(keyData: keyA, rollingStartNumber: ENIntervalNumber(1), rollingPeriod: 144, transmissionRisk: riskA),
         PublishedKey(keyData: keyB, rollingStartNumber: ENIntervalNumber(144), rollingPeriod: 144, transmissionRisk: riskB)]
    }

    @Test func theVectorKeysAreTheBase64OfTheVector() {
        #expect(PublishedKey(keyData: Self.keyA, rollingStartNumber: ENIntervalNumber(1)).base64Key == "z2Cx9hdz2SlxZ8GEgqTYpA==")
        #expect(PublishedKey(keyData: Self.keyB, rollingStartNumber: ENIntervalNumber(144)).base64Key == "dPCphLzfG4uzXneNimkPRQ==")
    }

    @Test func publishedVector() throws {
        let keys = Self.vectorKeys(riskA: 3, riskB: 5)
        #expect(String(decoding: ExposureKeyHMAC.coveredText(keys, form: .withTransmissionRisk), as: UTF8.self)
                == "dPCphLzfG4uzXneNimkPRQ==.144.144.5,z2Cx9hdz2SlxZ8GEgqTYpA==.1.144.3")
        #expect(try ExposureKeyHMAC.base64(keys, secret: Self.secret) == "2u1nHt5WWurJytFLF3xitNzM99oNrad2y4YGOL53AeY=")
        // The vector's keys overlap (intervals 1…144 and 144…287): a key server would refuse them in one
        // publish, and so does an upload.
        #expect(throws: PublishingRequestError.overlappingKeys) { try KeyUpload(keys: keys, secret: Self.secret) }
    }

    @Test func publishedVectorWithZeroRisk() throws {
        let keys = Self.vectorKeys(riskA: 0, riskB: 0)
        #expect(try ExposureKeyHMAC.base64(keys, secret: Self.secret)
                == "mFNI9zhTA17n4ndd1Vu5tsn4XQX0gPrIKyjeh/9noUE=")
        #expect(String(decoding: ExposureKeyHMAC.coveredText(keys, form: .withoutTransmissionRisk), as: UTF8.self)
                == "dPCphLzfG4uzXneNimkPRQ==.144.144,z2Cx9hdz2SlxZ8GEgqTYpA==.1.144")
        #expect(try ExposureKeyHMAC.base64(keys, secret: Self.secret, form: .withoutTransmissionRisk)
                == "J9S7xVebH/66dm14wGsIcAnSUR3PHD4NtDQEOGZbDUo=")
    }

    /// RFC 4231 test case 2: the HMAC primitive itself.
    @Test func hmacSHA256MatchesRFC4231() throws {
        let mac = try HMACSHA256.mac(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    static func randomKeys(_ count: Int, seed: UInt64) -> [PublishedKey] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { day in
            PublishedKey(keyData: Bytes16(low: random.next(), high: random.next()),
                         rollingStartNumber: ENIntervalNumber(2_990_000 + UInt32(day) * 144),
                         transmissionRisk: Int(random.next(upperBound: 9 as UInt64)))
        }
    }

    /// PUBLISH.md: the strings are sorted, so the order in which the keys are listed does not matter.
    @Test func theOrderOfTheKeysDoesNotMatter() throws {
        let keys = Self.randomKeys(14, seed: 7)
        let reference = try ExposureKeyHMAC.mac(keys, secret: Self.secret)
        var random = SplitMix64(seed: 99)
        for _ in 0..<20 {
            #expect(try ExposureKeyHMAC.mac(keys.shuffled(using: &random), secret: Self.secret) == reference)
        }
        #expect(try ExposureKeyHMAC.mac(keys.reversed(), secret: Self.secret) == reference)
    }

    /// The MAC covers exactly the keys: one more, one fewer, or any field of one key changed gives another.
    @Test func theMACCoversExactlyTheKeys() throws {
        let keys = Self.randomKeys(5, seed: 11)
        let reference = try ExposureKeyHMAC.mac(keys, secret: Self.secret)
        let extra = Self.randomKeys(6, seed: 12)[5]
        var changed: [[PublishedKey]] = [keys + [extra], Array(keys.dropLast()), Array(keys.dropFirst())]
        for index in keys.indices {
            var k = keys
            k[index].transmissionRisk = (k[index].transmissionRisk + 1) % 9
            changed.append(k)
            k = keys
            k[index].rollingPeriod -= 1
            changed.append(k)
            k = keys
            k[index].rollingStartNumber = ENIntervalNumber(k[index].rollingStartNumber.value + 1)
            changed.append(k)
            k = keys
            var bytes = k[index].keyData.bytes
            bytes[15] ^= 0x01
            k[index].keyData = Bytes16(bytes)!
            changed.append(k)
        }
        for variant in changed {
            #expect(try ExposureKeyHMAC.mac(variant, secret: Self.secret) != reference)
        }
        var otherSecret = Self.secret
        otherSecret[0] ^= 0x80
        #expect(try ExposureKeyHMAC.mac(keys, secret: otherSecret) != reference)
    }

    /// Sorted by the base64 text byte by byte ('+' < '/' < digits < upper case < lower case), not by the
    /// key bytes and not case-insensitively.
    @Test func sortedByteWiseOnTheBase64Text() {
        // First base64 characters: 0x68… → "a", 0x04… → "B", 0xD0… → "0", 0xF8… → "+", 0xFC… → "/".
        let firstBytes: [UInt8] = [0x68, 0x04, 0xD0, 0xF8, 0xFC]
        let keys = firstBytes.enumerated().map { index, first in
            PublishedKey(keyData: Bytes16([first] + [UInt8](repeating: 0, count: 15))!,
                         rollingStartNumber: ENIntervalNumber(UInt32(index) * 144))
        }
        let text = String(decoding: ExposureKeyHMAC.coveredText(keys, form: .withTransmissionRisk), as: UTF8.self)
        #expect(text.split(separator: ",").map { $0.first! } == ["+", "/", "0", "B", "a"])
    }
}
