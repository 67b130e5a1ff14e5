import HCI
import Testing

/// A stream of one packet of every H4 type, including both two-byte-length kinds and an empty payload.
private let streamPackets: [H4Packet] = [
    .command(bytes("03 0C 00")),
    .event(bytes("0E 04 01 03 0C 00")),
    .acl(bytes("40 20 05 00 01 02 03 04 05")),
    .sco(bytes("01 00 03 AA BB CC")),
    .iso(bytes("02 60 02 00 DE AD")),
    .event(bytes("3E 2B 02 01 03 01 \(advertiserWire) 1F") + gaenData + bytes("C4")),
    .event(bytes("FF 00")),
    .acl(bytes("40 20 00 00")),
]

private let stream = streamPackets.flatMap { $0.encoded() }

@Suite struct H4PacketTests {
    @Test func encodingPrependsTheIndicator() {
        #expect(H4Packet.command(bytes("03 0C 00")).encoded() == bytes("01 03 0C 00"))
        #expect(H4Packet.acl(bytes("40 20 00 00")).encoded() == bytes("02 40 20 00 00"))
        #expect(H4Packet.sco(bytes("01 00 00")).encoded() == bytes("03 01 00 00"))
        #expect(H4Packet.event(bytes("10 01 03")).encoded() == bytes("04 10 01 03"))
        #expect(H4Packet.iso(bytes("02 60 00 00")).encoded() == bytes("05 02 60 00 00"))
        #expect(H4Packet(ResetCommand()).encoded() == bytes("01 03 0C 00"))
        #expect(H4Packet(HCIEvent.hardwareError(code: 3)).encoded() == bytes("04 10 01 03"))
    }

    @Test func typeAndBytesRebuildThePacket() {
        for packet in streamPackets {
            #expect(H4Packet(type: packet.type, bytes: packet.bytes) == packet)
        }
    }
}

@Suite struct H4DeframerTests {
    @Test func wholeStreamInOneChunk() {
        var deframer = H4Deframer()
        #expect(deframer.feed(stream) == streamPackets)
        #expect(deframer.packetCount == streamPackets.count)
        #expect(deframer.discardedByteCount == 0)
        #expect(deframer.isBetweenPackets)
        #expect(deframer.bufferedByteCount == 0)
    }

    @Test func byteByByte() {
        var deframer = H4Deframer()
        var packets: [H4Packet] = []
        for byte in stream {
            packets += deframer.feed([byte])
        }
        #expect(packets == streamPackets)
    }

    @Test func randomChunkBoundaries() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            var deframer = H4Deframer()
            var packets: [H4Packet] = []
            var index = 0
            while index < stream.count {
                let size = Int.random(in: 1...40, using: &generator)
                let end = min(stream.count, index + size)
                // An ArraySlice, as a transport reading into a shared buffer would pass.
                packets += deframer.feed(stream[index..<end])
                index = end
            }
            #expect(packets == streamPackets)
        }
    }

    @Test func partialPacketWaitsForTheRest() {
        var deframer = H4Deframer()
        #expect(deframer.feed(bytes("04 0E 04 01")).isEmpty)
        #expect(!deframer.isBetweenPackets)
        #expect(deframer.bufferedByteCount == 3)
        #expect(deframer.feed(bytes("03 0C")).isEmpty)
        #expect(deframer.feed(bytes("00 04 10")) == [.event(bytes("0E 04 01 03 0C 00"))])
        #expect(deframer.feed(bytes("01 03")) == [.event(bytes("10 01 03"))])
    }

    @Test func garbageBetweenPacketsIsDiscardedAndCounted() {
        let garbage = bytes("00 FF 06 80 7F 00")
        var deframer = H4Deframer()
        var input = garbage
        for packet in streamPackets { input += packet.encoded() + garbage }
        #expect(deframer.feed(input) == streamPackets)
        #expect(deframer.discardedByteCount == garbage.count * (streamPackets.count + 1))
    }

    @Test func deliversThroughAClosureToo() {
        var deframer = H4Deframer()
        var delivered: [H4Packet] = []
        deframer.feed(stream) { delivered.append($0) }
        #expect(delivered == streamPackets)
    }

    @Test func oversizedDataPacketsAreSkippedWithoutBuffering() {
        var deframer = H4Deframer(maximumPayloadLength: 300)
        let big = H4Packet.acl(bytes("40 20 E8 03") + [UInt8](repeating: 0x04, count: 1000))
        let bigISO = H4Packet.iso(bytes("02 60 2D 01") + [UInt8](repeating: 0x01, count: 301))
        var packets: [H4Packet] = []
        for chunkStart in stride(from: 0, to: big.encoded().count, by: 64) {
            packets += deframer.feed(big.encoded().dropFirst(chunkStart).prefix(64))
            #expect(deframer.bufferedByteCount <= 4)
        }
        packets += deframer.feed(bigISO.encoded() + H4Packet.event(bytes("10 01 03")).encoded())
        #expect(packets == [.event(bytes("10 01 03"))])
        #expect(deframer.oversizedPacketCount == 2)
        #expect(deframer.discardedByteCount == big.encoded().count + bigISO.encoded().count)
    }

    @Test func dataPacketsUpToTheLimitAreKept() {
        var deframer = H4Deframer(maximumPayloadLength: 300)
        let packet = H4Packet.acl(bytes("40 20 2C 01") + [UInt8](repeating: 0x55, count: 300))
        #expect(deframer.feed(packet.encoded()) == [packet])
    }

    @Test func theLimitNeverDropsBelowOneByteLengths() {
        let deframer = H4Deframer(maximumPayloadLength: 10)
        #expect(deframer.maximumPayloadLength == 255)
    }

    @Test func isoLengthIgnoresTheReservedTopBits() {
        var deframer = H4Deframer()
        // Length field 0xC002: the top two bits are reserved, the length is 2.
        #expect(deframer.feed(bytes("05 02 60 02 C0 AA BB")) == [.iso(bytes("02 60 02 C0 AA BB"))])
    }

    @Test func memoryStaysBoundedForAHostileStream() {
        var deframer = H4Deframer()
        var generator = SeededGenerator(seed: 99)
        var largest = 0
        for _ in 0..<2_000 {
            let chunk = (0..<Int.random(in: 1...512, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = deframer.feed(chunk)
            largest = max(largest, deframer.bufferedByteCount)
        }
        #expect(largest <= 4 + H4Deframer.defaultMaximumPayloadLength)
        #expect(deframer.discardedByteCount > 0)
    }

    @Test func resetDropsAPartialPacket() {
        var deframer = H4Deframer()
        _ = deframer.feed(bytes("04 0E 04 01 03"))
        deframer.reset()
        #expect(deframer.isBetweenPackets)
        #expect(deframer.feed(bytes("04 10 01 03")) == [.event(bytes("10 01 03"))])
    }

    @Test func deframedEventsDecode() throws {
        var deframer = H4Deframer()
        let events = try deframer.feed(stream).compactMap { packet -> HCIEvent? in
            guard case .event(let body) = packet else { return nil }
            return try HCIEvent(decoding: body)
        }
        #expect(events.count == 3)
        #expect(events[1].advertisements.first?.data == gaenData)
    }
}
