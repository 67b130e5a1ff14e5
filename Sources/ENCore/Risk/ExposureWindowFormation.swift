/// How the sightings of one diagnosis key become v2 exposure windows and their scan instances, by the rules of
/// Google's reference implementation (google/exposure-notifications-internals, package `matching`), so that a
/// badge's windows are the ones a phone would have reported for the same radio traffic.
///
/// The rules, and where each is decided upstream:
/// - Sightings are taken oldest first (`ExposureMatchingTracer.getValidSightingsForRpi` and `BY_TIME_ASCENDING`:
///   a stable sort on whole seconds).
/// - Windows (`KeyExposureEvaluator.shouldStartNewExposureWindow`): a sighting opens a new window when it comes
///   30 minutes (`ContactTracingFeature.maxExposureWindowDurationMinutes`) or more after the *first sighting of
///   the current window*. Gaps do not split a window; only this cap does. The window's time is that first
///   sighting's, unrounded; its day is the UTC day of that time (`DailySummaryUtils.getDailySummaries`,
///   `SECONDS.toDays(epochSeconds)`), so a window crossing midnight counts on the day it began.
/// - The window's calibration confidence is that of its first sighting's metadata
///   (`KeyExposureEvaluator.findExposureWindows`, set when the window opens).
/// - Scan instances (`KeyExposureEvaluator.sightingInTheSameScanInstance`): a sighting joins the current window's
///   last instance when it is at most 1.5 × (4 s scan + 13 s extension) = 25.5 s after the *previous sighting*
///   (chained, not anchored), and the window already has an instance; a sighting that opens a window always opens
///   an instance too.
/// - An instance's attenuations are every report's (`SightingRecordWithMetadata.attenuationValue`: TX power − RSSI,
///   at least 0). Typical = their mean rounded half up (`ExposureWindowUtils.getTypicalAttenuation`,
///   `Math.round`); minimum = the least (`getMinAttenuation`). enbeacon stores one aggregate per RPI and scan, so
///   a sighting stands for `reports` reports at its (mean-RSSI) attenuation: the mean is weighted by them.
/// - `secondsSinceLastScan` is fixed by the sighting that opens the instance
///   (`SightingRecordWithMetadata.secondsSinceLastScan`): with no previous scan recorded, 2 minutes
///   (`defaultMinutesSinceLastScan`); otherwise the whole-minute difference of the two times, each truncated to
///   its minute first, capped at 5 minutes (`maxMinutesSinceLastScan`), in seconds. Two scans in the same clock
///   minute give 0.
public enum ExposureWindowFormation {
    public static let maximumWindowSeconds: Int64 = 30 * 60
    /// 25.5 s, in tenths of a second so the comparison stays in integers.
    public static let sameScanTenthsOfSeconds: Int64 = 255
    public static let maximumMinutesSinceLastScan: Int64 = 5
    public static let minutesWhenPreviousScanUnknown: Int64 = 2

    /// The windows of `sightings` (any order), oldest first, labelled with the key's scored report type and
    /// infectiousness.
    public static func windows(of sightings: [MatchedSighting], reportType: ReportType,
                               infectiousness: Infectiousness) -> [ExposureWindow] {
        let sorted = sightings.enumerated()
            .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map { $0.element }
        var windows: [ExposureWindow] = []
        var windowStart: Int64 = 0
        var instance = InstanceInProgress?.none
        var previousTime: Int64 = 0
        for sighting in sorted {
            let opensWindow = windows.isEmpty || sighting.time - windowStart >= maximumWindowSeconds
            let opensInstance = opensWindow || (sighting.time - previousTime) * 10 > sameScanTenthsOfSeconds
            if opensInstance, let finished = instance {
                windows[windows.count - 1].scanInstances.append(finished.scanInstance)
            }
            if opensWindow {
                windowStart = sighting.time
                windows.append(ExposureWindow(date: UTCDay(unixSeconds: sighting.time), reportType: reportType,
                                              infectiousness: infectiousness, scanInstances: [],
                                              calibrationConfidence: sighting.calibrationConfidence))
            }
            if opensInstance {
                instance = InstanceInProgress(opening: sighting)
            } else {
                instance?.add(sighting)
            }
            previousTime = sighting.time
        }
        if let finished = instance { windows[windows.count - 1].scanInstances.append(finished.scanInstance) }
        return windows
    }

    /// The seconds a scan instance opened by `sighting` stands for (see the type's comment).
    public static func secondsSinceLastScan(of sighting: MatchedSighting) -> Int {
        guard sighting.secondsSincePreviousScan > 0 else { return Int(60 * minutesWhenPreviousScanUnknown) }
        let previous = sighting.time - Int64(sighting.secondsSincePreviousScan)
        let minutes = wholeMinutes(sighting.time) - wholeMinutes(previous)
        return Int(60 * min(minutes, maximumMinutesSinceLastScan))
    }

    /// Java's `SECONDS.toMinutes`: truncation toward zero.
    private static func wholeMinutes(_ seconds: Int64) -> Int64 { seconds / 60 }

    /// One scan instance being filled: the report-weighted attenuation sum for the typical value.
    private struct InstanceInProgress {
        var time: Int64
        var attenuationSum: Int
        var reports: Int
        var minimum: UInt8
        var secondsSinceLastScan: Int

        init(opening sighting: MatchedSighting) {
            time = sighting.time
            attenuationSum = 0
            reports = 0
            minimum = sighting.minimumAttenuation
            secondsSinceLastScan = ExposureWindowFormation.secondsSinceLastScan(of: sighting)
            add(sighting)
        }

        mutating func add(_ sighting: MatchedSighting) {
            let weight = max(1, Int(sighting.reports))
            attenuationSum += weight * Int(sighting.attenuation)
            reports += weight
            minimum = min(minimum, sighting.minimumAttenuation)
        }

        /// Typical attenuation rounded half up, as `Math.round` does for a non-negative mean.
        var scanInstance: ScanInstance {
            ScanInstance(time: time, typicalAttenuation: UInt8((2 * attenuationSum + reports) / (2 * reports)),
                         minAttenuation: minimum, secondsSinceLastScan: secondsSinceLastScan)
        }
    }
}
