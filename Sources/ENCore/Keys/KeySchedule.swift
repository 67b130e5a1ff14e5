import COpenSSL

/// The GAEN key schedule (Cryptography spec v1.2) on top of libcrypto:
/// RPIK and AEMK by HKDF-SHA256, RPIs by AES-128-ECB, AEMs by AES-128-CTR.
///
/// HKDF is taken as what RFC 5869 defines it to be for one output block, PRK = HMAC(salt, IKM) and
/// OKM = HMAC(PRK, info ‖ 0x01), and each HMAC as the two SHA-256 hashes it is, computed with libcrypto's
/// SHA-256 compression function (`enb_sha256_block`, COpenSSL's sha256_block.h). The salt is always absent
/// (32 zero bytes), so the states after its inner and outer pad blocks are computed once, and every block a key
/// hashes is laid out in advance, padded as SHA-256 pads a message: a key costs six compressions and no
/// allocation, finalisation or parameter parsing. The 144 RPIs are one call to the provider's own AES-128-ECB
/// (`enb_provider_cipher`, provider_cipher.h), rekeyed per key. `enbeacon bench match --reference` sets this
/// against the same work in C (Tools/bench/match-reference.c). The official vectors, a 1,000-case cross-check
/// against Python's HKDF and a cross-check against libcrypto's own EVP_KDF HKDF pin the result.
///
/// One instance owns its states, buffers and cipher contexts and reuses them for every call, so the matcher's
/// inner loop allocates nothing. Not thread-safe by design: the agent is single-threaded; a second thread makes
/// its own instance.
public final class KeySchedule {
    public static let rpikInfo = "EN-RPIK"
    public static let aemkInfo = "EN-AEMK"
    /// "EN-RPI" followed by six zero bytes: the constant head of every PaddedData block.
    static let paddedDataPrefix: [UInt8] = Array("EN-RPI".utf8) + [0, 0, 0, 0, 0, 0]
    public static let maxBatch = Int(ENIntervalNumber.intervalsPerDay)
    static let addressInfo = "enbeacon-address"
    /// The longest info one block holds after its 0x01, SHA-256's 0x80 and the 8-byte length.
    static let maxInfoLength = 64 - 1 - 1 - 8

    /// SHA-256 message blocks, 64 bytes each, at the start of `memory`. Each message follows one pad block, and
    /// each block is laid out already padded as SHA-256 pads such a message: only its leading bytes change.
    private enum Block: Int, CaseIterable {
        /// The extract's inner message: the TEK (16 bytes).
        case extract
        /// The extract's outer message: its inner hash (32 bytes).
        case extractOuter
        /// The expand's pad blocks: PRK ⊕ 0x36 and PRK ⊕ 0x5c (32 bytes, then the pad byte alone).
        case expandInnerPad, expandOuterPad
        /// The expand's inner message, info ‖ 0x01: for the RPIK, the AEMK, and any other info (`addressBits`).
        case rpikInfo, aemkInfo, otherInfo
        /// The expand's outer message: its inner hash (32 bytes).
        case expandOuter
    }

    /// SHA-256 states, in `memory` after the blocks.
    private enum State: Int, CaseIterable {
        /// After the zero salt's inner and after its outer pad block, and SHA-256's initial state: set once.
        case saltInner, saltOuter, initial
        /// The inner and the outer hash under way.
        case inner, outer
    }

    /// Days of PaddedData kept by default: a 14-day export's keys, in any order, find the blocks of their day
    /// written. 37 KB; a microcontroller that matches one day's keys keeps one (Tools/build-mcu).
    public static let paddedDays = 16
    /// `paddedDays` of this instance, less one: a power of two less one, the mask that picks a day's set.
    private let paddedDayMask: Int

