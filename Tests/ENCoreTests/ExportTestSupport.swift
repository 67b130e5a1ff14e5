import COpenSSL
import CZlib
import ENCore
import Foundation

// Builders for self-made exports: a protobuf writer, a zip writer with knobs for corrupting every
// field the reader checks, and a libcrypto signer. Test-only; none of this is in Sources.

/// Protobuf wire-format writer, enough to produce every field shape an export can hold (and some it must not).
struct ExportProtoWriter {
    var bytes: [UInt8] = []

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func tag(_ field: UInt32, _ wireType: UInt8) { varint(UInt64(field) << 3 | UInt64(wireType)) }

    mutating func varintField(_ field: UInt32, _ value: UInt64) {
        tag(field, 0)
        varint(value)
    }

    /// proto int32: negative values sign-extend to ten bytes.
    mutating func int32Field(_ field: UInt32, _ value: Int32) { varintField(field, UInt64(bitPattern: Int64(value))) }

    mutating func sint32Field(_ field: UInt32, _ value: Int32) {
        varintField(field, UInt64(UInt32(bitPattern: (value << 1) ^ (value >> 31))))
    }

    mutating func fixed64Field(_ field: UInt32, _ value: UInt64) {
        tag(field, 1)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed32Field(_ field: UInt32, _ value: UInt32) {
        tag(field, 5)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bytesField(_ field: UInt32, _ value: [UInt8]) {
        tag(field, 2)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func stringField(_ field: UInt32, _ value: String) { bytesField(field, Array(value.utf8)) }

    mutating func messageField(_ field: UInt32, _ build: (inout ExportProtoWriter) -> Void) {
        var inner = ExportProtoWriter()
        build(&inner)
        bytesField(field, inner.bytes)
    }

    /// One unknown field of every wire type, groups included (nested), under unused field numbers.
    mutating func unknownFieldsOfEveryWireType() {
        varintField(90, 300)
        fixed64Field(91, 0x0102_0304_0506_0708)
        bytesField(92, [1, 2, 3])
        tag(93, 3)              // start group 93
        varintField(1, 7)
        tag(94, 3)              // nested group 94
        fixed32Field(2, 9)
        tag(94, 4)
        tag(93, 4)              // end group 93
        fixed32Field(95, 0xDEAD_BEEF)
    }
}

/// A key as a test writes it: every field optional so absent fields can be tested.
struct ExportTestKey {
    var keyData: [UInt8]
    var transmissionRiskLevel: Int32? = 3
    var rollingStart: Int32? = 2_650_000
    var rollingPeriod: Int32? = 144
    var reportType: Int32? = nil
    var daysSinceOnset: Int32? = nil
    var reversedFieldOrder = false
    var unknownFields = false

    static func random(rollingStart: Int32 = 2_650_000) -> ExportTestKey {
        ExportTestKey(keyData: (0..<16).map { _ in UInt8.random(in: 0...255) }, rollingStart: rollingStart)
    }

    func write(_ w: inout ExportProtoWriter) {
        var fields: [(inout ExportProtoWriter) -> Void] = []
        fields.append { $0.bytesField(1, keyData) }
        if let transmissionRiskLevel { fields.append { $0.int32Field(2, transmissionRiskLevel) } }
        if let rollingStart { fields.append { $0.int32Field(3, rollingStart) } }
        if let rollingPeriod { fields.append { $0.int32Field(4, rollingPeriod) } }
        if let reportType { fields.append { $0.int32Field(5, reportType) } }
        if let daysSinceOnset { fields.append { $0.sint32Field(6, daysSinceOnset) } }
        if unknownFields { fields.insert({ $0.unknownFieldsOfEveryWireType() }, at: 1) }
        for field in reversedFieldOrder ? fields.reversed() : fields { field(&w) }
    }
}

/// export.bin and export.sig as a test describes them.
struct ExportTestFile {
    var startTimestamp: UInt64 = 1_600_000_000
    var endTimestamp: UInt64 = 1_600_086_400
    var region = "XX"
    var batchNum: Int32 = 1
    var batchSize: Int32 = 1
    var signatureInfos = [SignatureInfo(verificationKeyVersion: "v1", verificationKeyID: "999")]
    var keys: [ExportTestKey] = []
    var revisedKeys: [ExportTestKey] = []
    /// Written into export.bin before anything else, after the magic (for "unusual order" tests).
    var keysFirst = false
    var unknownFields = false

    static func writeSignatureInfo(_ info: SignatureInfo, legacyFields: Bool, _ w: inout ExportProtoWriter) {
        if legacyFields {
            w.stringField(1, "org.example.app")
            w.stringField(2, "org.example.app.android")
        }
        w.stringField(3, info.verificationKeyVersion)
        w.stringField(4, info.verificationKeyID)
        w.stringField(5, info.signatureAlgorithm)
    }

    var exportBin: [UInt8] {
        var w = ExportProtoWriter()
        let writeKeys = { (w: inout ExportProtoWriter) in
            for key in keys { w.messageField(7, key.write) }
            for key in revisedKeys { w.messageField(8, key.write) }
        }
        if keysFirst { writeKeys(&w) }
        if unknownFields { w.unknownFieldsOfEveryWireType() }
        w.fixed64Field(1, startTimestamp)
        w.fixed64Field(2, endTimestamp)
        w.stringField(3, region)
        w.int32Field(4, batchNum)
        w.int32Field(5, batchSize)
        for info in signatureInfos {
            w.messageField(6) { Self.writeSignatureInfo(info, legacyFields: unknownFields, &$0) }
        }
        if !keysFirst { writeKeys(&w) }
        return ExportHeader.magic + w.bytes
    }

    /// A TEKSignatureList with one signature per entry of `signatures`.
    static func exportSig(_ signatures: [(SignatureInfo, [UInt8])], batchNum: Int32 = 1, batchSize: Int32 = 1,
                          unknownFields: Bool = false) -> [UInt8] {
        var w = ExportProtoWriter()
        for (info, signature) in signatures {
            w.messageField(1) { s in
                if unknownFields { s.unknownFieldsOfEveryWireType() }
                s.messageField(1) { writeSignatureInfo(info, legacyFields: unknownFields, &$0) }
                s.int32Field(2, batchNum)
                s.int32Field(3, batchSize)
                s.bytesField(4, signature)
            }
        }
        if unknownFields { w.unknownFieldsOfEveryWireType() }
        return w.bytes
    }
}

/// A key pair made by libcrypto for the test run. Signs DER ECDSA with SHA-256, as a key server does.
final class ExportTestSigner: @unchecked Sendable {
    let key: OpaquePointer

    /// `curve` is an OpenSSL group name ("P-256", "secp256k1", "P-384"); "ED25519" makes an EdDSA key.
    init(curve: String = "P-256") {
        let isEdwards = curve == "ED25519"
        let context = EVP_PKEY_CTX_new_from_name(nil, isEdwards ? "ED25519" : "EC", nil)!
        defer { EVP_PKEY_CTX_free(context) }
        precondition(EVP_PKEY_keygen_init(context) == 1)
        if !isEdwards { precondition(EVP_PKEY_CTX_set_group_name(context, curve) == 1) }
        var generated: OpaquePointer?
        precondition(EVP_PKEY_generate(context, &generated) == 1)
        key = generated!
    }

    deinit { EVP_PKEY_free(key) }

    func sign(_ message: [UInt8]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1)
        var length = 0
        precondition(EVP_DigestSign(context, nil, &length, message, message.count) == 1)
        var signature = [UInt8](repeating: 0, count: length)
        precondition(EVP_DigestSign(context, &signature, &length, message, message.count) == 1)
        return Array(signature.prefix(length))
    }

    var publicKeyPEM: String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        precondition(PEM_write_bio_PUBKEY(bio, key) == 1)
        var pem: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let n = BIO_read(bio, &chunk, Int32(chunk.count))
            if n <= 0 { break }
            pem += chunk.prefix(Int(n))
        }
        return String(decoding: pem, as: UTF8.self)
    }

