import COpenSSL

/// The GAEN key schedule (Cryptography spec v1.2) on top of libcrypto:
/// RPIK and AEMK by HKDF-SHA256, RPIs by AES-128-ECB, AEMs by AES-128-CTR.
///
/// HKDF is taken as what RFC 5869 defines it to be for one output block: PRK = HMAC(salt, IKM),
/// OKM = HMAC(PRK, info ‖ 0x01), with libcrypto's HMAC. OpenSSL 3.0's EVP_KDF("HKDF") gives the same bytes
/// but costs ~3 µs a call in parameter parsing and context set-up; two keyed HMAC contexts cost ~0.9 µs,
/// which is what lets the matcher stay above 400,000 keys/s. The official vectors and a 1,000-case
/// cross-check against Python's HKDF (cryptography package) pin the result.
///
/// One instance owns its OpenSSL contexts and scratch buffers and reuses them for every call, so the
/// matcher's inner loop (one HKDF and one 2,304-byte AES call per diagnosis key) allocates nothing.
/// Not thread-safe by design: the agent is single-threaded; a second thread makes its own instance.
public final class KeySchedule {
    public static let rpikInfo = "EN-RPIK"
    public static let aemkInfo = "EN-AEMK"
    /// "EN-RPI" followed by six zero bytes: the constant head of every PaddedData block.
    static let paddedDataPrefix: [UInt8] = Array("EN-RPI".utf8) + [0, 0, 0, 0, 0, 0]
    public static let maxBatch = Int(ENIntervalNumber.intervalsPerDay)

    private let hmac: OpaquePointer
    /// HMAC-SHA256 keyed once with the 32 zero bytes of the absent salt: the extract step reuses the key.
    private let extractContext: OpaquePointer
    /// HMAC-SHA256 keyed with each PRK: the expand step.
    private let expandContext: OpaquePointer
    private static let rpikExpandInput: [UInt8] = Array(rpikInfo.utf8) + [0x01]
    private static let aemkExpandInput: [UInt8] = Array(aemkInfo.utf8) + [0x01]
    private let ecb: OpaquePointer
    private let ctr: OpaquePointer
    private let ecbContext: OpaquePointer
    private let ctrContext: OpaquePointer
    /// 144 PaddedData blocks; only the trailing little-endian interval of each block changes per call.
    private let padded: UnsafeMutableRawBufferPointer
    private let rpis: UnsafeMutableRawBufferPointer
    /// OSSL_PARAM keeps pointers to its name and value strings, so they must outlive the call that builds
    /// it: a Swift string literal bridged to `const char *` would dangle. These live as long as the instance.
    private let names = CStrings(["digest", "key", "info", "SHA256"])

