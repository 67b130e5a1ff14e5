import COpenSSL
import Testing
import TestSupport
@testable import ENCore
#if canImport(Glibc)
import Glibc
#endif

/// The official GAEN v1.2 test vector: its first and last interval written out here, all 144 read from
/// Tests/Fixtures/gaen/test_vectors.json.
@Suite struct KeyScheduleTests {
    let schedule = try! KeySchedule()
    let tek = Bytes16(hex: "75c734c6dd1a782de7a965da5eb93125")!
    let metadata = AssociatedEncryptedMetadata(hex: "40080000")!

    @Test func officialVectorLiteral() {
        let interval = ENIntervalNumber(unixSeconds: 1585785600)!
        #expect(interval.value == 2642976)
        let rpik = schedule.rpik(tek)
        let aemk = schedule.aemk(tek)
        #expect(rpik.hex == "185ad91db69ec7dd048960f1f3ba6175")
        #expect(aemk.hex == "d57c46af7a1d83965b9bed8bd152936a")
        let rpi = schedule.rpi(rpik: rpik, interval: interval)
        #expect(rpi.hex == "8be6cd371c5c891604bfbe49df845096")
        #expect(schedule.aem(aemk: aemk, rpi: rpi, metadata).hex == "72033874")
        // The last of the 144, from the same published table.
        let last = schedule.rpi(rpik: rpik, interval: interval.advanced(by: 143)!)
        #expect(last.hex == "f431b62ecf443102ce4ed0407de54bd4")
        #expect(schedule.aem(aemk: aemk, rpi: last, metadata).hex == "1215e57e")
    }

    @Test func aemDecryptionIsTheInverse() {
        let aemk = schedule.aemk(tek)
        let rpi = schedule.rpi(rpik: schedule.rpik(tek), interval: ENIntervalNumber(2642976))
        let aem = schedule.aem(aemk: aemk, rpi: rpi, metadata)
        let plain = schedule.aem(aemk: aemk, rpi: rpi, aem)
        #expect(plain == metadata)
        #expect(Metadata(plain) == Metadata(txPower: 8))
    }

    @Test func allOfficialVectors() throws {
        let v = try TestFixtures.jsonObject(TestFixtures.gaenVectors)
        let tek = Bytes16(hex: v["tek"] as! String)!
        let rpik = schedule.rpik(tek)
        #expect(rpik.hex == v["rpik"] as! String)
        let aemk = schedule.aemk(tek)
        #expect(aemk.hex == v["aemk"] as! String)
        let metadata = AssociatedEncryptedMetadata(hex: v["ble_metadata"] as! String)!
        let start = ENIntervalNumber(UInt32(v["en_interval_number_of_generated_key"] as! Int))
        let rows = v["advertised_data"] as! [[String: Any]]
        #expect(rows.count == 144)
        schedule.withRPIs(rpik: rpik, from: start) { batch in
            #expect(batch.count == 144)
            for row in rows {
                let i = row["index"] as! Int
                #expect(UInt32(row["en_interval_number"] as! Int) == start.value + UInt32(i))
                #expect(batch[i].hex == row["rpi"] as! String, "RPI \(i)")
                #expect(schedule.aem(aemk: aemk, rpi: batch[i], metadata).hex == row["aem"] as! String, "AEM \(i)")
            }
        }
    }

    @Test func batchEqualsOneByOne() {
        let rpik = schedule.rpik(tek)
        let start = ENIntervalNumber(2_700_000)
        let batch = schedule.withRPIs(rpik: rpik, from: start, count: 144) { b in (0..<b.count).map { b[$0] } }
        for j in 0..<144 {
            #expect(batch[j] == schedule.rpi(rpik: rpik, interval: start.advanced(by: Int64(j))!))
        }
        let short = schedule.withRPIs(rpik: rpik, from: start, count: 7) { b in (0..<b.count).map { b[$0] } }
        #expect(short == Array(batch.prefix(7)))
    }

