/// Which of the badge's keys an upload shares (PUBLISH.md §3 and §5): keys of complete days only — a key
/// still on air is never handed over, as phones do not hand over today's key — from the 14 UTC days before
/// the current one, the newest `maxKeys` if there are more, oldest first.
public enum PublishableKeys {
    /// Days of keys an upload covers.
    public static let days: UInt32 = 14

    public static func select(_ keys: [TemporaryExposureKey], at now: ENIntervalNumber,
                              maxKeys: Int = KeyUpload.defaultMaxKeys) -> [PublishedKey] {
        let today = now.dayStart.value
        let earliestStart = today >= days * ENIntervalNumber.intervalsPerDay
            ? today - days * ENIntervalNumber.intervalsPerDay : 0
        var chosen: [TemporaryExposureKey] = []
        for key in keys where key.rollingEnd <= UInt64(now.value) && key.rollingStart.value >= earliestStart
            && !chosen.contains(where: { $0.keyData == key.keyData }) {
            chosen.append(key)
        }
        chosen.sort { $0.rollingStart < $1.rollingStart }
        return chosen.suffix(maxKeys).map { PublishedKey($0) }
    }
}
