// The export reader (Sources/ENCore/Export/Reading): a downloaded or given export file is the most hostile
// input the badge parses — zip directory, deflate, protobuf, DER signatures. The input is the byte source,
// read the way `enbeacon match` and the agent's key sync read it: `ExportFile(source:maxExportBinSize:)`,
// `header()`, `forEachUnverifiedKey`, `verification(with:)` advanced field by field, then the verified file's
// key iterator. Checked:
// - nothing traps, and every error is an `ExportFileError`; memory stays bounded (libFuzzer's malloc limit);
// - the header pass and the key pass agree; a verified file's keys are exactly the keys the unverified pass
//   reads, in order, and a verified file names the fuzz key among its signers;
// - a source that fails at some offset, or a lower size limit, gives the same result or an error — never
//   another result;
// - a file changed after its signature was checked never yields keys other than the verified ones;
// - keys read back from a file are keys the writer takes (apart from transmission risk levels outside 0...8,
//   which it refuses by design), and written again with the header's descriptor they read back the same.
@testable import ENCore

/// A key made for fuzzing only, so that seeds written with it verify and the verified paths are reached.
/// It protects nothing.
private let fuzzPrivateKeyPEM = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPrQ7hLQSmSGDE8eN
    ReAF4pLI7vyLSqGuNYYIi1uwaxOhRANCAASRbs+66nIyJYFR0q8mGZyN5mkEZU24
    217RPRaz5KdBG3CpAPfkkyBbe8VsVC4caf/meHWWTXSdjVwKUw5fUdHG
    -----END PRIVATE KEY-----
    """
private let fuzzKeyID = VerificationKeyID(id: "310", version: "v1")

nonisolated(unsafe) private var signer: ExportSigner!
nonisolated(unsafe) private var keyring = VerificationKeyring()

func fuzzSetUp() {
    do {
        let key = try SigningKey(pem: fuzzPrivateKeyPEM)
        signer = ExportSigner(key: key, keyID: fuzzKeyID)
        try keyring.add(key.verificationKey(), for: fuzzKeyID)
    } catch {
        fatalError("fuzz key: \(error)")
    }
}

/// An export source over the input; `failAt` makes every read that reaches that offset fail, as a file
/// whose read(2) fails or that shrank would.
private final class FuzzSource: ExportByteSource {
    var bytes: [UInt8]
    let failAt: Int?

    init(_ bytes: [UInt8], failAt: Int? = nil) {
        self.bytes = bytes
        self.failAt = failAt
    }

    var byteCount: Int { bytes.count }

    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ExportFileError) -> Int {
        guard offset >= 0, offset < bytes.count else { return 0 }
        let n = min(buffer.count, bytes.count - offset)
        if let failAt, offset + n > failAt { throw .read("fuzz: the source fails at byte \(failAt)") }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + n)]))
        }
        return n
    }
}

private struct Keys: Equatable {
    var header: ExportHeader
    var keys: [UnverifiedKey]
    var skipped: SkippedKeys
}

private func unverifiedKeys(_ source: FuzzSource, maxExportBinSize: Int = ExportFile.defaultMaxExportBinSize)
    -> Result<Keys, ExportFileError> {
    Result { () throws(ExportFileError) in
        let file = try ExportFile(source: source, maxExportBinSize: maxExportBinSize)
        var keys: [UnverifiedKey] = []
        let (header, skipped) = try file.forEachUnverifiedKey { keys.append($0) }
        return Keys(header: header, keys: keys, skipped: skipped)
    }
}

/// Verifies as the agent does (one field per `advance()`), then reads the keys through the verified file's
/// iterator; `changeAfterVerifying` edits the source in between.
private func verifiedKeys(_ source: FuzzSource, changeAfterVerifying: ((FuzzSource) -> Void)? = nil)
    -> Result<(VerifiedExportFile, [UnverifiedKey], SkippedKeys), ExportFileError> {
    Result { () throws(ExportFileError) in
        let file = try ExportFile(source: source)
        let verification = try file.verification(with: keyring)
        var verified: VerifiedExportFile?
        var steps = 0
        while verified == nil {
            verified = try verification.advance()
            steps += 1
            let progress = verification.progress
            invariant(steps <= progress.of + 2, "verification does not end: \(steps) steps for \(progress.of) bytes")
            invariant(progress.read <= progress.of, "progress \(progress.read) of \(progress.of)")
        }
        changeAfterVerifying?(source)
        let iterator = try verified!.makeKeyIterator()
        var keys: [UnverifiedKey] = []
        while let (key, list) = try iterator.next() { keys.append(UnverifiedKey(key: key, list: list)) }
        invariant(iterator.isFinished, "the iterator ended without finishing")
        invariant(iterator.recordsRead == keys.count + iterator.skipped.total, "records read \(iterator.recordsRead), "
                  + "keys \(keys.count), skipped \(iterator.skipped.total)")
        return (verified!, keys, iterator.skipped)
    }
}

/// Writes `keys` with the descriptor `header` gives and the fuzz key, then reads the archive back.
private func checkWriteBack(_ read: Keys) {
    let header = read.header
    let writable = read.keys.filter { ExportKeyEncoding.rejection(of: $0.key, in: $0.list) == nil }
    for key in read.keys where ExportKeyEncoding.rejection(of: key.key, in: key.list) != nil {
        invariant(!ExportKeyEncoding.transmissionRiskRange.contains(key.key.transmissionRiskLevel),
                  "the reader accepted a key the writer refuses: \(ExportKeyEncoding.rejection(of: key.key, in: key.list)!)")
    }
    guard BatchPosition(header: header) != nil else { return }
    let descriptor = ExportDescriptor(startTimestamp: header.startTimestamp, endTimestamp: header.endTimestamp,
                                      region: header.region, batchNum: header.batchNum, batchSize: header.batchSize)
    let archive: [UInt8]
    do {
        let writer = try ExportWriter(descriptor: descriptor, signers: [signer], compression: writable.count % 2 == 0
                                      ? .deflated : .stored, output: InMemoryExportOutput())
        for key in writable { try writer.add(key.key, to: key.list) }
        archive = try writer.finish().bytes
    } catch {
        return invariant(false, "writing the keys read back failed: \(error)")
    }
    switch verifiedKeys(FuzzSource(archive)) {
    case .failure(let error):
        invariant(false, "a written export does not verify: \(error)")
    case .success(let (verified, keys, skipped)):
        invariant(keys == writable, "written keys read back differently")
        invariant(skipped.total == 0, "written keys were skipped: \(skipped)")
        let h = verified.header
        invariant(h.startTimestamp == header.startTimestamp && h.endTimestamp == header.endTimestamp
                  && h.region == header.region && h.batchNum == header.batchNum && h.batchSize == header.batchSize,
                  "the written header reads back differently")
        invariant(verified.verifiedBy == [fuzzKeyID], "verified by \(verified.verifiedBy)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    var random = InputRandom(bytes)

    let plain = unverifiedKeys(FuzzSource(bytes))
    if case .failure(let error) = plain { _ = error.description }

    // The header pass skips key records without decoding them: where the key pass succeeds, it does too.
    if case .success(let read) = plain {
        switch Result(catching: { () throws(ExportFileError) in try ExportFile(source: FuzzSource(bytes)).header() }) {
        case .success(let header): invariant(header == read.header, "header() and the key pass disagree")
        case .failure(let error): invariant(false, "header() fails (\(error)) where the key pass succeeds")
        }
        invariant(read.keys.count + read.skipped.total == read.header.keyRecordCount + read.header.revisedKeyRecordCount,
                  "\(read.keys.count) keys + \(read.skipped.total) skipped, header counts "
                  + "\(read.header.keyRecordCount) + \(read.header.revisedKeyRecordCount)")
    }

    // A source failing part-way, and a lower size limit: the same result or an error.
    if !bytes.isEmpty {
        let failing = unverifiedKeys(FuzzSource(bytes, failAt: random.below(bytes.count)))
        if case .success = failing { invariant(failing == plain, "a failing source changed the keys") }
        let limited = unverifiedKeys(FuzzSource(bytes), maxExportBinSize: random.below(2 * bytes.count + 1))
        if case .success = limited { invariant(limited == plain, "a size limit changed the keys") }
    }

    // Verification: keys that count are exactly the file's keys.
    let verified = verifiedKeys(FuzzSource(bytes))
    if case .success(let (file, keys, skipped)) = verified {
        guard case .success(let read) = plain else {
            invariant(false, "verified a file the key pass refuses")
            return 0
        }
        invariant(keys == read.keys && skipped == read.skipped, "verified keys differ from the file's keys")
        invariant(file.header == read.header, "the verified header differs from the file's")
        invariant(file.verifiedBy.contains(fuzzKeyID), "verified without the fuzz key: \(file.verifiedBy)")
        invariant(BatchPosition(header: file.header) == file.batch, "batch position differs from the header")
        for list in [ExportKeyList.keys, .revisedKeys] {
            var listed: [DiagnosisKey] = []
            do { try file.forEachKey(in: list) { listed.append($0) } } catch {
                invariant(false, "forEachKey failed after the iterator succeeded: \(error)")
            }
            invariant(listed == keys.filter { $0.list == list }.map(\.key), "forEachKey(in: \(list)) differs")
        }
        // One byte changed after verification: an error, or (if the byte is not export.bin's) the same keys.
        let offset = random.below(bytes.count)
        let flip = UInt8(1 + random.below(255))
        let changed = verifiedKeys(FuzzSource(bytes)) { $0.bytes[offset] ^= flip }
        if case .success(let (_, changedKeys, _)) = changed {
            invariant(changedKeys == keys, "a file changed after verification yielded other keys (byte \(offset))")
        }
    } else if case .failure(let error) = verified {
        _ = error.description
    }

    if case .success(let read) = plain, read.keys.count <= 600 {
        checkWriteBack(read)
    }
    return 0
}

// MARK: Seeds

private func key(_ n: UInt8, start: UInt32, period: UInt32 = 144, risk: Int = 1, type: ReportType = .confirmedTest,
                 onset: Int? = nil) -> DiagnosisKey {
    DiagnosisKey(tek: TemporaryExposureKey(keyData: Bytes16(Array(repeating: n, count: 15) + [n &* 7])!,
                                           rollingStart: ENIntervalNumber(start), rollingPeriod: period),
                 transmissionRiskLevel: risk, reportType: type, daysSinceOnsetOfSymptoms: onset)
}

func fuzzSeeds() -> [Seed] {
    fuzzSetUp()
    let day: UInt32 = 2_700_000 / 144 * 144
    let keys = [key(1, start: day, onset: 0), key(2, start: day + 144, period: 100, risk: 6, onset: -3),
                key(3, start: day + 288, type: .confirmedClinicalDiagnosis, onset: 14)]
    let revised = [key(1, start: day, type: .revoked), key(4, start: day - 144, type: .selfReport)]
    let descriptor = ExportDescriptor(startTimestamp: 1_620_000_000, endTimestamp: 1_620_086_400, region: "DE")
    func archive(_ d: ExportDescriptor = descriptor, signers: [ExportSigner]? = nil, keys k: [DiagnosisKey] = keys,
                 revised r: [DiagnosisKey] = revised, compression: ZipEntry.Method = .deflated) -> [UInt8] {
        do {
            return try ExportWriter.archive(descriptor: d, signers: signers ?? [signer], keys: k, revisedKeys: r,
                                            compression: compression)
        } catch {
            fatalError("seed export: \(error)")
        }
    }
    let stored = archive(compression: .stored)
    // The bare export.bin: the stored entry's bytes, as a server that serves export.bin alone would.
    let bare: [UInt8]
    do { bare = try ExportFile(source: InMemoryExportSource(stored)).openExportBin().readAll() } catch {
        fatalError("seed export.bin: \(error)")
    }
    let other: ExportSigner
    do { other = ExportSigner(key: try SigningKey.generateP256(), keyID: VerificationKeyID(id: "262", version: "v2")) } catch {
        fatalError("seed signer: \(error)")
    }
    var batch = descriptor
    batch.region = "222"
    batch.batchNum = 2
    batch.batchSize = 3
    return [
        Seed("deflated", archive()),
        Seed("stored", stored),
        Seed("bare-export-bin", bare),
        Seed("no-keys", archive(keys: [], revised: [])),
        Seed("co-signed", archive(signers: [other, signer])),
        Seed("batch-2-of-3", archive(batch, keys: Array(keys.prefix(1)), revised: [])),
        Seed("many-keys", archive(keys: (0..<200).map { key(UInt8($0 % 256), start: day + UInt32($0 % 14) * 144) })),
    ]
}