    var publicKeyDER: [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { out in
            var cursor = out.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        return der
    }

    var verificationKey: VerificationKey { try! VerificationKey(pem: publicKeyPEM) }

    /// A signed zip for `file`, signed once per SignatureInfo by this signer.
    func signedArchive(_ file: ExportTestFile) -> TestExport {
        let bin = file.exportBin
        let signature = sign(bin)
        let sig = ExportTestFile.exportSig(file.signatureInfos.map { ($0, signature) },
                                           batchNum: file.batchNum, batchSize: file.batchSize)
        return TestExport(exportBin: bin, exportSig: sig)
    }

    /// A keyring holding this signer's key under `id`.
    func keyring(for id: VerificationKeyID = VerificationKeyID(id: "999", version: "v1")) -> VerificationKeyring {
        var keyring = VerificationKeyring()
        try! keyring.add(verificationKey, for: id)
        return keyring
    }

    /// The raw r‖s (32 + 32 bytes) form of a DER signature: what some servers wrongly publish.
    static func rawSignature(fromDER der: [UInt8]) -> [UInt8] {
        der.withUnsafeBufferPointer { input in
            var cursor = input.baseAddress
            let parsed = d2i_ECDSA_SIG(nil, &cursor, input.count)!
            defer { ECDSA_SIG_free(parsed) }
            var out = [UInt8](repeating: 0, count: 64)
            precondition(BN_bn2binpad(ECDSA_SIG_get0_r(parsed), &out, 32) == 32)
            out.withUnsafeMutableBufferPointer { tail in
                precondition(BN_bn2binpad(ECDSA_SIG_get0_s(parsed), tail.baseAddress! + 32, 32) == 32)
            }
            return out
        }
    }
}

/// Writes zip archives entry by entry, keeping the central-directory records editable so tests can
/// corrupt exactly one field.
struct ExportZipWriter {
    struct CentralRecord {
        var name: [UInt8]
        var flags: UInt16 = 0
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt32
        var uncompressedSize: UInt32
        var localOffset: UInt32
        var diskStart: UInt16 = 0
    }