    /// HKDF laid out in SHA-256 blocks agrees with libcrypto's own HKDF (EVP_KDF), for every info length one
    /// block holds and for the infos the badge uses.
    @Test func hkdfAgreesWithLibcryptoHKDF() throws {
        var rng = SplitMix64(seed: 0x4B_D1F0)
        for length in 0...KeySchedule.maxInfoLength {
            for _ in 0..<20 {
                let ikm = Bytes16(low: rng.next(), high: rng.next())
                let info = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                #expect(schedule.hkdf16(ikm, info: info) == libcryptoHKDF(ikm, info), "info length \(length)")
            }
        }
        for _ in 0..<200 {
            let ikm = Bytes16(low: rng.next(), high: rng.next())
            let interval = ENIntervalNumber(UInt32(truncatingIfNeeded: rng.next()))
            #expect(schedule.rpik(ikm) == libcryptoHKDF(ikm, Array(KeySchedule.rpikInfo.utf8)))
            #expect(schedule.aemk(ikm) == libcryptoHKDF(ikm, Array(KeySchedule.aemkInfo.utf8)))
            var info = Array(KeySchedule.addressInfo.utf8)
            withUnsafeBytes(of: interval.value.littleEndian) { info += $0 }
            let okm = libcryptoHKDF(ikm, info).bytes
            #expect(schedule.addressBits(tek: ikm, interval: interval) == okm.prefix(6).reduce(0) { $0 << 8 | UInt64($1) })
        }
    }

    /// HKDF-SHA256(ikm, no salt, info, 16) through EVP_KDF("HKDF").
    func libcryptoHKDF(_ ikm: Bytes16, _ info: [UInt8]) -> Bytes16 {
        let kdf = EVP_KDF_fetch(nil, "HKDF", nil)
        let context = EVP_KDF_CTX_new(kdf)
        defer {
            EVP_KDF_CTX_free(context)
            EVP_KDF_free(kdf)
        }
        // OSSL_PARAM keeps pointers to its names and values: all of them must outlive the derive call.
        let names = ["digest", "key", "info", "SHA256"].map { name in name.withCString { strdup($0)! } }
        defer { names.forEach { free($0) } }
        var key = ikm.bytes, infoBytes = info
        var out = [UInt8](repeating: 0, count: 16)
        let derived = key.withUnsafeMutableBytes { k in
            infoBytes.withUnsafeMutableBytes { i in
                var params = [
                    OSSL_PARAM_construct_utf8_string(names[0], names[3], 0),
                    OSSL_PARAM_construct_octet_string(names[1], k.baseAddress, k.count),
                    OSSL_PARAM_construct_octet_string(names[2], i.count == 0 ? nil : i.baseAddress, i.count),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_KDF_derive(context, &out, 16, &params)
            }
        }
        precondition(derived == 1, "EVP_KDF_derive(HKDF)")
        return Bytes16(out)!
    }

    /// PaddedData is written once per day's set and rewritten only when the intervals change: batches of several
    /// starts and lengths, in an order that reuses a set, outgrows it, and gives it to a day 16 days later, equal
    /// those of a fresh instance.
    @Test func batchesFollowTheirIntervals() throws {
        let rpik = schedule.rpik(tek)
        let start = ENIntervalNumber(2_700_000)
        let later = UInt32(KeySchedule.paddedDays) * ENIntervalNumber.intervalsPerDay
        let calls: [(UInt32, Int)] = [(0, 7), (0, 144), (0, 3), (1, 3), (1, 144), (0, 144), (144, 1), (later, 144),
                                      (0, 144), (0, 2), (later + 5, 9), (later, 144)]
        for (offset, count) in calls {
            let from = ENIntervalNumber(start.value + offset)
            let got = schedule.withRPIs(rpik: rpik, from: from, count: count) { b in (0..<b.count).map { b[$0] } }
            let fresh = try KeySchedule()
            let expected = fresh.withRPIs(rpik: rpik, from: from, count: count) { b in (0..<b.count).map { b[$0] } }
            #expect(got == expected, "from +\(offset), \(count) RPIs")
            #expect(got[0] == fresh.rpi(rpik: rpik, interval: from))
        }
    }

    @Test func paddedDataWrapsAtTheEndOfUInt32() {
        // No trap at the far end of time: the interval field is a wrapping uint32.
        let rpik = schedule.rpik(tek)
        let wrapped = schedule.withRPIs(rpik: rpik, from: ENIntervalNumber(UInt32.max), count: 2) { $0[1] }
        #expect(wrapped == schedule.rpi(rpik: rpik, interval: ENIntervalNumber(0)))
    }
}
