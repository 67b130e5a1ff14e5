import Testing
@testable import ENCore

/// The official GAEN v1.2 test vector: written out literally so a fresh clone checks it without ../shared.
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

    @Test(.enabled(if: SharedData.available, SharedData.skipReason))
    func allOfficialVectors() throws {
        let v = try SharedData.json("test_vectors.json")
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

    @Test func paddedDataWrapsAtTheEndOfUInt32() {
        // No trap at the far end of time: the interval field is a wrapping uint32.
        let rpik = schedule.rpik(tek)
        let wrapped = schedule.withRPIs(rpik: rpik, from: ENIntervalNumber(UInt32.max), count: 2) { $0[1] }
        #expect(wrapped == schedule.rpi(rpik: rpik, interval: ENIntervalNumber(0)))
    }
}