    public init() throws(CryptoError) {
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw .openSSL("EVP_MAC_fetch(HMAC)") }
        guard let extractContext = EVP_MAC_CTX_new(hmac), let expandContext = EVP_MAC_CTX_new(hmac) else {
            EVP_MAC_free(hmac)
            throw .openSSL("EVP_MAC_CTX_new")
        }
        guard let ecb = EVP_CIPHER_fetch(nil, "AES-128-ECB", nil),
              let ctr = EVP_CIPHER_fetch(nil, "AES-128-CTR", nil),
              let ecbContext = EVP_CIPHER_CTX_new(), let ctrContext = EVP_CIPHER_CTX_new()
        else {
            EVP_MAC_CTX_free(extractContext)
            EVP_MAC_CTX_free(expandContext)
            EVP_MAC_free(hmac)
            throw .openSSL("EVP_CIPHER_fetch(AES-128)")
        }
        (self.hmac, self.extractContext, self.expandContext, self.ecb, self.ctr) = (hmac, extractContext, expandContext, ecb, ctr)
        (self.ecbContext, self.ctrContext) = (ecbContext, ctrContext)
        padded = .allocate(byteCount: Self.maxBatch * 16, alignment: 16)
        rpis = .allocate(byteCount: Self.maxBatch * 16, alignment: 16)
        for block in 0..<Self.maxBatch {
            for (i, b) in Self.paddedDataPrefix.enumerated() { padded[block * 16 + i] = b }
        }
        guard setDigest(extractContext), setDigest(expandContext) else { throw .openSSL("EVP_MAC_CTX_set_params") }
        let zeroSalt = [UInt8](repeating: 0, count: 32)  // RFC 5869: no salt = HashLen zero bytes
        guard EVP_MAC_init(extractContext, zeroSalt, 32, nil) == 1 else { throw .openSSL("EVP_MAC_init") }
    }

    private func setDigest(_ context: OpaquePointer) -> Bool {
        withUnsafeTemporaryAllocation(of: OSSL_PARAM.self, capacity: 2) { params in
            params[0] = OSSL_PARAM_construct_utf8_string(names[0], names[3], 0)
            params[1] = OSSL_PARAM_construct_end()
            return EVP_MAC_CTX_set_params(context, params.baseAddress) == 1
        }
    }

    /// Rolling Proximity Identifier Key: HKDF-SHA256(TEK, no salt, "EN-RPIK", 16).
    public func rpik(_ tek: Bytes16) -> Bytes16 { hkdf16(tek, Self.rpikExpandInput) }

    /// Associated Encrypted Metadata Key: HKDF-SHA256(TEK, no salt, "EN-AEMK", 16).
    public func aemk(_ tek: Bytes16) -> Bytes16 { hkdf16(tek, Self.aemkExpandInput) }

    /// 48 pseudo-random bits for the advertising address that goes with the RPI of `interval`:
    /// HKDF-SHA256(TEK, no salt, "enbeacon-address" ‖ ENIN (uint32 little-endian), 16), first six bytes.
    ///
    /// A function of the key and the interval, so an RPI always goes on air under the same address — after a
    /// restart within the interval, after the clock is set back — and a new RPI always under a new one,
    /// without writing anything at each rotation. Keyed by the TEK, so to anyone without it the address looks
    /// as random as the RPI; once the TEK is published the RPIs are linkable anyway.
    public func addressBits(tek: Bytes16, interval: ENIntervalNumber) -> UInt64 {
        var input = Array(Self.addressInfo.utf8)
        withUnsafeBytes(of: interval.value.littleEndian) { input += $0 }
        let okm = hkdf16(tek, input + [0x01])
        return okm.withUnsafeBytes { raw in (0..<6).reduce(UInt64(0)) { $0 << 8 | UInt64(raw[$1]) } }
    }

    static let addressInfo = "enbeacon-address"

    /// The RPI of one interval.
    public func rpi(rpik: Bytes16, interval: ENIntervalNumber) -> Bytes16 {
        withRPIs(rpik: rpik, from: interval, count: 1) { $0[0] }
    }

    /// Derives `count` (1…144) consecutive RPIs with a single AES-ECB call and hands them to `body`.
    /// The batch is only valid inside `body`: it points into this instance's scratch buffer.
    @_optimize(speed)
    public func withRPIs<R, E: Error>(
        rpik: Bytes16, from start: ENIntervalNumber, count: Int = KeySchedule.maxBatch,
        _ body: (RPIBatch) throws(E) -> R
    ) throws(E) -> R {
        precondition(count >= 1 && count <= Self.maxBatch, "RPI batch size must be 1...144")
        for j in 0..<count {
            // The spec's ENIN field is uint32 little-endian; wrap rather than trap at the far end of time.
            padded.storeBytes(of: (start.value &+ UInt32(j)).littleEndian, toByteOffset: j * 16 + 12, as: UInt32.self)
        }
        rpik.withUnsafeBytes { key in
            check(EVP_EncryptInit_ex2(ecbContext, ecb, key.baseAddress, nil, nil), "EVP_EncryptInit_ex2(ECB)")
        }
        EVP_CIPHER_CTX_set_padding(ecbContext, 0)
        var written: Int32 = 0
        check(EVP_EncryptUpdate(ecbContext, rpis.baseAddress, &written, padded.baseAddress, Int32(count * 16)),
              "EVP_EncryptUpdate(ECB)")
        precondition(written == Int32(count * 16))
        return try body(RPIBatch(start: start, blocks: UnsafeRawBufferPointer(rebasing: rpis[0..<count * 16])))
    }

    /// AES-128-CTR with the RPI as the initial counter block. Encryption and decryption are the same
    /// operation, so this turns metadata into an AEM and an AEM back into metadata.
    public func aem(aemk: Bytes16, rpi: Bytes16, _ input: AssociatedEncryptedMetadata) -> AssociatedEncryptedMetadata {
        var output = AssociatedEncryptedMetadata(word: 0)
        var source = input.word
        var written: Int32 = 0
        aemk.withUnsafeBytes { key in
            rpi.withUnsafeBytes { iv in
                check(EVP_EncryptInit_ex2(ctrContext, ctr, key.baseAddress, iv.baseAddress, nil), "EVP_EncryptInit_ex2(CTR)")
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

    /// HKDF-SHA256 without salt to 16 bytes (one HMAC block): extract with the zero-salt context, expand
    /// with `info ‖ 0x01` under the PRK. Buffers live on the stack; nothing is allocated.
    @_optimize(speed)
    private func hkdf16(_ ikm: Bytes16, _ expandInput: [UInt8]) -> Bytes16 {
        var out = Bytes16.zero
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { scratch in
            let prk = scratch.baseAddress!
            let okm = prk + 32
            var length = 0
            ikm.withUnsafeBytes { key in
                // A NULL key re-initialises with the key set at start: the zero salt.
                check(EVP_MAC_init(extractContext, nil, 0, nil), "EVP_MAC_init(extract)")
                check(EVP_MAC_update(extractContext, key.baseAddress?.assumingMemoryBound(to: UInt8.self), 16),
                      "EVP_MAC_update(extract)")
            }
            check(EVP_MAC_final(extractContext, prk, &length, 32), "EVP_MAC_final(extract)")
            check(EVP_MAC_init(expandContext, prk, 32, nil), "EVP_MAC_init(expand)")
            check(EVP_MAC_update(expandContext, expandInput, expandInput.count), "EVP_MAC_update(expand)")
            check(EVP_MAC_final(expandContext, okm, &length, 32), "EVP_MAC_final(expand)")
            out.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: okm, count: 16)) }
            // The PRK is as secret as the TEK it came from.
            OPENSSL_cleanse(prk, 64)
        }
        return out
    }
}

/// NUL-terminated copies of a few strings with a stable address for the owner's lifetime.
final class CStrings {
    private let pointers: [UnsafeMutablePointer<CChar>]
    private let lengths: [Int]

    init(_ strings: [String]) {
        var pointers: [UnsafeMutablePointer<CChar>] = []
        for string in strings {
            let utf8 = Array(string.utf8CString)
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
            p.initialize(from: utf8, count: utf8.count)
            pointers.append(p)
        }
        self.pointers = pointers
        lengths = strings.map { $0.utf8.count }
    }

    deinit { pointers.forEach { $0.deallocate() } }

    subscript(i: Int) -> UnsafeMutablePointer<CChar> { pointers[i] }
    func length(_ i: Int) -> Int { lengths[i] }
}

/// Consecutive RPIs of one key, as derived by `KeySchedule.withRPIs`.
public struct RPIBatch {
    public let start: ENIntervalNumber
    /// `count × 16` bytes, RPI j at offset `16 j`.
    public let blocks: UnsafeRawBufferPointer

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
