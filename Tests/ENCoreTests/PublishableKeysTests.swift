import Testing
@testable import ENCore

/// Which keys an upload shares: complete days only, the 14 days before today, at most 30, oldest first.
@Suite struct PublishableKeysTests {
    static let today = ENIntervalNumber(2_992_896)  // 2026-11-27T00:00Z

    /// One key per day, from `daysBack` days before `today` up to today.
    static func dailyKeys(daysBack: UInt32) -> [TemporaryExposureKey] {
        var random = SplitMix64(seed: 21)
        return (0...daysBack).reversed().map { back in
            TemporaryExposureKey(keyData: Bytes16(low: random.next(), high: random.next()),
                                 rollingStart: ENIntervalNumber(today.value - back * 144))
        }
    }

    @Test func theFourteenCompleteDaysBeforeToday() {
        let keys = Self.dailyKeys(daysBack: 20)
        let noon = ENIntervalNumber(Self.today.value + 72)
        let chosen = PublishableKeys.select(keys.shuffled(), at: noon)
        #expect(chosen.map(\.rollingStartNumber.value) == (1...14).reversed().map { Self.today.value - $0 * 144 })
        #expect(Set(chosen.map(\.keyData)).isSubset(of: Set(keys.map(\.keyData))))
        #expect(!chosen.contains { $0.rollingStartNumber == Self.today }, "today's key is still on air")
        #expect(chosen.allSatisfy { $0.transmissionRisk == 0 && $0.rollingPeriod == 144 })
        #expect(throws: Never.self) { try KeyUpload(keys: chosen, secret: [UInt8](repeating: 1, count: 32)) }
    }

    @Test func atMidnightYesterdaysKeyHasEnded() {
        let keys = Self.dailyKeys(daysBack: 2)
        let midnight = Self.today
        #expect(PublishableKeys.select(keys, at: midnight).map(\.rollingStartNumber.value)
                == [Self.today.value - 288, Self.today.value - 144])
        #expect(PublishableKeys.select(keys, at: ENIntervalNumber(midnight.value - 1)).map(\.rollingStartNumber.value)
                == [Self.today.value - 288])
    }

    @Test func aKeyEndedEarlyIsShared() {
        var keys = Self.dailyKeys(daysBack: 0)
        keys[0].rollingPeriod = 50  // today's key was replaced after 50 intervals (a wipe)
        let later = ENIntervalNumber(Self.today.value + 60)
        #expect(PublishableKeys.select(keys, at: later).map(\.rollingPeriod) == [50])
    }

    @Test func neverMoreThanTheServerTakesNewestKept() {
        let keys = Self.dailyKeys(daysBack: 14)
        let chosen = PublishableKeys.select(keys, at: Self.today, maxKeys: 5)
        #expect(chosen.map(\.rollingStartNumber.value) == (1...5).reversed().map { Self.today.value - $0 * 144 })
    }

    @Test func nothingToShareOnTheFirstDay() {
        #expect(PublishableKeys.select(Self.dailyKeys(daysBack: 0), at: ENIntervalNumber(Self.today.value + 100)).isEmpty)
        #expect(PublishableKeys.select([], at: Self.today).isEmpty)
    }
}
