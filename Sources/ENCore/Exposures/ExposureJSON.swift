/// An exposure as one JSON object: a line of the exposures file, and what `notify.command` reads on stdin.
///
/// ```json
/// {"id":"…32 hex…","date":"2026-11-20","durationMinutes":30,"attenuationDurations":[30,0,0],
///  "typicalAttenuation":48,"riskScore":2048,"transmissionRiskLevel":4,"reportType":"confirmedTest",
///  "daysSinceOnsetOfSymptoms":1,"windowScore":1800,"windows":[{"date":"2026-11-20","score":1800,
///  "weightedDurationSeconds":1800}],"detectedAt":1763800000,"notified":false,"calibrationConfidence":"medium"}
/// ```
/// Each window also holds `exposureWindow`, the window in Google's API shape (`ExposureWindow.apiJSON`).
/// `daysSinceOnsetOfSymptoms` is left out when the export did not give it; a line without
/// `calibrationConfidence` (written before it was kept) reads as lowest, a window without `exposureWindow` (the
/// same) has none.
extension Exposure {
    public var json: String {
        var object = JSONObject()
        object.string("id", id.hex)
        object.string("date", date.description)
        object.integer("durationMinutes", durationMinutes)
        object.raw("attenuationDurations", JSON.array(attenuationDurations.map(String.init)))
        object.integer("typicalAttenuation", typicalAttenuation)
        object.integer("riskScore", riskScore)
        object.integer("transmissionRiskLevel", transmissionRiskLevel)
        object.string("reportType", reportType.description)
        if let daysSinceOnsetOfSymptoms { object.integer("daysSinceOnsetOfSymptoms", daysSinceOnsetOfSymptoms) }
        object.number("windowScore", windowScore)
        object.raw("windows", "[" + windows.map { window in
            var item = JSONObject()
            item.string("date", window.date.description)
            item.number("score", window.score)
            item.number("weightedDurationSeconds", window.weightedDurationSeconds)
            if let exposureWindow = window.exposureWindow { item.raw("exposureWindow", exposureWindow.apiJSON) }
            return item.text
        }.joined(separator: ",") + "]")
        object.integer("detectedAt", detectedAt)
        object.bool("notified", notified)
        object.string("calibrationConfidence", calibrationConfidence.description)
        return object.text
    }

    /// Reads the object `json` writes; nil when anything is missing or out of shape.
    public init?(json text: String) {
        guard case .object(let m)? = try? JSONValue.parse(text),
              case .string(let idText)? = m["id"], let id = ExposureID(hex: idText),
              let date = Self.day(m["date"]), let duration = Self.int(m["durationMinutes"]),
              case .array(let bucketValues)? = m["attenuationDurations"],
              let typical = Self.int(m["typicalAttenuation"]), let score = Self.int(m["riskScore"]),
              let level = Self.int(m["transmissionRiskLevel"]),
              case .string(let typeName)? = m["reportType"], let reportType = ReportType(name: typeName),
              case .array(let windowValues)? = m["windows"], let detectedAt = Self.int(m["detectedAt"]),
              case .bool(let notified)? = m["notified"] else { return nil }
        let buckets = bucketValues.compactMap { Self.int($0) }
        guard buckets.count == bucketValues.count else { return nil }
        var windows: [Window] = []
        for value in windowValues {
            guard case .object(let w) = value, let day = Self.day(w["date"]), case .number(let s)? = w["score"],
                  case .number(let d)? = w["weightedDurationSeconds"] else { return nil }
            var formed: ExposureWindow?
            if let value = w["exposureWindow"] {
                // The day is in the object; `today` only serves ages, which it never holds.
                guard let read = try? ExposureWindowsJSON.windows(.array([value]), today: day), read.count == 1 else {
                    return nil
                }
                formed = read[0]
            }
            windows.append(Window(date: day, score: s, weightedDurationSeconds: d, exposureWindow: formed))
        }
        var onset: Int?
        if let value = m["daysSinceOnsetOfSymptoms"] {
            guard let days = Self.int(value) else { return nil }
            onset = days
        }
        var confidence = CalibrationConfidence.lowest
        if let value = m["calibrationConfidence"] {
            guard case .string(let name) = value, let named = CalibrationConfidence(name: name) else { return nil }
            confidence = named
        }
        self.init(id: id, date: date, durationMinutes: duration, attenuationDurations: buckets,
                  typicalAttenuation: typical, riskScore: score, transmissionRiskLevel: level, reportType: reportType,
                  daysSinceOnsetOfSymptoms: onset, windows: windows, detectedAt: Int64(detectedAt), notified: notified,
                  calibrationConfidence: confidence)
    }

    private static func int(_ value: JSONValue?) -> Int? {
        // Int(exactly:), not Int(_:): on a 32-bit board a damaged file's 3e9 would trap rather than be refused.
        guard case .number(let n)? = value, n == n.rounded(), abs(n) < 1e15 else { return nil }
        return Int(exactly: n)
    }

    private static func day(_ value: JSONValue?) -> UTCDay? {
        guard case .string(let text)? = value else { return nil }
        return UTCDay(isoDate: text)
    }
}
