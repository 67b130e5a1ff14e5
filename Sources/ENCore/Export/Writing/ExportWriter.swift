/// Writes a signed GAEN export zip (SPEC §3) as keys arrive: export.bin (the 16-byte header and a
/// `TemporaryExposureKeyExport`), then export.sig (a `TEKSignatureList` with one ECDSA P-256 / SHA-256 DER
/// signature per signer over the whole export.bin), then the central directory.
///
/// Keys pass through a 64 KiB staging buffer into the CRC-32, the signature digests and zlib, and from
/// there into `output`; nothing else grows with the number of keys. Two million keys (about 60 MB of
/// export.bin) therefore cost what two do, plus whatever `output` keeps — all of it in memory, none of it
/// with a file-backed output.
///
/// ```swift
/// let writer = try ExportWriter(descriptor: d, signers: [signer], output: InMemoryExportOutput())
/// for key in keys { try writer.add(key) }
/// let zip = try writer.finish().bytes
/// ```
public final class ExportWriter<Output: ExportOutput> {
    /// Phones read at most ten SignatureInfos.
    public static var maxSigners: Int { 10 }
    static var stagingSize: Int { 64 * 1024 }

    public let descriptor: ExportDescriptor
    public let signers: [ExportSigner]
    /// Keys written so far, per list.
    public private(set) var keyCount = 0
    public private(set) var revisedKeyCount = 0

    private var output: Output
    private let compression: ZipEntry.Method
    private let level: Int32
    private let timestamp: DOSTimestamp
    private let signatures: ExportSignatureStream
    private let exportBin: ZipEntryWriter
    private var staging = ProtobufWriter()
    private var scratch = ProtobufWriter()
    private var isFinished = false

    /// Starts the archive and writes export.bin's header fields. `compression` applies to both entries;
    /// `level` is zlib's 1 (fastest) … 9 (smallest), 6 by default.
    public init(descriptor: ExportDescriptor, signers: [ExportSigner], compression: ZipEntry.Method = .deflated,
                level: Int32 = 6, output: Output) throws(ExportWriteError) {
        guard !signers.isEmpty else { throw .noSigners }
        guard signers.count <= Self.maxSigners else {
            throw .tooManySigners(count: signers.count, limit: Self.maxSigners)
        }
        guard descriptor.batchNum >= 1, descriptor.batchNum <= descriptor.batchSize,
              descriptor.batchSize <= BatchPosition.maxBatchSize
        else { throw .batchOutOfRange(batchNum: descriptor.batchNum, batchSize: descriptor.batchSize) }
        self.descriptor = descriptor
        self.signers = signers
        self.output = output
        self.compression = compression
        self.level = level
        timestamp = DOSTimestamp(unixSeconds: Int64(clamping: descriptor.endTimestamp))
        signatures = try ExportSignatureStream(signers: signers)
        exportBin = try ZipEntryWriter.start(name: ExportFile.exportBinName, method: compression, level: level,
                                             timestamp: timestamp, output: &self.output)
        staging.bytes.reserveCapacity(Self.stagingSize + 64)
        staging.bytes += ExportHeader.magic
        staging.fixed64(1, descriptor.startTimestamp)
        staging.fixed64(2, descriptor.endTimestamp)
        staging.string(3, descriptor.region)
        staging.int32(4, descriptor.batchNum)
        staging.int32(5, descriptor.batchSize)
        for signer in signers {
            staging.message(6) { Self.writeSignatureInfo(signer.signatureInfo, to: &$0) }
        }
    }

    /// Appends one key to `keys` (first releases) or `revised_keys` (revisions and revocations).
    public func add(_ key: DiagnosisKey, to list: ExportKeyList = .keys) throws(ExportWriteError) {
        guard !isFinished else { throw .finished }
        if let reason = ExportKeyEncoding.rejection(of: key, in: list) {
            throw .invalidKey(index: keyCount + revisedKeyCount, reason: reason)
        }
        ExportKeyEncoding.append(key, list: list, to: &staging, scratch: &scratch)
        if list == .keys { keyCount += 1 } else { revisedKeyCount += 1 }
        if staging.bytes.count >= Self.stagingSize { try flushStaging() }
    }

    /// Completes export.bin, signs it, writes export.sig and the directory, and hands back the output.
    public func finish() throws(ExportWriteError) -> Output {
        guard !isFinished else { throw .finished }
        isFinished = true
        try flushStaging()
        let binEntry = try exportBin.finish(to: &output)
        var list = ProtobufWriter()
        for signature in try signatures.finish(batchNum: descriptor.batchNum, batchSize: descriptor.batchSize) {
            list.message(1) { entry in
                entry.message(1) { Self.writeSignatureInfo(signature.signatureInfo, to: &$0) }
                entry.int32(2, signature.batchNum)
                entry.int32(3, signature.batchSize)
                entry.bytesField(4, signature.signature)
            }
        }
        let sigWriter = try ZipEntryWriter.start(name: ExportFile.exportSigName, method: compression, level: level,
                                                 timestamp: timestamp, output: &output)
        try list.bytes.withBytes { (raw) throws(ExportWriteError) in try sigWriter.write(raw, to: &output) }
        let sigEntry = try sigWriter.finish(to: &output)

        let directoryOffset = output.count
        for entry in [binEntry, sigEntry] { try output.append(ZipRecordLayout.centralHeader(entry)) }
        let directorySize = output.count - directoryOffset
        guard output.count <= ZipRecordLayout.limit else { throw .tooLarge(bytes: output.count) }
        try output.append(ZipRecordLayout.endOfCentralDirectory(entries: 2, directoryOffset: directoryOffset,
                                                                directorySize: directorySize))
        return output
    }

    private func flushStaging() throws(ExportWriteError) {
        guard !staging.bytes.isEmpty else { return }
        let bytes = staging.bytes
        try bytes.withBytes { (raw) throws(ExportWriteError) in
            signatures.update(raw)
            try exportBin.write(raw, to: &output)
        }
        staging.bytes.removeAll(keepingCapacity: true)
    }

    /// Fields 3–5 only: the legacy fields 1 and 2 are reserved and never written.
    static func writeSignatureInfo(_ info: SignatureInfo, to writer: inout ProtobufWriter) {
        writer.string(3, info.verificationKeyVersion)
        writer.string(4, info.verificationKeyID)
        writer.string(5, info.signatureAlgorithm)
    }
}

extension ExportWriter where Output == InMemoryExportOutput {
    /// A whole export in memory, for small ones: the demo's key server and tests.
    public static func archive(
        descriptor: ExportDescriptor, signers: [ExportSigner], keys: some Sequence<DiagnosisKey>,
        revisedKeys: some Sequence<DiagnosisKey> = [DiagnosisKey](), compression: ZipEntry.Method = .deflated
    ) throws(ExportWriteError) -> [UInt8] {
        let writer = try ExportWriter(descriptor: descriptor, signers: signers, compression: compression,
                                      output: InMemoryExportOutput())
        for key in keys { try writer.add(key, to: .keys) }
        for key in revisedKeys { try writer.add(key, to: .revisedKeys) }
        return try writer.finish().bytes
    }
}
