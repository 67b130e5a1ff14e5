import CMCU
import ENCore

/// The cases of one case file, checked one line at a time (the format is in VectorCheck.swift).
struct CaseRun {
    let schedule: KeySchedule
    private(set) var passed = 0
    private(set) var failed = 0

    /// The matcher case under way: its time and sightings, then the matcher and what its keys matched.
    private var matcherNow: Int64?
    private var sightings: [Sighting] = []
    private var matcher: KeyMatcher?
    private var matchedKeys = 0, hits = 0, keys = 0
    /// Timer ticks spent in the matcher, and the deepest stack while it ran.
    private var matchTicks: UInt32 = 0
    private var matchStack = 0
    /// The heap in use after the last key of a matcher case: the sightings, the matcher and the key schedule.
    private var matchHeap = 0
    /// The risk configurations in force and the scoring cases checked under them.
    private var risk = RiskCases()
    /// The sighting store's cases, on the flash part.
    private var store = StoreCases()

    init(schedule: KeySchedule) { self.schedule = schedule }

    /// Checks one line; a description of what is wrong with the line itself (not a failed case), or nil.
    mutating func check(_ line: [UInt8]) -> String? {
        let fields = line.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard let kind = fields.first, !kind.hasPrefix("#") else { return nil }
        let f = Array(fields.dropFirst())
        switch (kind, f.count) {
        case ("rpik", 2):
            guard let tek = Bytes16(hex: f[0]), let want = Bytes16(hex: f[1]) else { return "bad hex" }
            record(schedule.rpik(tek) == want, "rpik \(f[0])")
        case ("aemk", 2):
            guard let tek = Bytes16(hex: f[0]), let want = Bytes16(hex: f[1]) else { return "bad hex" }
            record(schedule.aemk(tek) == want, "aemk \(f[0])")
        case ("rpi", 3):
            guard let tek = Bytes16(hex: f[0]), let n = UInt32(f[1]), let want = Bytes16(hex: f[2]) else { return "bad field" }
            record(rpi(tek, n) == want, "rpi \(f[0]) \(f[1])")
        case ("aem", 4):
            guard let tek = Bytes16(hex: f[0]), let n = UInt32(f[1]), let metadata = AssociatedEncryptedMetadata(hex: f[2]),
                  let want = AssociatedEncryptedMetadata(hex: f[3]) else { return "bad field" }
            let aem = schedule.aem(aemk: schedule.aemk(tek), rpi: rpi(tek, n), metadata)
            record(aem == want, "aem \(f[0]) \(f[1])")
        case ("payload", 3):
            guard let rpi = Bytes16(hex: f[0]), let aem = AssociatedEncryptedMetadata(hex: f[1]),
                  let want = Hex.decode(f[2]) else { return "bad hex" }
            let payload = AdvertisingPayload(rpi: rpi, aem: aem)
            let decoded = try? AdvertisingPayload(decoding: want)
            record(payload.encoded() == want && decoded == payload, "payload \(f[0])")
        case ("matcher", 2):
            if let error = finishMatcherCase() { return error }
            guard let now = Int64(f[0]), let count = Int(f[1]), count >= 0 else { return "bad field" }
            matcherNow = now
            // The store knows how many sightings it holds: one allocation for them, not a doubling array's.
            sightings.reserveCapacity(count)
        case ("sighting", 4):
            guard matcherNow != nil, matcher == nil else { return "a sighting outside a matcher case's sightings" }
            guard let rpi = Bytes16(hex: f[0]), let aem = AssociatedEncryptedMetadata(hex: f[1]), let seen = Int64(f[2]),
                  let rssi = Int8(f[3]) else { return "bad field" }
            sightings.append(Sighting(rpi: rpi, aem: aem, firstSeen: seen, rssiMax: rssi, rssiMean: rssi, reports: 1,
                                      secondsSincePreviousScan: 0))
        case ("key", 3):
            guard let now = matcherNow else { return "a key outside a matcher case" }
            guard let tek = Bytes16(hex: f[0]), let start = UInt32(f[1]), let period = UInt32(f[2]) else { return "bad field" }
            if matcher == nil {
                matcher = KeyMatcher(sightings: sightings, now: now, schedule: schedule)
            }
            let key = DiagnosisKey(tek: TemporaryExposureKey(keyData: tek, rollingStart: ENIntervalNumber(start), rollingPeriod: period))
            mcu_stack_repaint()
            let from = mcu_timer_ticks()
            let found = matcher!.match(key)
            matchTicks &+= mcu_timer_ticks() &- from
            // From the top of the stack: main's frames and this one's are counted too.
            matchStack = max(matchStack, Int(mcu_stack_peak()))
            matchHeap = max(matchHeap, Int(mcu_heap_in_use()))
            keys += 1
            hits += found.count
            if !found.isEmpty { matchedKeys += 1 }
        case ("matches", 2):
            guard matcherNow != nil, let wantKeys = Int(f[0]), let wantHits = Int(f[1]) else { return "bad field" }
            record(matchedKeys == wantKeys && hits == wantHits,
                   "matcher: \(matchedKeys) keys matched with \(hits) hits, expected \(wantKeys) with \(wantHits)")
            (matcherNow, matcher, sightings, matchedKeys, hits) = (nil, nil, [], 0, 0)
        case ("riskv1", 6):
            return risk.configureV1(f)
        case ("riskv2", 6):
            return risk.configureV2(f)
        case ("exposures1", 6):
            return record(risk.checkV1(f))
        case ("windows2", 5):
            return record(risk.checkV2(f))
        case ("storefill", 4):
            return record(store.fill(f))
        case ("storecut", 3):
            switch store.cut(f) {
            case .success(let (passedCuts, failedCuts)):
                passed += passedCuts
                failed += failedCuts
            case .failure(let error):
                return error.description
            }
        default:
            return "unknown case \(kind) with \(f.count) fields"
        }
        return nil
    }

