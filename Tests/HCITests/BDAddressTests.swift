import HCI
import Testing

@Suite struct BDAddressTests {
    @Test func printsMostSignificantByteFirstAndSerialisesLittleEndian() throws {
        let address = try #require(BDAddress("AA:BB:CC:DD:EE:FF"))
        #expect(address.rawValue == 0xAABB_CCDD_EEFF)
        #expect(address.description == "AA:BB:CC:DD:EE:FF")
        #expect(address.littleEndianBytes == bytes("FF EE DD CC BB AA"))
        #expect(BDAddress(littleEndianBytes: bytes("FF EE DD CC BB AA")) == address)
    }

    @Test func parsesLowerCaseAndPrintsUpperCase() {
        #expect(BDAddress("0a:1b:2c:3d:4e:5f")?.description == "0A:1B:2C:3D:4E:5F")
    }

    @Test(arguments: [
        "", "AA:BB:CC:DD:EE", "AA:BB:CC:DD:EE:FF:00", "AA:BB:CC:DD:EE:F", "AA:BB:CC:DD:EE:FFF",
        "AA-BB-CC-DD-EE-FF", "GG:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:", ":AA:BB:CC:DD:EE", "+A:BB:CC:DD:EE:FF",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(BDAddress(text) == nil)
    }

    @Test func rejectsWrongByteCounts() {
        #expect(BDAddress(littleEndianBytes: bytes("01 02 03 04 05")) == nil)
        #expect(BDAddress(littleEndianBytes: bytes("01 02 03 04 05 06 07")) == nil)
    }

    @Test func keepsOnly48Bits() {
        #expect(BDAddress(rawValue: 0xFFFF_0000_0000_0001).rawValue == 1)
    }

    @Test func nonResolvablePrivateAddressesHaveTheRightShape() {
        var generator = SeededGenerator(seed: 0xE5B3_AC04)
        var seen = Set<BDAddress>()
        var bitCounts = [Int](repeating: 0, count: 46)
        let draws = 10_000
        for _ in 0..<draws {
            let address = BDAddress.nonResolvablePrivate(using: &generator)
            #expect(address.rawValue >> 46 == 0, "two most significant bits must be 00")
            #expect(address.littleEndianBytes[5] & 0xC0 == 0)
            let random = address.rawValue & ((1 << 46) - 1)
            #expect(random != 0 && random != (1 << 46) - 1)
            #expect(address.isNonResolvablePrivate)
            #expect(!address.isStaticRandom)
            seen.insert(address)
            for bit in 0..<46 where address.rawValue >> UInt64(bit) & 1 == 1 { bitCounts[bit] += 1 }
        }
        #expect(seen.count == draws, "46 random bits should not collide in 10,000 draws")
        // Every random bit is actually random: each is set in roughly half the draws.
        for (bit, count) in bitCounts.enumerated() {
            #expect((4_500...5_500).contains(count), "bit \(bit) set \(count) times")
        }
    }

    /// A generator that first yields the two forbidden patterns, to prove they are redrawn.
    struct ForbiddenFirstGenerator: RandomNumberGenerator {
        var values: [UInt64] = [0, (1 << 46) - 1, 0xFFFF_FFFF_FFFF_FFFF, 0xC000_0000_0000, 0x1234_5678_9ABC]
        mutating func next() -> UInt64 { values.isEmpty ? 42 : values.removeFirst() }
    }

    @Test func redrawsAllZeroAndAllOneRandomParts() {
        var generator = ForbiddenFirstGenerator()
        let address = BDAddress.nonResolvablePrivate(using: &generator)
        #expect(address == BDAddress(rawValue: 0x1234_5678_9ABC))
        #expect(generator.values.isEmpty)
    }

    @Test func classifiesRandomAddresses() throws {
        #expect(try #require(BDAddress("3F:FF:FF:FF:FF:FE")).isNonResolvablePrivate)
        #expect(try !#require(BDAddress("3F:FF:FF:FF:FF:FF")).isNonResolvablePrivate)
        #expect(try !#require(BDAddress("00:00:00:00:00:00")).isNonResolvablePrivate)
        #expect(try !#require(BDAddress("40:00:00:00:00:01")).isNonResolvablePrivate)
        #expect(try !#require(BDAddress("C0:00:00:00:00:01")).isNonResolvablePrivate)
        #expect(try #require(BDAddress("C0:00:00:00:00:01")).isStaticRandom)
        #expect(try !#require(BDAddress("FF:FF:FF:FF:FF:FF")).isStaticRandom)
    }

    @Test func addressTypesHaveTheirWireValues() {
        #expect(AddressType.public.rawValue == 0)
        #expect(AddressType.random.rawValue == 1)
        #expect(ReportedAddressType.anonymous.rawValue == 0xFF)
    }
}
