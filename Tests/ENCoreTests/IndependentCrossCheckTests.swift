import Foundation
import Testing
@testable import ENCore

/// Cross-checks the key schedule against an independent implementation: Python's `cryptography`
/// package (OpenSSL underneath, but a separate HKDF and a separate padded-data construction).
@Suite struct IndependentCrossCheckTests {
    static let python = "/usr/bin/env"
    static let script = """
        import sys
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        def hkdf(ikm, info):
            return HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=info).derive(ikm)
        for line in sys.stdin:
            tek, enin, meta = line.split()
            tek = bytes.fromhex(tek); meta = bytes.fromhex(meta)
            padded = b"EN-RPI" + bytes(6) + int(enin).to_bytes(4, "little")
            enc = Cipher(algorithms.AES(hkdf(tek, b"EN-RPIK")), modes.ECB()).encryptor()
            rpi = enc.update(padded) + enc.finalize()
            ctr = Cipher(algorithms.AES(hkdf(tek, b"EN-AEMK")), modes.CTR(rpi)).encryptor()
            aem = ctr.update(meta) + ctr.finalize()
            print(rpi.hex(), aem.hex())
        """

    static var cryptographyAvailable: Bool {
        (try? run(["python3", "-c", "import cryptography"], input: "").status) == 0
    }

    static func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write on another thread: 1,000 lines can exceed the pipe buffer while Python writes back.
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test(.enabled(if: cryptographyAvailable,
                   "Python's cryptography package is missing (pip install cryptography): skipping the cross-check"))
    func thousandRandomTriplesAgreeByteForByte() throws {
        var rng = SystemRandomNumberGenerator()
        var triples: [(Bytes16, ENIntervalNumber, AssociatedEncryptedMetadata)] = []
        for _ in 0..<1000 {
            let tek = TemporaryExposureKey.generate(for: ENIntervalNumber(0), using: &rng).keyData
            let interval = ENIntervalNumber(UInt32.random(in: 0...UInt32.max, using: &rng))
            let metadata = AssociatedEncryptedMetadata(word: UInt32.random(in: 0...UInt32.max, using: &rng))
            triples.append((tek, interval, metadata))
        }
        let input = triples.map { "\($0.0.hex) \($0.1.value) \($0.2.hex)\n" }.joined()
        let (status, output) = try Self.run(["python3", "-c", Self.script], input: input)
        #expect(status == 0)
        let lines = output.split(separator: "\n")
        try #require(lines.count == 1000)

        let schedule = try KeySchedule()
        for (i, (tek, interval, metadata)) in triples.enumerated() {
            let rpi = schedule.rpi(rpik: schedule.rpik(tek), interval: interval)
            let aem = schedule.aem(aemk: schedule.aemk(tek), rpi: rpi, metadata)
            #expect("\(rpi.hex) \(aem.hex)" == String(lines[i]),
                    "TEK \(tek.hex) ENIN \(interval) metadata \(metadata.hex)")
        }
    }
}
