import ENCore

/// The inputs that would trap where `Int` is 32 bits (armv7, armv6), on the board's own CPU: an export
/// written and read back (the zip writer's 4 GiB limit), zip fields from 2 GiB up, timestamps past year
/// 9999 and a risk configuration's 3e9, each refused or clamped as on x86-64 (ENCoreTests holds the same
/// cases). On a 64-bit target the same checks run and pass the same way.
enum WidthCheck {
    static func run() -> Tally {
        var tally = Tally()
        guard let zip = writtenExport(keys: 1000, tally: &tally) else { return tally }

        // The writer's own zip: export.bin's central record is the first, at the offset the end record gives.
        let end = zip.count - 22
        let directory = Int(read32(zip, at: end + 16))
        for field in [UInt32(0x8000_0000), 0xFFFF_FFF0] {
            expect(patched(zip, at: directory + 42, field), .outOfRange("local header of export.bin"), &tally)
            expect(patched(zip, at: directory + 20, field), .outOfRange("data of export.bin"), &tally)
            expect(patched(zip, at: end + 16, field), .outOfRange("central directory"), &tally)
            expect(patched(zip, at: end + 12, field), .outOfRange("central directory"), &tally)
            let declared = patched(zip, at: directory + 24, field)
            do throws(ExportFileError) {
                _ = try ExportFile(source: InMemoryExportSource(declared)).header()
                tally.check(false, "export.bin declaring \(field) bytes was read")
            } catch {
                guard case .export(.zip(.entryTooLarge)) = error else {
                    tally.check(false, "export.bin declaring \(field) bytes: \(error)")
                    continue
                }
                tally.check(true, "")
            }
        }

        tally.check(UTCDateTime(unixSeconds: Int64.max).description == "9999-12-31T23:59:59Z",
                    "UTCDateTime(Int64.max) is \(UTCDateTime(unixSeconds: Int64.max))")
        do throws(RiskConfigurationError) {
            _ = try ExposureConfigurationV1(json: """
                {"minimumRiskScore":3000000000, "attenuationDurationThresholds":[50,70],
                 "attenuationLevelValues":[1,2,3,4,5,6,7,8], "daysSinceLastExposureLevelValues":[1,2,3,4,5,6,7,8],
                 "durationLevelValues":[1,2,3,4,5,6,7,8], "transmissionRiskLevelValues":[1,2,3,4,5,6,7,8]}
                """)
            tally.check(false, "minimumRiskScore 3000000000 was accepted")
        } catch {
            tally.check("\(error)" == "minimumRiskScore: 3000000000 is outside 0…4096", "\(error)")
        }
        return tally
    }

    /// `count` keys written by ENCore's export writer, signed with a fresh P-256 key, then verified and read
    /// back by its reader: one check.
    static func writtenExport(keys count: Int, tally: inout Tally) -> [UInt8]? {
        // One typed `do` per error type: Embedded Swift has no `any Error` for a catch-all.
        let key: SigningKey
        do throws(SigningKeyError) { key = try SigningKey.generateP256() } catch {
            tally.check(false, "P-256 key: \(error)")
            return nil
        }
        let id = VerificationKeyID(id: "board", version: "v1")
        let zip: [UInt8]
        do throws(ExportWriteError) {
            let writer = try ExportWriter(
                descriptor: ExportDescriptor(startTimestamp: 1_590_883_200, endTimestamp: 1_590_969_600, region: "XX"),
                signers: [ExportSigner(key: key, keyID: id)], output: InMemoryExportOutput())
            var random = SplitMix64(seed: 25)
            for _ in 0..<count {
                let tek = TemporaryExposureKey.generate(for: ENIntervalNumber(2_650_000), using: &random)
                try writer.add(DiagnosisKey(tek: tek, transmissionRiskLevel: 4))
            }
            zip = try writer.finish().bytes
        } catch {
            tally.check(false, "export writer: \(error)")
            return nil
        }
        var keyring = VerificationKeyring()
        do throws(VerificationKeyError) { try keyring.add(try key.verificationKey(), for: id) } catch {
            tally.check(false, "verification key: \(error)")
            return nil
        }
        var read = 0
        do throws(ExportFileError) {
            try ExportFile(source: InMemoryExportSource(zip)).verify(with: keyring).forEachKey { _ in read += 1 }
        } catch {
            tally.check(false, "reading the written export: \(error)")
            return nil
        }
        tally.check(read == count, "wrote \(count) keys, read back \(read)")
        return zip
    }

    static func expect(_ zip: [UInt8], _ reason: ZipError, _ tally: inout Tally) {
        do throws(ExportFileError) {
            _ = try ExportFile(source: InMemoryExportSource(zip))
            tally.check(false, "\(reason) was not refused")
        } catch {
            tally.check(error == .export(.zip(reason)), "expected \(reason), got \(error)")
        }
    }

    static func read32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    static func patched(_ bytes: [UInt8], at offset: Int, _ value: UInt32) -> [UInt8] {
        var copy = bytes
        for i in 0..<4 { copy[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
        return copy
    }
}
