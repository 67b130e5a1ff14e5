import ENCore

/// The official key-schedule vectors (Tests/Fixtures/gaen/test_vectors.json) through ENCore on this CPU: the
/// RPIK and AEMK of the TEK, then for each of the 144 intervals its RPI and AEM, and the advertising
/// payload built from them decoding back to both. One check each for RPIK and AEMK, one per interval.
enum VectorCheck {
    static func run(vectorsPath: String) -> Tally {
        var tally = Tally()
        guard let text = BoardFile.text(vectorsPath) else {
            tally.check(false, "cannot read \(vectorsPath)")
            return tally
        }
        let document: JSONValue
        do throws(JSONSyntaxError) { document = try JSONValue.parse(text) } catch {
            tally.check(false, "\(vectorsPath): \(error)")
            return tally
        }
        guard let tek = document["tek"]?.string.flatMap(Bytes16.init(hex:)),
              let metadata = document["ble_metadata"]?.string.flatMap(AssociatedEncryptedMetadata.init(hex:)),
              let vectors = document["advertised_data"]?.array, !vectors.isEmpty
        else {
            tally.check(false, "\(vectorsPath) lacks tek, ble_metadata or advertised_data")
            return tally
        }
        let schedule: KeySchedule
        do throws(CryptoError) { schedule = try KeySchedule() } catch {
            tally.check(false, "libcrypto: \(error)")
            return tally
        }
        let rpik = schedule.rpik(tek)
        let aemk = schedule.aemk(tek)
        tally.check(rpik.hex == document["rpik"]?.string, "RPIK \(rpik.hex)")
        tally.check(aemk.hex == document["aemk"]?.string, "AEMK \(aemk.hex)")
        for vector in vectors {
            guard let number = vector["en_interval_number"]?.int64, let value = UInt32(exactly: number),
                  let expectedRPI = vector["rpi"]?.string, let expectedAEM = vector["aem"]?.string
            else {
                tally.check(false, "a malformed vector")
                continue
            }
            let interval = ENIntervalNumber(value)
            let rpi = schedule.rpi(rpik: rpik, interval: interval)
            let aem = schedule.aem(aemk: aemk, rpi: rpi, metadata)
            let payload = AdvertisingPayload(rpi: rpi, aem: aem)
            let decoded = try? AdvertisingPayload(decoding: payload.encoded())
            tally.check(rpi.hex == expectedRPI && aem.hex == expectedAEM && decoded == payload
                            && schedule.aem(aemk: aemk, rpi: rpi, aem) == metadata,
                        "ENIN \(value): RPI \(rpi.hex) AEM \(aem.hex)")
        }
        return tally
    }
}