    /// The blocks, the states, what each day of PaddedData holds, the PaddedData and 144 RPIs: one allocation
    /// for everything a key reads and writes.
    private let memory: UnsafeMutableRawPointer
    private let memoryBytes: Int
    private let statesOffset: Int
    /// For each of the `paddedDays` sets of PaddedData, the first interval it holds and how many (UInt32 each).
    private let paddedIntervals: UnsafeMutablePointer<UInt32>
    /// `paddedDays` sets of 144 PaddedData blocks. Only the trailing little-endian interval of each block differs
    /// from key to key, and the keys of one day share theirs: a key uses the set of its first interval's day
    /// (modulo `paddedDays`), written only when that set holds other intervals. Exports mix the keys of their
    /// 14 days in any order, and writing each key's 144 intervals took 16 % of a key schedule (13 % in C) on
    /// x86 with AES and SHA instructions.
    private let padded: UnsafeMutableRawPointer
    private let rpis: UnsafeMutableRawPointer
    /// AES-128-ECB for the RPIs: its provider's functions and one context of it, rekeyed per key (in an allocation
    /// of its own, so each call passes a stable pointer). `ecbCipher` keeps the provider loaded.
    private let ecbCipher: OpaquePointer
    private let ecb: UnsafeMutablePointer<enb_provider_cipher>
    /// AES-128-CTR for the AEMs (only keys with a candidate hit need them): given its cipher once, then only
    /// rekeyed (a NULL cipher reuses the context, so nothing is fetched or allocated per call).
    private let ctrContext: OpaquePointer
    /// `paddedDataPrefix` as the two words a set's blocks begin with, in memory order.
    private let prefixHead: UInt64
    private let prefixTail: UInt32