    /// A matcher case must end with its `matches` line.
    func finishMatcherCase() -> String? {
        matcherNow == nil ? nil : "a matcher case without its matches line"
    }

    private func rpi(_ tek: Bytes16, _ interval: UInt32) -> Bytes16 {
        schedule.rpi(rpik: schedule.rpik(tek), interval: ENIntervalNumber(interval))
    }

    /// Records a scoring case's result; a description of what is wrong with its line, or nil.
    private mutating func record(_ checked: Result<(Bool, String), CaseLineError>) -> String? {
        switch checked {
        case .success(let (ok, what)):
            record(ok, what)
            return nil
        case .failure(let error):
            return error.description
        }
    }

    private mutating func record(_ ok: Bool, _ what: String) {
        if ok { passed += 1 } else {
            failed += 1
            print("FAIL \(what)")
        }
    }

    /// The figures Tools/build-mcu reads: one `figure NAME VALUE` line each.
    func printFigures() {
        print("figure keys \(keys)")
        print("figure match-ticks \(matchTicks)")
        print("figure ticks-per-million-instructions \(mcu_timer_ticks_for_instructions(1_000_000))")
        print("figure match-stack-bytes \(matchStack)")
        print("figure stack-peak-bytes \(mcu_stack_peak())")
        print("figure stack-size-bytes \(mcu_stack_size())")
        print("figure heap-peak-bytes \(mcu_heap_peak())")
        print("figure match-heap-in-use-bytes \(matchHeap)")
        print("figure static-ram-bytes \(mcu_static_ram())")
        print("figure risk-cases \(risk.cases)")
        print("figure risk-ticks \(risk.ticks)")
        print("figure risk-stack-bytes \(risk.stack)")
        print("figure store-cases \(store.cases)")
        print("figure store-cuts \(store.cuts)")
        print("figure store-stack-bytes \(store.stack)")
        print("figure store-heap-in-use-bytes \(store.heapInUse)")
        print("figure flash-erases \(mcu_flash_erases())")
        print("figure flash-programs \(mcu_flash_programs())")
    }
}