    var body: [UInt8] = []
    var central: [CentralRecord] = []
    /// EOCD field overrides.
    var entryCountOverride: UInt16?
    var comment: [UInt8] = []

    /// Appends an entry. `declaredSize` and `declaredCRC` lie about the contents when given;
    /// `compressed` replaces the compressed bytes.
    mutating func add(_ name: String, _ data: [UInt8], method: UInt16 = 8, flags: UInt16 = 0,
                      declaredSize: UInt32? = nil, declaredCRC: UInt32? = nil, compressed: [UInt8]? = nil) {
        let payload = compressed ?? (method == 8 ? Self.deflate(data) : data)
        let crc = declaredCRC ?? data.withUnsafeBytes { Self.crc32Of($0) }
        let record = CentralRecord(
            name: Array(name.utf8), flags: flags, method: method, crc: crc, compressedSize: UInt32(payload.count),
            uncompressedSize: declaredSize ?? UInt32(data.count), localOffset: UInt32(body.count))
        Self.put32(&body, 0x0403_4b50)
        Self.put16(&body, 20)
        Self.put16(&body, flags)
        Self.put16(&body, method)
        Self.put16(&body, 0)
        Self.put16(&body, 0)
        Self.put32(&body, record.crc)
        Self.put32(&body, record.compressedSize)
        Self.put32(&body, record.uncompressedSize)
        Self.put16(&body, UInt16(record.name.count))
        Self.put16(&body, 0)
        body += record.name
        body += payload
        central.append(record)
    }

    var bytes: [UInt8] {
        var out = body
        let directoryOffset = out.count
        for r in central {
            Self.put32(&out, 0x0201_4b50)
            Self.put16(&out, 20)
            Self.put16(&out, 20)
            Self.put16(&out, r.flags)
            Self.put16(&out, r.method)
            Self.put16(&out, 0)
            Self.put16(&out, 0)
            Self.put32(&out, r.crc)
            Self.put32(&out, r.compressedSize)
            Self.put32(&out, r.uncompressedSize)
            Self.put16(&out, UInt16(r.name.count))
            Self.put16(&out, 0)
            Self.put16(&out, 0)
            Self.put16(&out, r.diskStart)
            Self.put16(&out, 0)
            Self.put32(&out, 0)
            Self.put32(&out, r.localOffset)
            out += r.name
        }
        let directorySize = out.count - directoryOffset
        let count = entryCountOverride ?? UInt16(central.count)
        Self.put32(&out, 0x0605_4b50)
        Self.put16(&out, 0)
        Self.put16(&out, 0)
        Self.put16(&out, count)
        Self.put16(&out, count)
        Self.put32(&out, UInt32(directorySize))
        Self.put32(&out, UInt32(directoryOffset))
        Self.put16(&out, UInt16(comment.count))
        out += comment
        return out
    }

    static func zip(bin: [UInt8], sig: [UInt8]?) -> [UInt8] {
        var writer = ExportZipWriter()
        writer.add("export.bin", bin)
        if let sig { writer.add("export.sig", sig) }
        return writer.bytes
    }

    static func put16(_ out: inout [UInt8], _ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func put32(_ out: inout [UInt8], _ v: UInt32) {
        put16(&out, UInt16(v & 0xFFFF))
        put16(&out, UInt16(v >> 16))
    }

    static func crc32Of(_ data: UnsafeRawBufferPointer) -> UInt32 {
        var crc = crc32(0, nil, 0)
        if let base = data.baseAddress, data.count > 0 {
            crc = crc32(crc, base.assumingMemoryBound(to: UInt8.self), UInt32(data.count))
        }
        return UInt32(crc)
    }

    /// Raw deflate (no zlib header), as zip method 8 stores it.
    static func deflate(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                   Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        let produced = data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output -> Int in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(output.count)
                precondition(CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return Int(stream.total_out)
            }
        }
        return Array(out.prefix(produced))
    }
}

enum ExportTestDigest {
    static func sha256Hex(_ data: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_Digest(data, data.count, &digest, &length, EVP_sha256(), nil) == 1)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// Resident-set size of this process, from /proc (Linux).
enum ExportProcessMemory {
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