    /// `paddedDays`: the sets of PaddedData kept (a power of two); keys of more days than that, interleaved,
    /// rewrite their day's set more often, with the same RPIs.
    public init(paddedDays: Int = KeySchedule.paddedDays) throws(CryptoError) {
        precondition(paddedDays > 0 && paddedDays & (paddedDays - 1) == 0, "paddedDays must be a power of two")
        paddedDayMask = paddedDays - 1
        let stateStride = MemoryLayout<SHA256_CTX>.stride
        statesOffset = Block.allCases.count * 64
        let intervalsOffset = statesOffset + State.allCases.count * stateStride
        let paddedOffset = (intervalsOffset + paddedDays * 8 + 63) / 64 * 64
        memoryBytes = paddedOffset + (paddedDays + 1) * Self.maxBatch * 16
        guard let ecbCipher = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil) else { throw .openSSL("EVP_CIPHER_fetch(AES-128-ECB)") }
        let ecb = UnsafeMutablePointer<enb_provider_cipher>.allocate(capacity: 1)
        guard enb_provider_cipher_open(ecbCipher, "AES-128-ECB", ecb) == 1 else {
            ecb.deallocate()
            EVP_CIPHER_free(ecbCipher)
            throw .openSSL("AES-128-ECB from its provider")
        }
        guard let ctrCipher = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil), let ctrContext = EVP_CIPHER_CTX_new(),
              EVP_EncryptInit_ex2(ctrContext, ctrCipher, nil, nil, nil) == 1 else {
            enb_provider_cipher_close(ecb)
            ecb.deallocate()
            EVP_CIPHER_free(ecbCipher)
            throw .openSSL("AES-128-CTR")
        }
        EVP_CIPHER_free(ctrCipher)  // the context holds its own reference
        (self.ecbCipher, self.ecb, self.ctrContext) = (ecbCipher, ecb, ctrContext)
        memory = .allocate(byteCount: memoryBytes, alignment: 64)
        // Only the blocks, the states and the sets' intervals are set now. The PaddedData and RPIs (39 kB) are
        // written as a set is first used: an agent that derives one day's RPIs never touches the other 15 sets'
        // pages, which stay out of its resident memory.
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: paddedOffset)
        (memory + statesOffset).bindMemory(to: SHA256_CTX.self, capacity: State.allCases.count)
        // Zero: every set is empty.
        paddedIntervals = (memory + intervalsOffset).bindMemory(to: UInt32.self, capacity: 2 * paddedDays)
        padded = memory + paddedOffset
        rpis = padded + paddedDays * Self.maxBatch * 16
        (prefixHead, prefixTail) = Self.paddedDataPrefix.withUnsafeBytes {
            ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        }

        // Only `h`, the state words at the start of SHA256_CTX, is carried between compressions (a static
        // assertion in COpenSSL/sha256_block.h holds the layout to it).
        // RFC 5869: no salt is HashLen zero bytes, so each of its HMAC pad blocks is the pad byte alone.
        // Per key, only the first 32 bytes of the expand's pad blocks change (the PRK's length).
        block(.expandInnerPad).update(repeating: 0x36, count: 64)
        block(.expandOuterPad).update(repeating: 0x5c, count: 64)
        enb_sha256_init(state(.initial))
        for (saved, pad) in [(State.saltInner, Block.expandInnerPad), (.saltOuter, .expandOuterPad)] {
            state(saved).update(from: state(.initial), count: 1)
            enb_sha256_block(state(saved), block(pad))
        }
        pad(.extract, messageBytes: 16)
        pad(.extractOuter, messageBytes: 32)
        pad(.expandOuter, messageBytes: 32)
        setInfo(.rpikInfo, Array(Self.rpikInfo.utf8))
        setInfo(.aemkInfo, Array(Self.aemkInfo.utf8))
    }

    deinit {
        // The buffers last held a PRK's pads and an RPIK, as secret as the TEK they came from.
        OPENSSL_cleanse(memory, memoryBytes)
        memory.deallocate()
        enb_provider_cipher_close(ecb)
        ecb.deallocate()
        EVP_CIPHER_free(ecbCipher)
        EVP_CIPHER_CTX_free(ctrContext)
    }

    @inline(__always) private func block(_ b: Block) -> UnsafeMutablePointer<UInt8> {
        (memory + (b.rawValue &* 64)).assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always) private func state(_ s: State) -> UnsafeMutablePointer<SHA256_CTX> {
        (memory + (statesOffset &+ s.rawValue &* MemoryLayout<SHA256_CTX>.stride)).assumingMemoryBound(to: SHA256_CTX.self)
    }

    /// Clears block `b` and writes SHA-256's padding after its first `messageBytes`, for a message of one pad
    /// block and those bytes.
    private func pad(_ b: Block, messageBytes: Int) {
        let p = block(b)
        p.update(repeating: 0, count: 64)
        p[messageBytes] = 0x80
        UnsafeMutableRawPointer(p).storeBytes(of: (UInt64(64 + messageBytes) * 8).bigEndian, toByteOffset: 56, as: UInt64.self)
    }

    /// Lays out the expand's inner message `info ‖ 0x01` in block `b`.
    private func setInfo(_ b: Block, _ info: [UInt8]) {
        precondition(info.count <= Self.maxInfoLength, "HKDF info too long for one block")
        pad(b, messageBytes: info.count + 1)
        let p = block(b)
        for (i, byte) in info.enumerated() { p[i] = byte }
        p[info.count] = 0x01
    }

    /// Rolling Proximity Identifier Key: HKDF-SHA256(TEK, no salt, "EN-RPIK", 16).
    public func rpik(_ tek: Bytes16) -> Bytes16 { hkdf16(tek, .rpikInfo) }

    /// Associated Encrypted Metadata Key: HKDF-SHA256(TEK, no salt, "EN-AEMK", 16).
    public func aemk(_ tek: Bytes16) -> Bytes16 { hkdf16(tek, .aemkInfo) }

    /// 48 pseudo-random bits for the advertising address that goes with the RPI of `interval`:
    /// HKDF-SHA256(TEK, no salt, "enbeacon-address" ‖ ENIN (uint32 little-endian), 16), first six bytes.
    ///
    /// A function of the key and the interval, so an RPI always goes on air under the same address — after a
    /// restart within the interval, after the clock is set back — and a new RPI always under a new one,
    /// without writing anything at each rotation. Keyed by the TEK, so to anyone without it the address looks
    /// as random as the RPI; once the TEK is published the RPIs are linkable anyway.
    public func addressBits(tek: Bytes16, interval: ENIntervalNumber) -> UInt64 {
        var info = Array(Self.addressInfo.utf8)
        withUnsafeBytes(of: interval.value.littleEndian) { info += $0 }
        let okm = hkdf16(tek, info: info)
        return okm.withUnsafeBytes { raw in (0..<6).reduce(UInt64(0)) { $0 << 8 | UInt64(raw[$1]) } }
    }

    /// HKDF-SHA256(`ikm`, no salt, `info`, 16), for an info of up to `maxInfoLength` bytes.
    func hkdf16(_ ikm: Bytes16, info: [UInt8]) -> Bytes16 {
        setInfo(.otherInfo, info)
        return hkdf16(ikm, .otherInfo)
    }

    /// The RPI of one interval.
    public func rpi(rpik: Bytes16, interval: ENIntervalNumber) -> Bytes16 {
        withRPIs(rpik: rpik, from: interval, count: 1) { $0[0] }
    }

    /// Derives `count` (1…144) consecutive RPIs with a single AES-ECB call and hands them to `body`.
    /// The batch is only valid inside `body`: it points into this instance's scratch buffer.
    ///
    /// Inlinable, so a caller in another module (the bench) gets it specialised for its closure like the
    /// matcher does, instead of the generic entry point (metadata, a stack allocation sized at run time): the
    /// work is one non-generic call.
    @inlinable
    public func withRPIs<R, E: Error>(
        rpik: Bytes16, from start: ENIntervalNumber, count: Int = KeySchedule.maxBatch,
        _ body: (RPIBatch) throws(E) -> R
    ) throws(E) -> R {
        try body(RPIBatch(start: start, blocks: deriveRPIs(rpik: rpik, from: start, count: count)))
    }

    /// `withRPIs`'s work: the RPIs, in this instance's scratch buffer until the next call.
    @usableFromInline @_optimize(speed)
    func deriveRPIs(rpik: Bytes16, from start: ENIntervalNumber, count: Int) -> UnsafeRawBufferPointer {
        precondition(count >= 1 && count <= Self.maxBatch, "RPI batch size must be 1...144")
        let day = Int(start.value / ENIntervalNumber.intervalsPerDay) & paddedDayMask
        let blocks = padded + day &* Self.maxBatch &* 16
        if paddedIntervals[2 &* day] != start.value || paddedIntervals[2 &* day &+ 1] < UInt32(count) {
            for j in 0..<count {
                blocks.storeBytes(of: prefixHead, toByteOffset: j &* 16, as: UInt64.self)
                blocks.storeBytes(of: prefixTail, toByteOffset: j &* 16 &+ 8, as: UInt32.self)
                // The spec's ENIN field is uint32 little-endian; wrap rather than trap at the far end of time.
                blocks.storeBytes(of: (start.value &+ UInt32(j)).littleEndian, toByteOffset: j &* 16 &+ 12, as: UInt32.self)
            }
            (paddedIntervals[2 &* day], paddedIntervals[2 &* day &+ 1]) = (start.value, UInt32(count))
        }
        var key = rpik
        let encrypted = withUnsafeBytes(of: &key) { key in
            enb_provider_cipher_encrypt(ecb, key.baseAddress!.assumingMemoryBound(to: UInt8.self), 16,
                                        blocks.assumingMemoryBound(to: UInt8.self),
                                        rpis.assumingMemoryBound(to: UInt8.self), count &* 16)
        }
        check(encrypted, "AES-128-ECB")
        return UnsafeRawBufferPointer(start: rpis, count: count &* 16)
    }

    /// AES-128-CTR with the RPI as the initial counter block. Encryption and decryption are the same
    /// operation, so this turns metadata into an AEM and an AEM back into metadata.
    public func aem(aemk: Bytes16, rpi: Bytes16, _ input: AssociatedEncryptedMetadata) -> AssociatedEncryptedMetadata {
        var output = AssociatedEncryptedMetadata(word: 0)
        var source = input.word
        var written: Int32 = 0
        aemk.withUnsafeBytes { key in
            rpi.withUnsafeBytes { iv in
                check(EVP_EncryptInit_ex2(ctrContext, nil, key.baseAddress, iv.baseAddress, nil), "EVP_EncryptInit_ex2(CTR)")
            }
        }
        withUnsafeMutableBytes(of: &output.word) { out in
            withUnsafeBytes(of: &source) { inp in
                check(EVP_EncryptUpdate(ctrContext, out.baseAddress, &written, inp.baseAddress, 4), "EVP_EncryptUpdate(CTR)")
            }
        }
        precondition(written == 4)
        return output
    }

    /// HKDF-SHA256 without salt to 16 bytes (one HMAC block), with the expand's inner message laid out in block
    /// `info`: six compressions, from the zero salt's saved states and from SHA-256's initial state.
    @_optimize(speed)
    private func hkdf16(_ ikm: Bytes16, _ info: Block) -> Bytes16 {
        let inner = state(.inner), outer = state(.outer)
        // Extract: PRK = SHA256(salt ⊕ opad ‖ SHA256(salt ⊕ ipad ‖ IKM)).
        UnsafeMutableRawPointer(block(.extract)).storeBytes(of: ikm, as: Bytes16.self)
        inner.update(from: state(.saltInner), count: 1)
        enb_sha256_block(inner, block(.extract))
        storeHash(inner, block(.extractOuter))
        outer.update(from: state(.saltOuter), count: 1)
        enb_sha256_block(outer, block(.extractOuter))
        // Expand: OKM = SHA256(PRK ⊕ opad ‖ SHA256(PRK ⊕ ipad ‖ info ‖ 0x01)), the PRK zero-padded to a block.
        let prk = UnsafeRawPointer(outer)
        let innerPad = UnsafeMutableRawPointer(block(.expandInnerPad)), outerPad = UnsafeMutableRawPointer(block(.expandOuterPad))
        for i in 0..<8 {
            let word = prk.load(fromByteOffset: i &* 4, as: UInt32.self)
            innerPad.storeBytes(of: (word ^ 0x3636_3636).bigEndian, toByteOffset: i &* 4, as: UInt32.self)
            outerPad.storeBytes(of: (word ^ 0x5c5c_5c5c).bigEndian, toByteOffset: i &* 4, as: UInt32.self)
        }
        // The two pad blocks first: they do not depend on each other, so the core overlaps their compressions
        // (3 % of the key schedule on x86 with SHA instructions).
        inner.update(from: state(.initial), count: 1)
        outer.update(from: state(.initial), count: 1)
        enb_sha256_block(inner, block(.expandInnerPad))
        enb_sha256_block(outer, block(.expandOuterPad))
        enb_sha256_block(inner, block(info))
        storeHash(inner, block(.expandOuter))
        enb_sha256_block(outer, block(.expandOuter))
        // The OKM, the first 16 bytes of the hash, taken from the state words (storing them as bytes and reading
        // those back would stall the load until the four stores reach the cache): SHA-256's words are
        // big-endian, so each half is the big-endian encoding of two words.
        let okm = UnsafeRawPointer(outer)
        func half(_ i: Int) -> UInt64 {
            (UInt64(okm.load(fromByteOffset: i &* 8, as: UInt32.self)) << 32 | UInt64(okm.load(fromByteOffset: i &* 8 &+ 4, as: UInt32.self))).bigEndian
        }
        return Bytes16(low: half(0), high: half(1))
    }

    /// The hash in `state` as bytes: SHA-256's words are big-endian.
    @inline(__always)
    private func storeHash(_ state: UnsafeMutablePointer<SHA256_CTX>, _ bytes: UnsafeMutablePointer<UInt8>) {
        let h = UnsafeRawPointer(state), out = UnsafeMutableRawPointer(bytes)
        for i in 0..<8 {
            out.storeBytes(of: h.load(fromByteOffset: i &* 4, as: UInt32.self).bigEndian, toByteOffset: i &* 4, as: UInt32.self)
        }
    }
}

/// Consecutive RPIs of one key, as derived by `KeySchedule.withRPIs`.
public struct RPIBatch {
    public let start: ENIntervalNumber
    /// `count × 16` bytes, RPI j at offset `16 j`.
    public let blocks: UnsafeRawBufferPointer

    @usableFromInline init(start: ENIntervalNumber, blocks: UnsafeRawBufferPointer) {
        self.start = start
        self.blocks = blocks
    }

    public var count: Int { blocks.count / 16 }

    @inlinable public subscript(j: Int) -> Bytes16 { Bytes16(loading: blocks, at: j * 16) }

    /// The first two bytes of RPI j, big-endian: its bucket in an `RPIIndex`, read without copying the RPI.
    @inlinable public func prefix16(_ j: Int) -> UInt16 { UInt16(blocks[j * 16]) << 8 | UInt16(blocks[j * 16 + 1]) }
}

public enum CryptoError: Error, Equatable, CustomStringConvertible {
    case openSSL(String)

    public var description: String {
        switch self {
        case .openSSL(let call): "libcrypto: \(call) failed: \(OpenSSLErrors.drain())"
        }
    }
}

/// A libcrypto call that cannot fail for well-formed arguments failed: the library itself is broken
/// (or a provider is missing), and continuing would broadcast garbage.
@inline(__always) func check(_ result: Int32, _ call: @autoclosure () -> String) {
    if result != 1 { fatalError("libcrypto: \(call()) failed: \(OpenSSLErrors.drain())") }
}

enum OpenSSLErrors {
    /// Empties OpenSSL's thread error queue into one readable line.
    static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buf = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buf, buf.count)
            parts.append(String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.isEmpty ? "no error queued" : parts.joined(separator: "; ")
    }
}

extension KeySchedule {
    /// Which of `keys`, if any, derives `rpi` in one of `intervals` (and is valid then): the check that a
    /// broadcast RPI came from a stored key.
    public func key(deriving rpi: Bytes16, in intervals: ClosedRange<UInt32>,
                    among keys: [TemporaryExposureKey]) -> TemporaryExposureKey? {
        keys.first { key in
            let rpik = self.rpik(key.keyData)
            return intervals.contains { n in
                key.isValid(at: ENIntervalNumber(n)) && self.rpi(rpik: rpik, interval: ENIntervalNumber(n)) == rpi
            }
        }
    }
}
